import Foundation
@testable import OpenCoreData
import Testing
import OpenCoreDataTesting

/// Derived, transformable and external-storage attributes and fetch indexes, driven by a model file in
/// Xcode's format (AttributeBehaviourFixtures), on a real SQLite file.
@Suite("Model files: attribute behaviours")
struct AttributeBehaviourTests {
    @discardableResult private func insert(_ entity: String, _ values: [String: Any], _ context: NSManagedObjectContext) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    private func fetch(_ entity: String, _ context: NSManagedObjectContext, _ format: String? = nil, sortedBy key: String = "name",
                       ascending: Bool = true) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        if let format { request.predicate = NSPredicate(format: format) }
        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: ascending)]
        return try context.fetch(request)
    }

    private func int(_ object: NSManagedObject, _ key: String) -> Int? { object.value(forKey: key) as? Int }

    // MARK: - Derived attributes

    @Test func derivedAttributesAreComputedBySaveAndSeenEverywhere() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(try AttributeBehaviourFixtures.model())
        let context = container.viewContext
        let mammals = insert("Classification", ["name": "Ça Mammalia", "order": 3], context)
        let birds = insert("Classification", ["name": "AVES", "order": 7], context)
        let zoo = insert("Zoo", ["name": "Tampa"], context)
        let gorilla = insert("Animal", ["name": "Gorilla", "classification": mammals], context)
        let lion = insert("Animal", ["name": "Lion", "classification": mammals], context)
        insert("Animal", ["name": "Owl", "classification": birds], context)
        gorilla.mutableSetValue(forKey: "zoos").add(zoo)
        // Set by the app: has no effect on what is stored (the store computes it).
        mammals.setValue(99, forKey: "animalCount")
        let before = Date()
        try context.save()

        // The saving context holds the store's values at once.
        #expect(int(mammals, "animalCount") == 2)
        #expect(int(birds, "animalCount") == 1)
        #expect(mammals.value(forKey: "searchName") as? String == "ca mammalia")
        #expect(birds.value(forKey: "searchName") as? String == "aves")
        #expect(int(gorilla, "classificationOrder") == 3)
        #expect(int(gorilla, "zooCount") == 1)
        #expect(int(lion, "zooCount") == 0)
        let modified = try #require(mammals.value(forKey: "modified") as? Date)
        #expect(modified >= before.addingTimeInterval(-1))
        #expect(!mammals.hasChanges)

        // Another context reads them from the store; fetching and sorting by them runs in SQL.
        let other = container.newBackgroundContext()
        try other.performAndWait {
            let counted = try fetch("Classification", other, "animalCount >= 1", sortedBy: "animalCount", ascending: false)
            #expect(counted.map { $0.value(forKey: "name") as? String } == ["Ça Mammalia", "AVES"])
            #expect(try fetch("Classification", other, "searchName == 'aves'").count == 1)
            #expect(try fetch("Animal", other, "classificationOrder == 7").map { $0.value(forKey: "name") as? String } == ["Owl"])
        }

        // A relationship change on the other side: the owl moves to the mammals in a new context, which
        // writes Animal rows only for the to-one; both counts follow.
        try other.performAndWait {
            let owl = try fetch("Animal", other, "name == 'Owl'")[0]
            let mammalsThere = try fetch("Classification", other, "order == 3")[0]
            owl.setValue(mammalsThere, forKey: "classification")
            try other.save()
            #expect(int(owl, "classificationOrder") == 3)
        }
        let third = container.newBackgroundContext()
        try third.performAndWait {
            let all = try fetch("Classification", third, sortedBy: "order")
            #expect(all.map { int($0, "animalCount") } == [3, 0])
        }

        // A to-one's attribute changes: every animal's copy follows, though no Animal row is written.
        try third.performAndWait {
            let mammalsThere = try fetch("Classification", third, "order == 3")[0]
            mammalsThere.setValue(4, forKey: "order")
            mammalsThere.setValue("Mammals", forKey: "name")
            try third.save()
            #expect(mammalsThere.value(forKey: "searchName") as? String == "mammals")
        }
        // The first context is told (the rows were not in its save): merging brings the new values.
        context.refreshAllObjects()
        #expect(int(gorilla, "classificationOrder") == 4)
        #expect(mammals.value(forKey: "searchName") as? String == "mammals")
        #expect(int(mammals, "animalCount") == 3)

        // A deleted member leaves the count; a many-to-many member too.
        context.delete(gorilla)
        try context.save()
        #expect(int(mammals, "animalCount") == 2)
        #expect(try fetch("Zoo", context)[0].value(forKey: "animals").map { ($0 as? Set<NSManagedObject>)?.count } == 0)

        // After reopening the store.
        let reopened = try store.container(try AttributeBehaviourFixtures.model())
        let again = reopened.newBackgroundContext()
        try again.performAndWait {
            let all = try fetch("Classification", again, sortedBy: "order")
            #expect(all.map { int($0, "animalCount") } == [2, 0])
            #expect(all.map { $0.value(forKey: "searchName") as? String } == ["mammals", "aves"])
            #expect(try fetch("Animal", again, "classificationOrder == 4").count == 2)
        }
    }

    /// Another context that merges automatically hears of rows whose derived values changed without
    /// being written by the save.
    @Test func derivedChangesReachMergingContexts() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(try AttributeBehaviourFixtures.model())
        let context = container.viewContext
        let birds = insert("Classification", ["name": "Aves", "order": 1], context)
        try context.save()
        let listener = container.newBackgroundContext()
        listener.automaticallyMergesChangesFromParent = true
        let seen = try listener.performAndWait { try fetch("Classification", listener)[0] }
        #expect(listener.performAndWait { int(seen, "animalCount") } == 0)
        insert("Animal", ["name": "Owl", "classification": birds], context)
        try context.save()
        listener.performAndWait {}  // the merge was queued on the listener
        #expect(listener.performAndWait { int(seen, "animalCount") } == 1)
    }

    @Test func derivedColumnSQL() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try AttributeBehaviourFixtures.model())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let derived = try coordinator.sqlite.derivedColumns
        let byName = Dictionary(uniqueKeysWithValues: derived.map { ("\($0.entityName).\($0.attributeName)", $0) })
        let order = try #require(byName["Animal.classificationOrder"])
        #expect(order.updateSQL == "UPDATE ZANIMAL SET ZCLASSIFICATIONORDER = (SELECT t1.ZORDER FROM ZCLASSIFICATION t1 WHERE t1.Z_PK = ZANIMAL.ZCLASSIFICATION) WHERE Z_PK IN (SELECT Z_PK FROM Z_OCDDERIVED WHERE Z_ATTRIBUTE = \(order.number))")
        #expect(order.triggers.contains("CREATE TEMP TRIGGER IF NOT EXISTS Z_OCDDERIVED_\(order.number)_HOP1_UPDATE AFTER UPDATE OF ZORDER ON main.ZCLASSIFICATION FOR EACH ROW BEGIN INSERT OR IGNORE INTO Z_OCDDERIVED (Z_ATTRIBUTE, Z_PK) SELECT \(order.number), Z_PK FROM ZANIMAL WHERE ZCLASSIFICATION = NEW.Z_PK AND Z_ENT IN (1); END"))
        let search = try #require(byName["Classification.searchName"])
        #expect(search.valueSQL == "ocd_fold(ZCLASSIFICATION.ZNAME, 3)")
        let count = try #require(byName["Classification.animalCount"])
        #expect(count.valueSQL == "(SELECT COUNT(*) FROM ZANIMAL WHERE ZANIMAL.ZCLASSIFICATION = ZCLASSIFICATION.Z_PK)")
        let zoos = try #require(byName["Animal.zooCount"])
        #expect(zoos.valueSQL?.hasPrefix("(SELECT COUNT(*) FROM Z_1ZOOS WHERE Z_1ZOOS.") == true)
        let now = try #require(byName["Classification.modified"])
        #expect(now.valueSQL == nil)
        #expect(now.updateSQL == "UPDATE ZCLASSIFICATION SET ZMODIFIED = ? WHERE Z_PK IN (SELECT Z_PK FROM Z_OCDDERIVED WHERE Z_ATTRIBUTE = \(now.number))")
    }

    /// A derived attribute of a parent entity is computed once, for the parent's rows and its subentities'.
    @Test func inheritedDerivedAttributesAreComputedOnce() throws {
        let model = try NSManagedObjectModel(modelFileContents: Data(ModelFileFixtures.libraryOfPlainObjects.utf8))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let derived = try coordinator.sqlite.derivedColumns
        #expect(derived.map { "\($0.entityName).\($0.attributeName)" } == ["Item.canonicalTitle", "Book.chapterCount"])
        let book = try #require(model.entitiesByName["Book"])
        #expect(derived[0].entityIDs.contains(book.layout.entityID))
    }

    /// Core Data's compiled models keep `zoos.@count` as `count:(zoos)`: the same column.
    @Test func theCompiledCountFormIsTheSameDerivation() throws {
        func zooCount(_ text: String) throws -> String? {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(modelFileContents: Data(text.utf8)))
            try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
            return try coordinator.sqlite.derivedColumns.first { $0.attributeName == "zooCount" }?.valueSQL
        }
        let compiled = AttributeBehaviourFixtures.contents.replacingOccurrences(of: "derivationExpression=\"zoos.@count\"", with: "derivationExpression=\"count:(zoos)\"")
        #expect(compiled != AttributeBehaviourFixtures.contents)
        let sql = try zooCount(compiled), plain = try zooCount(AttributeBehaviourFixtures.contents)
        #expect(sql != nil && sql == plain)
    }

    @Test func unsupportedDerivationFailsToAddTheStore() throws {
        let text = AttributeBehaviourFixtures.contents.replacingOccurrences(of: "derivationExpression=\"zoos.@count\"", with: "derivationExpression=\"zoos.@sum.name\"")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(modelFileContents: Data(text.utf8)))
        #expect {
            try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        } throws: { error in
            (error as NSError).code == NSPersistentStoreInvalidTypeError && "\(error)".contains("Animal.zooCount")
        }
    }

    // MARK: - Transformable attributes

    @Test func transformableValuesRoundTripThroughTheirTransformers() throws {
        TestColourTransformer.register()
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(try AttributeBehaviourFixtures.model())
        let context = container.viewContext
        let owl = insert("Animal", ["name": "Owl", "tags": ["night", "bird"], "colour": TestColour(red: 1, green: 2, blue: 3)], context)
        try context.save()
        #expect(owl.value(forKey: "tags") as? [String] == ["night", "bird"])
        // The row holds the data the transformers made: a keyed archive, and the custom three bytes.
        let raw = try SQLiteTestAccess.values("SELECT ZTAGS, ZCOLOUR FROM ZANIMAL", store.url)
        #expect(raw.first?[1] == .data(Data([1, 2, 3])))
        if case .data(let archive)? = raw.first?[0] {
            #expect(archive.starts(with: Data("bplist".utf8)) || archive.starts(with: Data("<?xml".utf8)))
        } else {
            Issue.record("ZTAGS is not a blob: \(raw)")
        }
        let other = container.newBackgroundContext()
        try other.performAndWait {
            let fetched = try fetch("Animal", other)[0]
            #expect(fetched.value(forKey: "tags") as? [String] == ["night", "bird"])
            #expect(fetched.value(forKey: "colour") as? TestColour == TestColour(red: 1, green: 2, blue: 3))
            fetched.setValue(["day"], forKey: "tags")
            try other.save()
        }
        let reopened = try store.container(try AttributeBehaviourFixtures.model())
        let fetched = try fetch("Animal", reopened.viewContext)[0]
        #expect(fetched.value(forKey: "tags") as? [String] == ["day"])
        #expect(fetched.value(forKey: "colour") as? TestColour == TestColour(red: 1, green: 2, blue: 3))
    }

    /// A value its transformer cannot handle fails the save, naming the attribute; nothing is written
    /// and the context keeps its changes.
    @Test func anUntransformableValueFailsTheSave() throws {
        TestColourTransformer.register()
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(try AttributeBehaviourFixtures.model())
        let context = container.viewContext
        insert("Animal", ["name": "Fine"], context)
        let bad = insert("Animal", ["name": "Bad", "tags": TestColour(red: 0, green: 0, blue: 0)], context)
        #expect {
            try context.save()
        } throws: { error in
            (error as NSError).code == NSManagedObjectValidationError && "\(error)".contains("Animal.tags")
                && "\(error)".contains("NSSecureUnarchiveFromData")
        }
        #expect(bad.isInserted && context.hasChanges)
        #expect(try SQLiteTestAccess.values("SELECT COUNT(*) FROM ZANIMAL", store.url) == [[.int(0)]])
        // The custom transformer refuses a string.
        bad.setValue(nil, forKey: "tags")
        bad.setValue("red", forKey: "colour")
        #expect { try context.save() } throws: { "\($0)".contains("Animal.colour") && "\($0)".contains("OCDTestColourTransformer") }
        bad.setValue(TestColour(red: 9, green: 9, blue: 9), forKey: "colour")
        try context.save()
        #expect(try SQLiteTestAccess.values("SELECT COUNT(*) FROM ZANIMAL", store.url) == [[.int(2)]])
    }

    @Test func secureUnarchiveTransformerOnLinux() throws {
        let transformer = try #require(ValueTransformer(forName: .secureUnarchiveFromDataTransformerName))
        for value in [["a", "b"] as Any, ["k": 1] as Any, Date(timeIntervalSinceReferenceDate: 5) as Any, URL(string: "https://x.org")! as Any,
                      NSNumber(value: 3) as Any, Data([1, 2]) as Any] {
            let data = try #require(transformer.reverseTransformedValue(value) as? Data, "\(value)")
            #expect(transformer.transformedValue(data) != nil, "\(value)")
        }
        // Refused (Linux Foundation would trap): a value that is not secure-codable.
        #expect(transformer.reverseTransformedValue(TestColour(red: 1, green: 1, blue: 1)) == nil)
        #expect(transformer.transformedValue(Data("not an archive".utf8)) == nil)
        #expect(ValueTransformer.valueTransformerNames().contains(.secureUnarchiveFromDataTransformerName))
    }

    // MARK: - External binary storage

    @Test func largeBinaryValuesLiveInFilesBesideTheStore() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(try AttributeBehaviourFixtures.model())
        let context = container.viewContext
        let folder = store.directory.appendingPathComponent(".Test_SUPPORT/_EXTERNAL_DATA")
        func files() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted() }
        let big = Data((0..<(150 * 1024)).map { UInt8($0 % 251) })
        let small = Data([1, 2, 3])
        let owl = insert("Animal", ["name": "Owl", "photo": big], context)
        insert("Animal", ["name": "Wren", "photo": small], context)
        try context.save()
        let first = files()
        #expect(first.count == 1)
        let rows = try SQLiteTestAccess.values("SELECT ZNAME, ZPHOTO FROM ZANIMAL ORDER BY ZNAME", store.url)
        #expect(rows == [[.string("Owl"), .string(first[0])], [.string("Wren"), .data(small)]])
        #expect(try Data(contentsOf: folder.appendingPathComponent(first[0])) == big)

        let other = container.newBackgroundContext()
        try other.performAndWait {
            let fetched = try fetch("Animal", other)
            #expect(fetched.map { $0.value(forKey: "photo") as? Data } == [big, small])
        }
        // Replacing the value writes a new file and removes the old one after the commit.
        var bigger = big
        bigger.append(contentsOf: [7, 7, 7])
        owl.setValue(bigger, forKey: "photo")
        try context.save()
        let second = files()
        #expect(second.count == 1 && second != first)
        let reopened = try store.container(try AttributeBehaviourFixtures.model())
        #expect(try fetch("Animal", reopened.viewContext)[0].value(forKey: "photo") as? Data == bigger)

        // A failed save leaves no file: the bad transformable value fails after the photo was written.
        let failing = insert("Animal", ["name": "Bat", "photo": big, "tags": TestColour(red: 0, green: 0, blue: 0)], context)
        #expect(throws: (any Error).self) { try context.save() }
        #expect(files() == second)
        context.delete(failing)

        // Deleting the row removes its file.
        context.delete(owl)
        try context.save()
        #expect(files().isEmpty)
    }

    /// A file no row names (a crash between its write and the commit) is removed when the store opens.
    @Test func orphanFilesAreRemovedWhenTheStoreOpens() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(try AttributeBehaviourFixtures.model())
        insert("Animal", ["name": "Owl", "photo": Data(count: 200 * 1024)], container.viewContext)
        try container.viewContext.save()
        let folder = store.directory.appendingPathComponent(".Test_SUPPORT/_EXTERNAL_DATA")
        try Data([1]).write(to: folder.appendingPathComponent(UUID().uuidString))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 2)
        _ = try store.container(try AttributeBehaviourFixtures.model())
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
    }

    // MARK: - Fetch indexes

    @Test func fetchIndexesBecomeSQLIndexes() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        _ = try store.container(try AttributeBehaviourFixtures.model())
        let indexes = try SQLiteTestAccess.values("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZANIMAL' AND sql IS NOT NULL ORDER BY name", store.url)
        #expect(indexes.compactMap { if case .string(let s) = $0[0] { return s } else { return nil } } == [
            "CREATE INDEX ZANIMAL_ZCLASSIFICATION_INDEX ON ZANIMAL (ZCLASSIFICATION)",
            "CREATE INDEX ZANIMAL_ZNAME_INDEX ON ZANIMAL (ZNAME)",
            "CREATE INDEX Z_Animal_byClassificationAndName ON ZANIMAL (ZCLASSIFICATION COLLATE BINARY ASC, ZNAME COLLATE BINARY DESC)",
            "CREATE INDEX Z_Animal_byName ON ZANIMAL (ZNAME COLLATE BINARY ASC)",
        ])
    }
}

/// Reads a store file with a plain SQLite connection (what is really in the rows).
enum SQLiteTestAccess {
    static func values(_ sql: String, _ url: URL) throws -> [[Value]] {
        let db = try SQLiteConnection(path: url.path, logger: nil)
        var rows: [[Value]] = []
        try db.query(sql) { row in
            rows.append((0..<row.columnCount).map { row.dynamicValue($0) })
        }
        return rows
    }
}
