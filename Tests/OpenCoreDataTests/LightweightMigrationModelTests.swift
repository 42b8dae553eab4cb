import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Lightweight migration of stores made here with version 1 of a model written as a versioned model
/// folder (`.xcdatamodeld` with `.xccurrentversion`), opened with version 2: the source model is found
/// among the folder's versions, entities are renumbered, join tables rebuilt, defaults filled, and what
/// cannot be migrated fails with Core Data's error, the store's bytes unchanged. The tests taking a store
/// run on a SQLite file and on a PostgreSQL schema (when the tests have a server), whose "bytes" are
/// every row and index of the schema (``PostgresTestServer/dump(_:)``).
@Suite("Lightweight migration of versioned models")
struct LightweightMigrationModelTests {
    static let stores: [StoreUnderTest] = [.sqlite] + (PostgresTestServer.unavailable == nil ? [.postgres] : [])

    static var migrate: [AnyHashable: Any] { [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true] }

    /// Version 1: MigPost (title, score) ↔ MigTag (name), many-to-many.
    static func version1() -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [
            NSEntityDescription(name: "MigPost", properties: [
                NSAttributeDescription(name: "title", type: .stringAttributeType),
                NSAttributeDescription(name: "score", type: .integer64AttributeType),
                NSRelationshipDescription(name: "tags", destination: "MigTag", inverse: "posts", toMany: true),
            ]),
            NSEntityDescription(name: "MigTag", properties: [
                NSAttributeDescription(name: "name", type: .stringAttributeType),
                NSRelationshipDescription(name: "posts", destination: "MigPost", inverse: "tags", toMany: true),
            ]),
        ])
    }

    /// Version 1 changed by `change` (applied to a fresh copy).
    static func version2(_ change: (NSManagedObjectModel) -> Void) -> NSManagedObjectModel {
        let model = version1()
        change(model)
        return model
    }

    /// A temporary folder with `Mig.xcdatamodeld` holding the versions (the last one current), and a
    /// store made with version 1 holding three posts and two tags.
    struct Setup {
        let directory = TemporaryStore()
        let folder: URL
        let url: URL
        let store: StoreUnderTest

        init(_ versions: [NSManagedObjectModel], store: StoreUnderTest = .sqlite) throws {
            self.store = store
            url = store.location == nil ? directory.url : try #require(PostgresTestServer.storeURL())
            folder = directory.directory.appendingPathComponent("Mig.xcdatamodeld")
            for (i, version) in versions.enumerated() {
                let path = folder.appendingPathComponent(i == 0 ? "Mig.xcdatamodel" : "Mig \(i + 1).xcdatamodel")
                try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
                try version.modelFileContents().write(to: path.appendingPathComponent("contents"))
            }
            let current = versions.count == 1 ? "Mig.xcdatamodel" : "Mig \(versions.count).xcdatamodel"
            try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": current], format: .xml, options: 0)
                .write(to: folder.appendingPathComponent(".xccurrentversion"))
            let coordinator = try NSPersistentStoreCoordinator(validatingModel: try model(version: 1))
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                let tags = ["swift", "linux"].map { name -> NSManagedObject in
                    let tag = NSEntityDescription.insertNewObject(forEntityName: "MigTag", into: context)
                    tag.setValue(name, forKey: "name")
                    return tag
                }
                for (i, title) in ["one", "two", "three"].enumerated() {
                    let post = NSEntityDescription.insertNewObject(forEntityName: "MigPost", into: context)
                    post.setValue(title, forKey: "title")
                    post.setValue(i == 1 ? nil : Int64(i * 10), forKey: "score")
                    post.setValue(Set(tags.prefix(i)), forKey: "tags")
                }
                try context.save()
            }
        }

        /// Version `n` (1-based) of the folder, read from it, its objects of class `NSManagedObject`.
        func model(version n: Int) throws -> NSManagedObjectModel {
            let current = try NSManagedObjectModel(validatingContentsOf: folder)
            let name = n == 1 ? "Mig" : "Mig \(n)"
            let model = try #require(current.versions.first { $0.versionName == name })
            for entity in model.entities { entity.managedObjectClassName = "NSManagedObject" }
            return model
        }

        /// The store file's bytes (and its WAL's), or the PostgreSQL schema's rows and indexes.
        func bytes() throws -> [Data] {
            if store.location != nil { return try PostgresTestServer.dump(url).map { Data($0.utf8) } }
            return ["", "-wal"].map { (try? Data(contentsOf: URL(fileURLWithPath: url.path + $0))) ?? Data() }
        }

        /// A context on the store opened with version `n`, migrating.
        func context(version n: Int, options: [AnyHashable: Any]? = LightweightMigrationModelTests.migrate) throws -> NSManagedObjectContext {
            let coordinator = try NSPersistentStoreCoordinator(validatingModel: try model(version: n))
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }

        /// Each post's title → its tags' names, sorted.
        static func tagsByTitle(_ context: NSManagedObjectContext) throws -> [String: [String]] {
            try context.performAndWait {
                var result: [String: [String]] = [:]
                for post in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "MigPost")) {
                    let tags = post.value(forKey: "tags") as? Set<NSManagedObject> ?? []
                    result[post.value(forKey: "title") as? String ?? "?"] = tags.compactMap { $0.value(forKey: "name") as? String }.sorted()
                }
                return result
            }
        }

        func cleanUp() {
            if store.location != nil {
                try? NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel()).destroyPersistentStore(at: url, ofType: NSSQLiteStoreType)
            }
            directory.cleanUp()
        }
    }

    static let tags = ["one": [], "two": ["swift"], "three": ["linux", "swift"]]

    @Test(arguments: stores)
    func anAddedEntityRenumbersEntitiesAndJoinTablesKeepTheirPairs(_ store: StoreUnderTest) throws {
        let v2 = Self.version2 { model in
            let author = NSEntityDescription(name: "MigAuthor", properties: [
                NSAttributeDescription(name: "name", type: .stringAttributeType),
                NSRelationshipDescription(name: "posts", destination: "MigPost", inverse: "author", toMany: true),
            ])
            model.entities = [author] + model.entities
            model.entitiesByName["MigPost"]!.properties.append(NSRelationshipDescription(name: "author", destination: "MigAuthor", inverse: "posts"))
        }
        let setup = try Setup([Self.version1(), v2], store: store)
        defer { setup.cleanUp() }
        let before = try Setup.tagsByTitle(try setup.context(version: 1, options: nil))
        #expect(before == Self.tags)
        let context = try setup.context(version: 2)
        #expect(try Setup.tagsByTitle(context) == Self.tags)
        let model = try #require(context.persistentStoreCoordinator?.managedObjectModel)
        #expect(model.entitiesByName["MigAuthor"]?.layout.entityID == 1, "the added entity takes number 1: the others move")
        // New objects get keys above the old ones.
        try context.performAndWait {
            let post = NSEntityDescription.insertNewObject(forEntityName: "MigPost", into: context)
            post.setValue("four", forKey: "title")
            try context.save()
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "MigPost")) == 4)
        }
    }

    /// Two coordinators opening a store of the older version at once: one migrates it under the store's
    /// lock (SQLite's `BEGIN IMMEDIATE`, PostgreSQL's advisory lock), the other finds it migrated; both
    /// open, every object there once.
    @Test(arguments: stores)
    func twoCoordinatorsOpeningAnOlderStoreAtOnceMigrateItOnce(_ store: StoreUnderTest) throws {
        let v2 = Self.version2 { $0.entitiesByName["MigPost"]!.properties.append(NSAttributeDescription(name: "subtitle", type: .stringAttributeType)) }
        let setup = try Setup([Self.version1(), v2], store: store)
        defer { setup.cleanUp() }
        let results = LockedValue<[Result<[String: [String]], any Error>]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let result = Result { try Setup.tagsByTitle(try setup.context(version: 2)) }
            results.withLock { $0.append(result) }
        }
        let opened = results.withLock { $0 }
        #expect(opened.count == 2)
        for result in opened { #expect(try result.get() == Self.tags) }
    }

    @Test(arguments: stores)
    func anAttributeWhoseTypeChangedFailsWithMissingMappingModel(_ store: StoreUnderTest) throws {
        let v2 = Self.version2 { model in
            let post = model.entitiesByName["MigPost"]!
            post.properties = post.properties.map { p in p.name == "score" ? NSAttributeDescription(name: "score", type: .stringAttributeType) : p }
        }
        let setup = try Setup([Self.version1(), v2], store: store)
        defer { setup.cleanUp() }
        let bytes = try setup.bytes()
        #expect { try setup.context(version: 2) } throws: { error in
            let error = error as NSError
            return error.code == NSMigrationMissingMappingModelError && (error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == NSInferredMappingModelError
        }
        #expect(try setup.bytes() == bytes)
    }

    @Test(arguments: stores)
    func anAddedRequiredAttributeNeedsADefaultValue(_ store: StoreUnderTest) throws {
        let without = Self.version2 { $0.entitiesByName["MigPost"]!.properties.append(NSAttributeDescription(name: "rank", type: .integer64AttributeType, optional: false)) }
        let setup = try Setup([Self.version1(), without], store: store)
        defer { setup.cleanUp() }
        let bytes = try setup.bytes()
        #expect { try setup.context(version: 2) } throws: { error in
            let error = error as NSError
            return error.code == NSMigrationError && (error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == NSValidationMissingMandatoryPropertyError
        }
        #expect(try setup.bytes() == bytes)

        let with = Self.version2 { $0.entitiesByName["MigPost"]!.properties.append(NSAttributeDescription(name: "rank", type: .integer64AttributeType, optional: false, defaultValue: 7)) }
        let other = try Setup([Self.version1(), with], store: store)
        defer { other.cleanUp() }
        let context = try other.context(version: 2)
        let ranks = try context.performAndWait { try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "MigPost")).map { $0.value(forKey: "rank") as? Int64 } }
        #expect(ranks == [7, 7, 7])
    }

    @Test(arguments: stores)
    func anAttributeMadeRequiredTakesItsDefaultWhereItWasNil(_ store: StoreUnderTest) throws {
        let v2 = Self.version2 { model in
            let post = model.entitiesByName["MigPost"]!
            post.properties = post.properties.map { p in
                p.name == "score" ? NSAttributeDescription(name: "score", type: .integer64AttributeType, optional: false, defaultValue: 5) : p
            }
        }
        let setup = try Setup([Self.version1(), v2], store: store)
        defer { setup.cleanUp() }
        let context = try setup.context(version: 2)
        let scores = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "MigPost")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            return try context.fetch(request).map { $0.value(forKey: "score") as? Int64 }
        }
        #expect(scores == [0, 20, 5], "one, three, two: two's nil became the default")
    }

    @Test func anAddedOptionalAttributeIsAddedByAlterTable() throws {
        let v2 = Self.version2 { $0.entitiesByName["MigPost"]!.properties.append(NSAttributeDescription(name: "subtitle", type: .stringAttributeType)) }
        let setup = try Setup([Self.version1(), v2])
        defer { setup.cleanUp() }
        let model = try setup.model(version: 2)
        let coordinator = try NSPersistentStoreCoordinator(validatingModel: model)  // lays the model out
        _ = coordinator
        let db = try SQLiteConnection(path: setup.url.path)
        let metadata = try StoreMetadata.read(db, path: setup.url.path)
        var tables: [Int: TableInfo] = [:]
        for root in model.entities where root.superentity == nil { tables[root.layout.entityID] = TableInfo(root: root, entities: model.entities) }
        let migration = try InPlaceMigration.plan(metadata: metadata, model: model, tables: tables, path: setup.url.path)
        let plans = try migration.tablePlans(db)
        let post = try #require(plans[model.entitiesByName["MigPost"]!.layout.rootEntityID])
        guard case .alter(let added, let updates) = post else { Issue.record("MigPost's table is rebuilt, not altered"); return }
        #expect(added.map(\.name) == ["ZSUBTITLE"] && updates.isEmpty)
        let context = try setup.context(version: 2)
        #expect(try Setup.tagsByTitle(context) == Self.tags)
    }

    @Test(arguments: stores)
    func aManyToManyBecomingAToOneKeepsThePairWithTheFirstKey(_ store: StoreUnderTest) throws {
        let v2 = Self.version2 { model in
            let post = model.entitiesByName["MigPost"]!
            post.properties = post.properties.map { p in p.name == "tags" ? NSRelationshipDescription(name: "tags", destination: "MigTag", inverse: "posts") : p }
        }
        let setup = try Setup([Self.version1(), v2], store: store)
        defer { setup.cleanUp() }
        let context = try setup.context(version: 2)
        let tags = try context.performAndWait {
            var result: [String: String] = [:]
            for post in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "MigPost")) {
                result[post.value(forKey: "title") as! String] = (post.value(forKey: "tags") as? NSManagedObject)?.value(forKey: "name") as? String ?? "none"
            }
            return result
        }
        #expect(tags["one"] == "none" && tags["two"] == "swift", "\(tags)")
        #expect(["swift", "linux"].contains(tags["three"] ?? ""), "three keeps one of its two tags: \(tags)")
    }

    @Test(arguments: stores)
    func rowsThatBreakAnAddedUniquenessConstraintFailTheMigrationUntouched(_ store: StoreUnderTest) throws {
        let v2 = Self.version2 { model in
            let post = model.entitiesByName["MigPost"]!
            post.properties.append(NSAttributeDescription(name: "slug", type: .stringAttributeType, optional: false, defaultValue: "same"))
            post.uniquenessConstraints = [["slug"]]
        }
        let setup = try Setup([Self.version1(), v2], store: store)
        defer { setup.cleanUp() }
        let bytes = try setup.bytes()
        #expect { try setup.context(version: 2) } throws: { ($0 as NSError).code == NSMigrationConstraintViolationError }
        #expect(try setup.bytes() == bytes)
    }

    @Test func aRemovedEntityTakesItsRowsAndJoinTableAlong() throws {
        let v2 = Self.version2 { model in
            model.entities = model.entities.filter { $0.name != "MigTag" }
            let post = model.entitiesByName["MigPost"]!
            post.properties = post.properties.filter { $0.name != "tags" }
        }
        let setup = try Setup([Self.version1(), v2])
        defer { setup.cleanUp() }
        let context = try setup.context(version: 2)
        #expect(try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "MigPost")) } == 3)
        let db = try SQLiteConnection(path: setup.url.path)
        var tables: [String] = []
        try db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { row in
            if case .string(let name) = row.value(0, as: .stringAttributeType) { tables.append(name) }
        }
        #expect(tables == ["ZMIGPOST", "Z_METADATA", "Z_PRIMARYKEY"])
    }

    @Test func anInMemoryStoreHasNothingToMigrate() throws {
        let coordinator = try NSPersistentStoreCoordinator(validatingModel: Self.version1())
        let store = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: Self.migrate)
        #expect(store.type == NSInMemoryStoreType)
    }
}
