import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// `NSBinaryStoreType` and `NSXMLStoreType`: a file read whole when added and written whole on save.
@Suite("Binary and XML stores")
struct BinaryStoreTests {
    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [
            NSEntityDescription(name: "V", properties: [
                NSAttributeDescription(name: "tag", type: .integer64AttributeType, optional: false, defaultValue: 0),
                NSAttributeDescription(name: "s", type: .stringAttributeType),
                NSAttributeDescription(name: "i16", type: .integer16AttributeType),
                NSAttributeDescription(name: "d", type: .doubleAttributeType),
                NSAttributeDescription(name: "f", type: .floatAttributeType),
                NSAttributeDescription(name: "b", type: .booleanAttributeType),
                NSAttributeDescription(name: "dec", type: .decimalAttributeType),
                NSAttributeDescription(name: "date", type: .dateAttributeType),
                NSAttributeDescription(name: "data", type: .binaryDataAttributeType),
                NSAttributeDescription(name: "uuid", type: .UUIDAttributeType),
                NSAttributeDescription(name: "uri", type: .URIAttributeType),
            ]),
        ])
    }

    private func context(_ url: URL, _ model: NSManagedObjectModel = model(), type: NSPersistentStore.StoreType = .binary) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: url)
        let context = NSManagedObjectContext(.mainQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test(arguments: [NSPersistentStore.StoreType.binary, .xml])
    func everyAttributeTypeComesBackAsSaved(_ type: NSPersistentStore.StoreType) throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let url = directory.directory.appendingPathComponent("Values.store")
        let values: [String: Any] = [
            "s": "héllo\u{0}world", "i16": 12, "d": -0.5, "f": 1.25, "b": true, "dec": Decimal(string: "19.99")!,
            "date": Date(timeIntervalSinceReferenceDate: 12345.5), "data": Data([0, 1, 2, 255]),
            "uuid": UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, "uri": URL(string: "https://example.com/a?b=c")!,
        ]
        do {
            let context = try context(url, type: type)
            let object = NSEntityDescription.insertNewObject(forEntityName: "V", into: context)
            for (key, value) in values { object.setValue(value, forKey: key) }
            NSEntityDescription.insertNewObject(forEntityName: "V", into: context).setValue(2, forKey: "tag")
            try context.save()
        }
        let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        #expect(text.hasPrefix("<?xml") == (type == .xml), "an XML store is an XML document, a binary one is not")
        let request = NSFetchRequest<NSManagedObject>(entityName: "V")
        request.sortDescriptors = [NSSortDescriptor(key: "tag", ascending: true)]
        let read = try context(url, type: type).fetch(request)
        #expect(read.count == 2)
        let object = read[0]
        #expect(object.value(forKey: "s") as? String == "héllo\u{0}world")
        #expect(object.value(forKey: "i16") as? Int == 12 && object.value(forKey: "d") as? Double == -0.5)
        #expect(object.value(forKey: "f") as? Float == 1.25 && object.value(forKey: "b") as? Bool == true)
        #expect((object.value(forKey: "dec") as? NSDecimalNumber)?.decimalValue == Decimal(string: "19.99"))
        #expect(object.value(forKey: "date") as? Date == Date(timeIntervalSinceReferenceDate: 12345.5))
        #expect(object.value(forKey: "data") as? Data == Data([0, 1, 2, 255]))
        #expect(object.value(forKey: "uuid") as? UUID == values["uuid"] as? UUID)
        #expect(object.value(forKey: "uri") as? URL == values["uri"] as? URL)
        #expect(read[1].value(forKey: "s") == nil, "an unset value stays nil")
    }

    @Test(arguments: [NSPersistentStore.StoreType.binary, .xml])
    func relationshipsWorkOnAPropertyListStore(_ type: NSPersistentStore.StoreType) throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let url = directory.directory.appendingPathComponent("Zoo.store")
        let seeded: Int
        do {
            let context = try context(url, ZooModel.make(), type: type)
            seeded = ZooModel.seed(context).animals.count
            try context.save()
        }
        let context = try context(url, ZooModel.make(), type: type)
        let animals = try context.fetch(ZooModel.tableRequest())
        #expect(animals.count == seeded && animals.contains { !$0.zoos.isEmpty } && animals.allSatisfy { $0.classification != nil })
        let request = ZooModel.tableRequest()
        request.predicate = NSPredicate(format: "SUBQUERY(zoos, $z, $z.location != nil).@count > 0")
        #expect(try context.fetch(request).count == animals.filter { $0.zoos.contains { $0.location != nil } }.count)
    }

    /// Core Data writes an atomic store's file when the store is added at a new URL, before any save: its
    /// metadata is readable at once, and the store reopens empty under the same UUID.
    @Test(arguments: [NSPersistentStore.StoreType.binary, .xml])
    func addingAStoreAtANewURLWritesItsFile(_ type: NSPersistentStore.StoreType) throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let url = directory.directory.appendingPathComponent("New.store")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        let store = try coordinator.addPersistentStore(type: type, at: url)
        #expect(FileManager.default.fileExists(atPath: url.path))
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: type, at: url)
        #expect(metadata[NSStoreUUIDKey] as? String == store.identifier)
        #expect(metadata[NSStoreTypeKey] as? String == type.rawValue)
        let reopened = try context(url, type: type)
        #expect(try reopened.count(for: NSFetchRequest<NSManagedObject>(entityName: "V")) == 0)
        #expect(reopened.persistentStoreCoordinator?.persistentStores.first?.identifier == store.identifier)
    }

    @Test func metadataIsReadAndWrittenWithoutAddingTheStore() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let url = directory.directory.appendingPathComponent("Meta.binary")
        let context = try context(url)
        _ = NSEntityDescription.insertNewObject(forEntityName: "V", into: context)
        try context.save()
        let identifier = try #require(context.persistentStoreCoordinator?.persistentStores.first?.identifier)
        var metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url)
        #expect(metadata[NSStoreTypeKey] as? String == NSBinaryStoreType && metadata[NSStoreUUIDKey] as? String == identifier)
        metadata["AppVersion"] = "7"
        try NSPersistentStoreCoordinator.setMetadata(metadata, type: .binary, at: url)
        let reopened = try self.context(url)
        #expect(reopened.persistentStoreCoordinator?.persistentStores.first?.metadata["AppVersion"] as? String == "7")
        #expect(try reopened.count(for: NSFetchRequest<NSManagedObject>(entityName: "V")) == 1, "the records were kept")
    }

    /// The secure-decoding options are accepted: a transformable value reaches the file as its
    /// transformer's data, so there is nothing for them to restrict, and the value comes back.
    @Test func theSecureDecodingOptionsAreAcceptedAndTransformableValuesRoundTrip() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let url = directory.directory.appendingPathComponent("Secure.binary")
        let list = NSAttributeDescription(name: "list", type: .transformableAttributeType)
        list.valueTransformerName = NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue
        let model = NSManagedObjectModel(entities: [NSEntityDescription(name: "T", properties: [list])])
        let options: [AnyHashable: Any] = [NSBinaryStoreSecureDecodingClasses: Set([NSArray.self, NSString.self].map(ObjectIdentifier.init)),
                                           NSBinaryStoreInsecureDecodingCompatibilityOption: false]
        for round in 0..<2 {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: .binary, at: url, options: options)
            let context = NSManagedObjectContext(.mainQueue)
            context.persistentStoreCoordinator = coordinator
            if round == 0 {
                NSEntityDescription.insertNewObject(forEntityName: "T", into: context).setValue(["a", "b"] as NSArray, forKey: "list")
                try context.save()
            } else {
                let object = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "T")).first)
                #expect(object.value(forKey: "list") as? [String] == ["a", "b"])
            }
        }
        #expect(NSBinaryStoreSecureDecodingClasses == "NSBinaryStoreSecureDecodingClasses")
        #expect(NSBinaryStoreInsecureDecodingCompatibilityOption == "NSBinaryStoreInsecureDecodingCompatibilityOption")
    }

    @Test func aFileOfAnotherKindIsRefusedAndKept() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let url = directory.directory.appendingPathComponent("NotAStore.binary")
        let bytes = Data("just some text".utf8)
        try bytes.write(to: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        #expect(throws: CoreDataError.self) { try coordinator.addPersistentStore(type: .binary, at: url) }
        #expect(try Data(contentsOf: url) == bytes && coordinator.persistentStores.isEmpty)
        // A SQLite store's file is not a binary store either.
        let sqlite = TemporaryStore()
        defer { sqlite.cleanUp() }
        _ = try sqlite.container(Self.model())
        let sqliteBytes = try Data(contentsOf: sqlite.url)
        #expect(throws: CoreDataError.self) { try coordinator.addPersistentStore(type: .binary, at: sqlite.url) }
        #expect(try Data(contentsOf: sqlite.url) == sqliteBytes)
        // Nor is a binary store an XML one, nor the other way round.
        let binary = directory.directory.appendingPathComponent("B.store")
        let context = try context(binary)
        _ = NSEntityDescription.insertNewObject(forEntityName: "V", into: context)
        try context.save()
        let binaryBytes = try Data(contentsOf: binary)
        #expect(throws: CoreDataError.self) { try NSPersistentStoreCoordinator(managedObjectModel: Self.model()).addPersistentStore(type: .xml, at: binary) }
        #expect(try Data(contentsOf: binary) == binaryBytes)
        #expect(NSXMLStoreType == "XML" && NSPersistentStore.StoreType.xml.rawValue == NSXMLStoreType)
        #expect(NSValidateXMLStoreOption == "NSValidateXMLStoreOption")
    }

    /// The file cannot be written (metadata that is not a property list): the save throws, and the file,
    /// the store's records and the context stay as they were.
    @Test func aSaveThatCannotBeWrittenLeavesTheFileAndContext() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let url = directory.directory.appendingPathComponent("Store.binary")
        let context = try context(url)
        NSEntityDescription.insertNewObject(forEntityName: "V", into: context).setValue("one", forKey: "s")
        try context.save()
        let bytes = try Data(contentsOf: url)
        let coordinator = try #require(context.persistentStoreCoordinator)
        let store = try #require(coordinator.persistentStores.first)
        coordinator.setMetadata(store.metadata.merging(["NotAPlistValue": NSObject()]) { $1 }, for: store)
        let object = NSEntityDescription.insertNewObject(forEntityName: "V", into: context)
        #expect(throws: CoreDataError.self) { try context.save() }
        #expect(try Data(contentsOf: url) == bytes && object.isInserted && context.hasChanges)
        let other = NSManagedObjectContext(.privateQueue)
        other.persistentStoreCoordinator = coordinator
        let stored = try other.performAndWait { try other.count(for: NSFetchRequest<NSManagedObject>(entityName: "V")) }
        #expect(stored == 1)
        #expect((store as? NSAtomicStore)?.cacheNodes().count == 1)
    }
}
