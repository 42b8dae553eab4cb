import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// A note as the newest version (3) of its model describes it: `pinned` and `rating` are new in version
/// 2 and 3, and `tag` is an attribute in version 1 but a to-one relationship in version 3.
final class VersionedNote: NSManagedObject {
    @Managed var title: String?
    @Managed var pinned: Bool
    @Managed var rating: Int16
    @Managed var tag: VersionedTag?
}

/// The tag of version 3.
final class VersionedTag: NSManagedObject {
    @Managed var name: String?
    @Managed var notes: Set<VersionedNote>
}

/// The class of wibosco's `Post` entity (representedClassName="Post"), as its newest version (4)
/// describes it: version 1 has `color` and `content` where version 4 has `hexColor`, `softDeleted` and
/// `sections`.
final class Post: NSManagedObject {
    @Managed var date: Date?
    @Managed var hexColor: String?
    @Managed var postID: String?
    @Managed var softDeleted: Bool
    @Managed var sections: NSSet?
    @ManagedAccessor func addToSections(_ value: Section)
}

/// wibosco's `Section` entity, new in version 3.
final class Section: NSManagedObject {
    @Managed var body: String?
    @Managed var index: Int16
    @Managed var title: String?
    @Managed var post: Post?
}

/// A boat whose class two versions of its model bind (its own class: `entity()` answers per class).
final class VersionedBoat: NSManagedObject {
    @Managed var hull: String?
    @Managed var mast: String?
}

/// An app's `@Managed` classes describe the newest version of its model; a migration's source model, or
/// an old store opened with its own model, binds the same classes. As in Core Data, loading any version
/// works, and only accessing a property the object's model lacks traps (TrapMessageTests-style exit tests).
@Suite("Model classes: older model versions")
struct OlderModelVersionTests {
    /// Version `version` (1, 2 or 3) of the notes model, its properties in an order of its own, so that
    /// `title`, `pinned` and `tag` sit in other slots in each version.
    static func notesModel(_ version: Int) -> NSManagedObjectModel {
        let note = NSEntityDescription(name: "Note", managedObjectClassName: NSStringFromClass(VersionedNote.self))
        let title = NSAttributeDescription(name: "title", type: .stringAttributeType)
        let pinned = NSAttributeDescription(name: "pinned", type: .booleanAttributeType, optional: false, defaultValue: false)
        switch version {
        case 1:
            note.properties = [NSAttributeDescription(name: "body", type: .stringAttributeType),
                               NSAttributeDescription(name: "tag", type: .stringAttributeType), title]
            return NSManagedObjectModel(entities: [note])
        case 2:
            note.properties = [title, NSAttributeDescription(name: "body", type: .stringAttributeType), pinned]
            return NSManagedObjectModel(entities: [note])
        default:
            note.properties = [NSAttributeDescription(name: "rating", type: .integer16AttributeType, optional: false, defaultValue: 0), pinned,
                               NSRelationshipDescription(name: "tag", destination: "Tag", inverse: "notes"), title]
            let tag = NSEntityDescription(name: "Tag", managedObjectClassName: NSStringFromClass(VersionedTag.self), properties: [
                NSAttributeDescription(name: "name", type: .stringAttributeType),
                NSRelationshipDescription(name: "notes", destination: "Note", inverse: "tag", toMany: true),
            ])
            return NSManagedObjectModel(entities: [note, tag])
        }
    }

    /// A store of version `version` holding notes titled `titles` (and, in version 1, a tag attribute).
    static func notesContainer(_ version: Int, _ store: TemporaryStore, _ titles: [String]) throws -> NSPersistentContainer {
        let container = try store.container(notesModel(version))
        let context = container.viewContext
        for title in titles {
            let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
            note.setValue(title, forKey: "title")
            if version == 1 { note.setValue("tag of \(title)", forKey: "tag") }
        }
        try context.save()
        return container
    }

    static func notes(_ context: NSManagedObjectContext) throws -> [VersionedNote] {
        let request = NSFetchRequest<VersionedNote>(entityName: "Note")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        return try context.fetch(request)
    }

