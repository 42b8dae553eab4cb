import Foundation
@_spi(StoreDiagnostics) import OpenCoreData
import Testing

/// Deleting many rows that keep join rows (a many-to-many relationship), by `NSBatchDeleteRequest` and by a
/// save: the join rows go with them, the other side's objects stay, and the number of statements does not
/// grow with the number of rows beyond the save's one `DELETE` per row (issue 51, item 5: the join rows went
/// row by row before).
@Suite("Conformance: deleting many rows with join rows")
struct ConformanceDeleteScaleTests {
    /// Shelf ←→ Volume, many-to-many (Volume —shelves→ Shelf, inverse `volumes`).
    static func model() -> NSManagedObjectModel {
        let volume = NSEntityDescription(name: "Volume", properties: [
            NSAttributeDescription(name: "number", type: .integer64AttributeType),
            NSRelationshipDescription(name: "shelves", destination: "Shelf", inverse: "volumes", toMany: true),
        ])
        let shelf = NSEntityDescription(name: "Shelf", properties: [
            NSAttributeDescription(name: "name", type: .stringAttributeType),
            NSRelationshipDescription(name: "volumes", destination: "Volume", inverse: "shelves", toMany: true),
        ])
        return NSManagedObjectModel(entities: [volume, shelf])
    }

    /// A fresh store with `count` volumes, each on shelves "a" and "b", and one volume (number -1) on "a" that
    /// no delete takes.
    func seeded(_ store: StoreUnderTest, count: Int) throws -> (StorePlace, NSManagedObjectContext) {
        let place = store.fresh()
        let context = try place.context(Self.model())
        try context.performAndWait { () throws in
            let shelves = ["a", "b"].map { name in
                let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
                shelf.setValue(name, forKey: "name")
                return shelf
            }
            for number in -1..<count {
                let volume = NSEntityDescription.insertNewObject(forEntityName: "Volume", into: context)
                volume.setValue(number, forKey: "number")
                volume.setValue(NSSet(array: number < 0 ? [shelves[0]] : shelves), forKey: "shelves")
            }
            try context.save()
            context.reset()
        }
        return (place, context)
    }

    /// Each shelf's name with its volumes' numbers, read by a new coordinator.
    func shelves(_ place: StorePlace) throws -> [String: [Int]] {
        let context = try place.context(Self.model())
        return try context.performAndWait {
            var result: [String: [Int]] = [:]
            for shelf in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Shelf")) {
                let volumes = (shelf.value(forKey: "volumes") as! NSSet).allObjects as! [NSManagedObject]
                result[shelf.value(forKey: "name") as! String] = volumes.map { $0.value(forKey: "number") as! Int }.sorted()
            }
            return result
        }
    }

    /// Statements a batch delete of every volume numbered 0 or more ran, and the shelves after.
    func batchDelete(_ store: StoreUnderTest, count: Int) throws -> (statements: Int, shelves: [String: [Int]]) {
        let (place, context) = try seeded(store, count: count)
        defer { place.cleanUp() }
        let persistentStore = context.persistentStoreCoordinator!.persistentStores[0]
        let before = persistentStore.queryCount
        try context.performAndWait { () throws in
            let request = NSFetchRequest<any NSFetchRequestResult>(entityName: "Volume")
            request.predicate = NSPredicate(format: "number >= 0")
            let delete = NSBatchDeleteRequest(fetchRequest: request)
            delete.resultType = .resultTypeCount
            #expect((try context.execute(delete) as? NSBatchDeleteResult)?.result as? NSNumber == NSNumber(value: count))
        }
        return (persistentStore.queryCount - before, try shelves(place))
    }

    /// Statements a save deleting every volume numbered 0 or more ran (the fetch before not counted), and
    /// the shelves after.
    func saveDeleting(_ store: StoreUnderTest, count: Int) throws -> (statements: Int, shelves: [String: [Int]]) {
        let (place, context) = try seeded(store, count: count)
        defer { place.cleanUp() }
        let persistentStore = context.persistentStoreCoordinator!.persistentStores[0]
        var before = 0
        try context.performAndWait { () throws in
            let request = NSFetchRequest<NSManagedObject>(entityName: "Volume")
            request.predicate = NSPredicate(format: "number >= 0")
            for volume in try context.fetch(request) { context.delete(volume) }
            before = persistentStore.queryCount
            try context.save()
        }
        return (persistentStore.queryCount - before, try shelves(place))
    }

    @Test(arguments: StoreUnderTest.with(.batchRequests).filter { $0.has(.persistsAcrossCoordinators) })
    func aBatchDeleteRemovesJoinRowsByKeyLists(_ store: StoreUnderTest) throws {
        let small = try batchDelete(store, count: 10)
        let large = try batchDelete(store, count: 1_200)
        #expect(small.shelves == ["a": [-1], "b": []])
        #expect(large.shelves == ["a": [-1], "b": []])
        // Key lists of 500 at most (SQLite without JSON) would add a few statements per kind; row by row,
        // thousands.
        #expect(large.statements - small.statements <= 16, "statements: \(small.statements) for 10 rows, \(large.statements) for 1,200")
    }

    @Test(arguments: StoreUnderTest.with(.persistsAcrossCoordinators))
    func aSaveRemovesJoinRowsByKeyLists(_ store: StoreUnderTest) throws {
        let small = try saveDeleting(store, count: 10)
        let large = try saveDeleting(store, count: 1_200)
        #expect(small.shelves == ["a": [-1], "b": []])
        #expect(large.shelves == ["a": [-1], "b": []])
        // One `DELETE` per row (each checks the row's version); the join rows by key lists, and the shelves'
        // pairs with the deleted volumes too (each shelf's relationship changed).
        #expect(large.statements - small.statements <= 1_190 + 16, "statements: \(small.statements) for 10 rows, \(large.statements) for 1,200")
    }
}
