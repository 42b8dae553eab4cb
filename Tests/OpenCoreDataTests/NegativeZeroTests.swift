import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// −0.0 in every floating-point attribute type (Double, Float), per store type: the in-memory, binary
/// and XML stores keep its sign, as Core Data's (which are not SQLite) do; a SQLite store's `FLOAT`
/// column, Core Data's declared type, has REAL affinity, and SQLite stores a whole REAL as an integer
/// there, so −0.0 reads back as 0.0, in Core Data as here. Everywhere −0.0 equals 0.0, in SQL and in
/// memory (IEEE 754).
@Suite struct NegativeZeroTests {
    static let floatTypes: [NSAttributeType] = [.doubleAttributeType, .floatAttributeType]

    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [
            NSEntityDescription(name: "V", properties: [NSAttributeDescription(name: "tag", type: .integer64AttributeType, optional: false, defaultValue: 0)]
                                + floatTypes.map { NSAttributeDescription(name: "v\($0.rawValue)", type: $0) }),
        ])
    }

    /// A coordinator with one store of `type` (a file in `store`'s directory unless in memory).
    static func coordinator(_ type: String, _ store: TemporaryStore) throws -> NSPersistentStoreCoordinator {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model())
        let url = type == NSInMemoryStoreType ? nil : store.directory.appendingPathComponent("V.\(type)")
        _ = try coordinator.addPersistentStore(ofType: type, configurationName: nil, at: url, options: nil)
        return coordinator
    }

    static func context(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Saves objects tagged 0 (−0.0), 1 (0.0) and 2 (−1.5) in every float attribute; returns what a
    /// fresh context reads (of a new coordinator, unless the store is in memory), by tag.
    static func roundTrip(_ type: String, _ store: TemporaryStore) throws -> (readBack: [[Double]], reader: NSManagedObjectContext) {
        let writer = try coordinator(type, store)
        let context = Self.context(writer)
        for (tag, value) in [-0.0, 0.0, -1.5].enumerated() {
            let object = NSEntityDescription.insertNewObject(forEntityName: "V", into: context)
            object.setValue(tag, forKey: "tag")
            for t in floatTypes { object.setValue(t == .floatAttributeType ? Float(value) as Any : value, forKey: "v\(t.rawValue)") }
        }
        try context.save()
        let reader = Self.context(type == NSInMemoryStoreType ? writer : try coordinator(type, store))
        let request = NSFetchRequest<NSManagedObject>(entityName: "V")
        request.sortDescriptors = [NSSortDescriptor(key: "tag", ascending: true)]
        let read = try reader.fetch(request).map { object in
            floatTypes.map { (object.value(forKey: "v\($0.rawValue)") as? NSNumber)?.doubleValue ?? .nan }
        }
        return (read, reader)
    }

    @Test(arguments: [NSInMemoryStoreType, NSBinaryStoreType, NSXMLStoreType])
    func storesThatAreNotSQLiteFilesKeepTheSign(_ type: String) throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (read, _) = try Self.roundTrip(type, store)
        try #require(read.count == 3)
        for (i, t) in Self.floatTypes.enumerated() {
            #expect(read[0][i] == 0 && read[0][i].sign == .minus, "\(type) \(t): −0.0 came back as \(read[0][i])")
            #expect(read[1][i] == 0 && read[1][i].sign == .plus, "\(type) \(t): 0.0 came back as \(read[1][i])")
            #expect(read[2][i] == -1.5, "\(type) \(t)")
        }
    }

    @Test func aSQLiteFileKeepsZeroWithoutItsSignAsCoreDataDoes() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (read, _) = try Self.roundTrip(NSSQLiteStoreType, store)
        try #require(read.count == 3)
        for (i, t) in Self.floatTypes.enumerated() {
            #expect(read[0][i] == 0 && read[0][i].sign == .plus, "\(t): \(read[0][i])")
            #expect(read[2][i] == -1.5, "\(t)")
        }
    }

    /// −0.0 == 0.0, in a fetch (SQL) and in memory, whatever the store kept.
    @Test(arguments: [NSInMemoryStoreType, NSSQLiteStoreType, NSBinaryStoreType])
    func negativeZeroEqualsZeroInSQLAndInMemory(_ type: String) throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let (_, reader) = try Self.roundTrip(type, store)
        for t in Self.floatTypes {
            for (format, argument, tags) in [("v%d == %@", 0.0, [0, 1]), ("v%d == %@", -0.0, [0, 1]), ("v%d < %@", 0.0, [2]),
                                             ("v%d >= %@", -0.0, [0, 1]), ("v%d != %@", -0.0, [2])] {
                let predicate = NSPredicate(format: format.replacingOccurrences(of: "%d", with: "\(t.rawValue)"), argument)
                let request = NSFetchRequest<NSManagedObject>(entityName: "V")
                request.predicate = predicate
                request.sortDescriptors = [NSSortDescriptor(key: "tag", ascending: true)]
                let fetched = try reader.fetch(request)
                #expect(fetched.compactMap { $0.value(forKey: "tag") as? Int } == tags, "SQL, \(type): \(predicate)")
                let all = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "V"))
                let matched = all.filter { predicate.evaluate(with: $0) }.compactMap { $0.value(forKey: "tag") as? Int }.sorted()
                #expect(matched == tags, "memory, \(type): \(predicate)")
            }
        }
    }
}