    @Test func everyVersionLoadsWithTheNewestClassesAndWarnsOfWhatItLacks() throws {
        let stores = (0..<3).map { _ in TemporaryStore() }
        defer { stores.forEach { $0.cleanUp() } }
        let containers = try (1...3).map { try Self.notesContainer($0, stores[$0 - 1], ["v\($0)"]) }
        let warnings = containers.map { $0.managedObjectModel.classWarnings }
        #expect(warnings[2].isEmpty, "the newest version fits: \(warnings[2])")
        #expect(warnings[0].contains { $0.contains("VersionedNote") && $0.contains("entity Note has no property rating") }, "\(warnings[0])")
        #expect(warnings[0].contains { $0.contains("tag: VersionedTag?") && $0.contains("tag is an attribute of type String") }, "\(warnings[0])")
        #expect(warnings[1].contains { $0.contains("entity Note has no property tag") } && !warnings[1].contains { $0.contains("pinned") })
        for (version, container) in containers.enumerated() {
            let notes = try Self.notes(container.viewContext)
            #expect(notes.map(\.title) == ["v\(version + 1)"])
            #expect(container.managedObjectModel.entitiesByName["Note"]?.layout.objectClass == VersionedNote.self)
        }
        #expect(try Self.notes(containers[1].viewContext).first?.pinned == false)
    }

