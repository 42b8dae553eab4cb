import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// iOS 17's staged migration: `NSStagedMigrationManager` with lightweight and custom stages, set on the
/// store with `NSPersistentStoreStagedMigrationManagerOptionKey`.
@Suite struct StagedMigrationTests {
    /// v1: Note(title optional); v2: + body (optional); v3: title required, + titleLength.
    static func models() -> [NSManagedObjectModel] {
        func note(_ properties: [NSAttributeDescription]) -> NSManagedObjectModel {
            NSManagedObjectModel(entities: [NSEntityDescription(name: "Note", properties: properties)])
        }
        return [
            note([NSAttributeDescription(name: "title", type: .stringAttributeType)]),
            note([NSAttributeDescription(name: "title", type: .stringAttributeType), NSAttributeDescription(name: "body", type: .stringAttributeType)]),
            note([NSAttributeDescription(name: "title", type: .stringAttributeType, optional: false),
                  NSAttributeDescription(name: "body", type: .stringAttributeType),
                  NSAttributeDescription(name: "titleLength", type: .integer16AttributeType, optional: false, defaultValue: 0)]),
        ]
    }

    /// A version-1 store with three notes, one without a title.
    static func versionOneStore(_ directory: TemporaryStore, _ model: NSManagedObjectModel) throws -> URL {
        let url = directory.directory.appendingPathComponent("Notes.sqlite")
        let coordinator = try NSPersistentStoreCoordinator(validatingModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        for title in ["Groceries", nil, "Ideas"] {
            NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue(title, forKey: "title")
        }
        try context.save()
        try coordinator.remove(store)
        return url
    }

    func notes(_ coordinator: NSPersistentStoreCoordinator) throws -> [NSManagedObject] {
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
    }

    @Test func customStagesRunTheirHandlersAroundEachMigration() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let models = Self.models()
        let url = try Self.versionOneStore(directory, models[0])
        let refs = models.map { NSManagedObjectModelReference(model: $0, versionChecksum: $0.versionChecksum) }
        var events: [String] = []
        let first = NSCustomMigrationStage(migratingFrom: refs[0], to: refs[1])
        first.label = "v1 to v2"
        let second = NSCustomMigrationStage(migratingFrom: refs[1], to: refs[2])
        second.label = "v2 to v3: titles become required"
        second.willMigrateHandler = { manager, stage in
            events.append("will \(stage.label!)")
            // The store at version 2: give every note a title before it becomes required.
            let context = try #require(manager.container).viewContext
            let untitled = NSFetchRequest<NSManagedObject>(entityName: "Note")
            untitled.predicate = NSPredicate(format: "title == nil")
            for note in try context.fetch(untitled) { note.setValue("Untitled", forKey: "title") }
            try context.save()
        }
        second.didMigrateHandler = { manager, stage in
            events.append("did \(stage.label!)")
            let context = try #require(manager.container).viewContext
            for note in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")) {
                note.setValue(Int16((note.value(forKey: "title") as! String).count), forKey: "titleLength")
            }
            try context.save()
        }
        let manager = NSStagedMigrationManager([first, second])
        #expect(manager.stages.count == 2)
        let coordinator = try NSPersistentStoreCoordinator(validatingModel: models[2])
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                           options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
        #expect(events == ["will v2 to v3: titles become required", "did v2 to v3: titles become required"])
        #expect(manager.container == nil)
        let migrated = try notes(coordinator).map { ($0.value(forKey: "title") as! String, $0.value(forKey: "titleLength") as! Int16) }
        #expect(migrated.sorted { $0.0 < $1.0 }.map { "\($0.0):\($0.1)" } == ["Groceries:9", "Ideas:5", "Untitled:8"])
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        #expect(models[2].isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    @Test func aStoreNoStageLeadsOnFromIsRefusedAndLeftAsItWas() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let models = Self.models()
        let url = try Self.versionOneStore(directory, models[0])
        let before = try Data(contentsOf: url)
        // Only v2 → v3 is staged: the version-1 store has nowhere to go.
        let refs = models.map { NSManagedObjectModelReference(model: $0, versionChecksum: $0.versionChecksum) }
        let manager = NSStagedMigrationManager([NSCustomMigrationStage(migratingFrom: refs[1], to: refs[2]), NSCustomMigrationStage(migratingFrom: refs[0], to: refs[0])])
        let coordinator = try NSPersistentStoreCoordinator(validatingModel: models[2])
        #expect { try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                                     options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager]) } throws: { error in
            let e = error as NSError
            return e.code == NSMigrationError && e.localizedDescription.contains("lead back")
        }
        #expect(try Data(contentsOf: url) == before)
        // A stage whose migration cannot be inferred (a required title without a value for the untitled note).
        let direct = NSStagedMigrationManager([NSCustomMigrationStage(migratingFrom: refs[0], to: refs[2])])
        #expect(throws: (any Error).self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                               options: [NSPersistentStoreStagedMigrationManagerOptionKey: direct])
        }
        #expect(try Data(contentsOf: url) == before)
        #expect(coordinator.persistentStores.isEmpty)
        // A reference with the wrong checksum is named.
        let wrong = NSManagedObjectModelReference(model: models[1], versionChecksum: "nope")
        #expect(wrong.resolvedModel === models[1])
        let misnamed = NSStagedMigrationManager([NSCustomMigrationStage(migratingFrom: refs[0], to: wrong)])
        #expect { try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url,
                                                     options: [NSPersistentStoreStagedMigrationManagerOptionKey: misnamed]) } throws: {
            "\($0)".contains("nope")
        }
    }

    @Test func aLightweightStageTakesAnAppleStoreThroughTheModelsVersions() throws {
        // DuckDuckGo's bookmarks: the version-1 store, staged through every version in one lightweight stage.
        let copy = try FixtureCopy(.init(fixture: "ddg-bookmarks", store: "Bookmarks_V1.sqlite", version: "BookmarksModel"))
        defer { copy.cleanUp() }
        let folder = try #require(VersionHashTests.modelFolder("ddg-bookmarks"))
        let destination = try NSManagedObjectModel(validatingContentsOf: folder)
        #expect(destination.versions.count == 6)
        for model in destination.versions { for entity in model.entities { entity.managedObjectClassName = "NSManagedObject" } }
        let stage = NSLightweightMigrationStage(destination.versions.map(\.versionChecksum))
        stage.label = "bookmarks 1 to 6"
        let old = try copy.coordinator(try #require(try copy.model()), options: [NSReadOnlyPersistentStoreOption: true])
        let titles = try notes(old, entity: "BookmarkEntity").compactMap { $0.value(forKey: "title") as? String }.sorted()
        try old.remove(old.persistentStores[0])
        let coordinator = try NSPersistentStoreCoordinator(validatingModel: destination)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: copy.url,
                                           options: [NSPersistentStoreStagedMigrationManagerOptionKey: NSStagedMigrationManager([stage])])
        #expect(try notes(coordinator, entity: "BookmarkEntity").compactMap { $0.value(forKey: "title") as? String }.sorted() == titles)
        #expect(!titles.isEmpty)
    }

    @Test func modelReferencesFindTheirModelsInFiles() throws {
        let folder = try #require(VersionHashTests.modelFolder("wibosco-migration"))
        let versions = try NSManagedObjectModel(validatingContentsOf: folder).versions
        let second = try #require(versions.first { $0.versionName == "CoreDataMigration_Example 2" })
        let reference = NSManagedObjectModelReference(fileURL: folder, versionChecksum: second.versionChecksum)
        #expect(reference.versionChecksum == second.versionChecksum)
        #expect(reference.resolvedModel.versionChecksum == second.versionChecksum)
        #expect(reference.resolvedModel.versionName == "CoreDataMigration_Example 2")
        let missing = NSManagedObjectModelReference(fileURL: folder, versionChecksum: "no such checksum")
        #expect(missing.resolvedModel.entities.isEmpty)
        let stage = NSCustomMigrationStage(migratingFrom: missing, to: reference)
        #expect { _ = try missing.model(for: stage) } throws: { "\($0)".contains("no such checksum") }
        let unknown = NSManagedObjectModelReference(name: "NoSuchModel", in: nil, versionChecksum: "x")
        #expect(unknown.resolvedModel.entities.isEmpty)
        let byHashes = NSManagedObjectModelReference(entityVersionHashes: second.entityVersionHashesByName, in: nil, versionChecksum: second.versionChecksum)
        #expect(byHashes.versionChecksum == second.versionChecksum)
    }

    func notes(_ coordinator: NSPersistentStoreCoordinator, entity: String) throws -> [NSManagedObject] {
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))
    }
}