    /// Objects of versions 1, 2 and 3, alive at once and read in turn: each reads its own version's slot
    /// (the per-property slot cache is keyed by the layout's serial, and `title` sits in slot 2, 0 and 3).
    @Test func objectsOfThreeVersionsInterleaveTheirAccesses() throws {
        let stores = (0..<3).map { _ in TemporaryStore() }
        defer { stores.forEach { $0.cleanUp() } }
        let containers = try (1...3).map { version in
            try Self.notesContainer(version, stores[version - 1], (0..<4).map { "v\(version) #\($0)" })
        }
        let slots = containers.map { $0.managedObjectModel.entitiesByName["Note"]?.propertiesByName["title"]?.slot }
        #expect(slots == [2, 0, 3])
        let notes = try containers.map { try Self.notes($0.viewContext) }
        let serials = Set(notes.map { $0[0].layout.serial })
        #expect(serials.count == 3)
        for round in 0..<3 {
            for i in 0..<4 {
                for version in [2, 0, 1] {
                    let note = notes[version][i]
                    let expected = round == 0 ? "v\(version + 1) #\(i)" : "v\(version + 1) #\(i) edited \(round)"
                    #expect(note.title == expected)
                    note.title = "v\(version + 1) #\(i) edited \(round + 1)"
                    if version > 0 {
                        #expect(note.pinned == (round > 0 && i % 2 == 0))
                        note.pinned = i % 2 == 0
                    }
                    if version == 2 { note.rating = Int16(round * 10 + i) }
                }
            }
        }
        for container in containers { try container.viewContext.save() }
        for (version, store) in stores.enumerated() {
            let reread = try Self.notes(store.container(Self.notesModel(version + 1)).viewContext)
            #expect(reread.map(\.title) == (0..<4).map { "v\(version + 1) #\($0) edited 3" })
            if version > 0 { #expect(reread.map(\.pinned) == [true, false, true, false]) }
            if version == 2 { #expect(reread.map(\.rating) == [20, 21, 22, 23]) }
            if version == 0 { #expect(reread.map { $0.value(forKey: "tag") as? String } == (0..<4).map { "tag of v1 #\($0)" }) }
        }
    }

    /// The same, from two queues at once: a private-queue context of each version reads and writes its
    /// notes while the other does (the slot cache is one atomic word that both keep replacing).
    @Test func twoVersionsOnTwoQueuesAtOnce() async throws {
        let old = TemporaryStore(), new = TemporaryStore()
        defer { old.cleanUp(); new.cleanUp() }
        let containers = try [Self.notesContainer(1, old, ["a", "b"]), Self.notesContainer(3, new, ["c", "d", "e"])]
        let titles = try await withThrowingTaskGroup(of: [String].self) { group in
            for container in containers {
                let context = container.newBackgroundContext()
                group.addTask {
                    try context.performAndWait {
                        let notes = try Self.notes(context)
                        for round in 0..<2_000 {
                            for note in notes { note.title = "\(note.title!.split(separator: " ")[0]) \(round)" }
                        }
                        try context.save()
                        return try Self.notes(context).map { $0.title ?? "?" }
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }.sorted()
        }
        #expect(titles == ["a 1999", "b 1999", "c 1999", "d 1999", "e 1999"])
    }

    /// The relationship of version 3 and the attribute of version 1 under one name: each object reads its
    /// own (`value(forKey:)` on the old one, the typed property on the new one).
    @Test func aPropertyOfAnotherKindInEachVersion() throws {
        let old = TemporaryStore(), new = TemporaryStore()
        defer { old.cleanUp(); new.cleanUp() }
        let v1 = try Self.notesContainer(1, old, ["old"])
        let v3 = try Self.notesContainer(3, new, ["new"])
        let tag = VersionedTag(context: v3.viewContext)
        tag.name = "work"
        let newNote = try #require(try Self.notes(v3.viewContext).first)
        newNote.tag = tag
        #expect(tag.notes == [newNote])
        let oldNote = try #require(try Self.notes(v1.viewContext).first)
        #expect(oldNote.value(forKey: "tag") as? String == "tag of old")
        #expect(newNote.tag?.name == "work")
        try v3.viewContext.save()
        #expect(VersionedNote(context: v1.viewContext).entity === v1.managedObjectModel.entitiesByName["Note"])
        #expect(VersionedNote(context: v3.viewContext).entity === v3.managedObjectModel.entitiesByName["Note"])
    }

    /// `entity()` answers for the model loaded last that is still there: an older version loaded for a
    /// while (a migration's source model) does not leave the class without its entity once it is gone.
    @Test func theClassEntityOutlivesAnOlderModelLoadedAfterIt() throws {
        func boat(_ properties: [String]) -> NSManagedObjectModel {
            NSManagedObjectModel(entities: [NSEntityDescription(name: "Boat", managedObjectClassName: NSStringFromClass(VersionedBoat.self),
                                                                properties: properties.map { NSAttributeDescription(name: $0, type: .stringAttributeType) })])
        }
        let newest = boat(["hull", "mast"])
        _ = try NSPersistentStoreCoordinator(validatingModel: newest)
        #expect(VersionedBoat.entity() === newest.entitiesByName["Boat"])
        do {
            let older = boat(["hull"])
            _ = try NSPersistentStoreCoordinator(validatingModel: older)
            #expect(VersionedBoat.entity() === older.entitiesByName["Boat"])
            #expect(older.classWarnings.count == 1 && older.classWarnings[0].contains("entity Boat has no property mast"), "\(older.classWarnings)")
        }
        #expect(VersionedBoat.entity() === newest.entitiesByName["Boat"])
        #expect(VersionedBoat.fetchRequest().entityName == "Boat")
    }

    // MARK: - Apple's fixture: wibosco's versioned model

    static let fixture = "wibosco-migration-revised"
    static let version1 = VersionHashTests.Pair(fixture: fixture, store: "CoreDataMigration_Example_1.sqlite", version: "CoreDataMigration_Example")

    static func wiboscoModel(_ version: String) throws -> NSManagedObjectModel {
        try #require(try VersionHashTests.model(fixture, version: version), "\(fixture) \(version)")
    }

    /// The posts of a store written by version 1, fetched as the app's `Post` (which describes version 4)
    /// while a version-4 store is open too: the store opens read-only and read-write, the properties
    /// version 1 has read and write, and the save lands in the old store.
    @Test func aVersion1StoreOpensWithTheVersion4Classes() throws {
        let copy = try FixtureCopy(Self.version1)
        let newStore = TemporaryStore()
        defer { copy.cleanUp(); newStore.cleanUp() }
        let current = try newStore.container(Self.wiboscoModel("CoreDataMigration_Example 4"))
        let post = Post(context: current.viewContext)
        post.postID = "new"
        post.hexColor = "#00FF00"
        let section = Section(context: current.viewContext)
        section.title = "first"
        post.addToSections(section)
        #expect(section.post === post)
        try current.viewContext.save()

        let version1 = try Self.wiboscoModel("CoreDataMigration_Example")
        let readOnly = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        readOnly.persistentStoreCoordinator = try copy.coordinator(version1, options: [NSReadOnlyPersistentStoreOption: true])
        #expect(version1.classWarnings.contains { $0.contains("entity Post has no property hexColor") && $0.contains("\"CoreDataMigration_Example\"") },
                "\(version1.classWarnings)")
        let request = NSFetchRequest<Post>(entityName: "Post")
        request.sortDescriptors = [NSSortDescriptor(key: "postID", ascending: true)]
        let oldPosts = try readOnly.fetch(request)
        #expect(oldPosts.count == 10)
        #expect(oldPosts.allSatisfy { $0.postID != nil && $0.value(forKey: "color") != nil })
        // Interleaved with the version-4 objects.
        for old in oldPosts {
            #expect(post.hexColor == "#00FF00" && (post.sections?.anyObject() as? Section)?.title == "first")
            #expect(old.date != nil)
        }

        let writable = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        writable.persistentStoreCoordinator = try copy.coordinator(Self.wiboscoModel("CoreDataMigration_Example"))
        let first = try #require(try writable.fetch(request).first)
        let stamp = Date(timeIntervalSinceReferenceDate: 600_000_000)
        first.date = stamp
        first.postID = "renamed"
        try writable.save()
        let reread = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        reread.persistentStoreCoordinator = try copy.coordinator(Self.wiboscoModel("CoreDataMigration_Example"))
        let check = NSFetchRequest<Post>(entityName: "Post")
        check.predicate = NSPredicate(format: "postID == %@", "renamed")
        #expect(try reread.fetch(check).map(\.date) == [stamp])
        #expect(try copy.strings("SELECT ZPOSTID FROM ZPOST WHERE ZPOSTID = 'renamed'") == ["renamed"])
    }

    // MARK: - Traps at the access, never at the load

    /// A version-1 note, of a store in a temporary folder that the child process leaves behind.
    static func version1Note() throws -> VersionedNote {
        let container = try notesContainer(1, TemporaryStore(), ["old"])
        return try #require(try notes(container.viewContext).first)
    }

    @Test func readingAPropertyTheOlderVersionLacksTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Self.version1Note().rating
        }
        let text = TrapMessageTests.stderr(result)
        #expect(text.contains("-[OpenCoreDataTests.VersionedNote rating]: unrecognized selector sent to instance"), "\(text)")
        #expect(text.contains("@Managed property rating of class OpenCoreDataTests.VersionedNote is not a property of entity Note in the object's model, which lacks it"), "\(text)")
    }

    @Test func writingAPropertyTheOlderVersionLacksTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try Self.version1Note().pinned = true
        }
        let text = TrapMessageTests.stderr(result)
        #expect(text.contains("VersionedNote pinned]: unrecognized selector") && text.contains("entity Note"), "\(text)")
    }

    @Test func aPropertyOfAnotherKindTrapsWhenAccessed() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = try Self.version1Note().tag
        }
        let text = TrapMessageTests.stderr(result)
        #expect(text.contains("@Managed property tag is declared as a to-one relationship, but in the object's model tag of entity Note is an attribute of type String"), "\(text)")
    }

    @Test func aToManyAccessorOfAnOlderVersionTrapsWhenCalled() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let copy = try FixtureCopy(Self.version1)
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = try copy.coordinator(Self.wiboscoModel("CoreDataMigration_Example"))
            let posts = try context.fetch(NSFetchRequest<Post>(entityName: "Post"))
            let current = try NSPersistentStoreCoordinator(validatingModel: Self.wiboscoModel("CoreDataMigration_Example 4"))
            posts[0].addToSections(Section(entity: try #require(current.managedObjectModel.entitiesByName["Section"]), insertInto: nil))
        }
        let text = TrapMessageTests.stderr(result)
        #expect(text.contains("@ManagedAccessor addToSections: entity Post has no to-many relationship sections in the object's model (version \"CoreDataMigration_Example\")"), "\(text)")
    }

    @Test func theFixturesVersion1PostTrapsOnHexColorNamingTheModelVersion() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let copy = try FixtureCopy(Self.version1)
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = try copy.coordinator(Self.wiboscoModel("CoreDataMigration_Example"))
            let post = try #require(try context.fetch(NSFetchRequest<Post>(entityName: "Post")).first)
            _ = post.postID
            _ = post.hexColor
        }
        let text = TrapMessageTests.stderr(result)
        #expect(text.contains("-[OpenCoreDataTests.Post hexColor]: unrecognized selector sent to instance"), "\(text)")
        #expect(text.contains("entity Post in the object's model (version \"CoreDataMigration_Example\"), which lacks it"), "\(text)")
    }
}
