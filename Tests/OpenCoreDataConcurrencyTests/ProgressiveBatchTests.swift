import Foundation
import Synchronization
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Issue #36, item 1: a batched fetch into a context that holds no objects counts its matches and reads
/// its first batch's keys (`LIMIT`), then the rest in the background in the same read transaction, so
/// the array is the one a full fetch made at the same moment would give, at every index, whatever other
/// contexts save meanwhile.
@Suite struct ProgressiveBatchTests {
    /// A request of every product, fetched `batch` at a time, by name then price descending when `sorted`.
    static func request(sorted: Bool, batch: Int) -> NSFetchRequest<Products> {
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.fetchBatchSize = batch
        if sorted { request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: false)] }
        return request
    }

    @Test func theFirstBatchIsCountedAndLimitedAndTheRestReadAfter() throws {
        let (store, container) = try TemporaryStore.randomProducts(100, seed: 1)
        defer { store.cleanUp() }
        let context = container.newBackgroundContext()
        let sqlite = try container.persistentStoreCoordinator.sqlite
        let sql = try context.performAndWait {
            try sqlite.recordingSQL {
                let products = try context.fetch(Self.request(sorted: true, batch: 20))
                #expect(products.count == 100)
                _ = products[99].objectID  // waits for the last key
            }
        }
        // Products has a subentity (FavoriteProducts): a match of it would make the fetch read every key
        // first (each object's class depends on its row); there is none.
        #expect(sql == [
            "SELECT t0.Z_ENT FROM ZPRODUCTS t0 WHERE (t0.Z_ENT < ? OR t0.Z_ENT > ?) LIMIT 1",
            "SELECT COUNT(*) FROM ZPRODUCTS t0",
            "SELECT t0.Z_PK, t0.Z_ENT FROM ZPRODUCTS t0 ORDER BY t0.ZNAME, t0.ZPRICE DESC, t0.Z_PK LIMIT 20",
            "SELECT t0.Z_PK FROM ZPRODUCTS t0 ORDER BY t0.ZNAME, t0.ZPRICE DESC, t0.Z_PK",
        ])
    }

    #if os(Linux)
    /// The key reader runs at a lower scheduling priority (nice 10) than the thread that fetched, which
    /// keeps its own.
    @Test func theKeyReaderYieldsToTheFetchingThread() throws {
        let (store, container) = try TemporaryStore.randomProducts(100, seed: 2)
        defer { store.cleanUp() }
        let sqlite = try container.persistentStoreCoordinator.sqlite
        defer { sqlite.keyReaderGate = nil }
        let readerNice = Mutex<Int32?>(nil)
        sqlite.keyReaderGate = { readerNice.withLock { $0 = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) } }
        let context = container.newBackgroundContext()
        let ownNice = try context.performAndWait {
            let products = try context.fetch(Self.request(sorted: true, batch: 20))
            _ = products[99].objectID  // waits for the last key
            return getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        }
        #expect(readerNice.withLock { $0 } == min(ownNice + 10, 19))
    }
    #endif

    /// Seeded: random orders, batch sizes and predicates, while another context inserts, deletes and
    /// changes rows; every index holds the object a full fetch made at the same moment holds.
    @Test(arguments: [UInt64(11), 12, 13, 14])
    func everyIndexIsTheFullFetchsWhileOthersSave(seed: UInt64) throws {
        let (store, container) = try TemporaryStore.randomProducts(3000, seed: seed)
        defer { store.cleanUp() }
        var rng = SeededRandom(seed: seed)
        let sqlite = try container.persistentStoreCoordinator.sqlite
        defer { sqlite.keyReaderGate = nil }
        for round in 0..<3 {
            let gate = DispatchSemaphore(value: 0)
            sqlite.keyReaderGate = { gate.wait() }
            let request = Self.request(sorted: rng.chance(0.7), batch: rng.pick([1, 7, 20, 500, 5000]))
            if rng.chance(0.5) { request.predicate = NSPredicate(format: "price < %d", rng.int(5...40)) }
            let reader = container.newBackgroundContext()
            let (expected, batched) = try reader.performAndWait {
                let full = NSFetchRequest<Products>(entityName: "Products")
                full.sortDescriptors = request.sortDescriptors
                full.predicate = request.predicate
                let expected = try reader.fetch(full).map(\.objectID)
                reader.reset()
                return (expected, try reader.fetch(request))
            }
            // Others save, and only then does the key reader start: it must still read the fetch's moment.
            let writer = container.newBackgroundContext()
            for step in 0..<5 {
                try writer.performAndWait {
                    let victims = try writer.fetch(Self.request(sorted: false, batch: 0)).prefix(40)
                    for (i, p) in victims.enumerated() {
                        if i % 3 == 0 { writer.delete(p) } else { p.price += 1; p.name = "w\(step)" }
                    }
                    for _ in 0..<30 {
                        let p = Products(context: writer)
                        p.name = "w\(step)"
                    }
                    try writer.save()
                }
            }
            gate.signal()
            let ids = reader.performAndWait { batched.map(\.objectID) }
            if ids != expected {
                let first = zip(ids, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(ids.count, expected.count)
                Issue.record("seed \(seed), round \(round): \(ids.count) objects against \(expected.count); first difference at \(first) (batch \(request.fetchBatchSize), \(request.predicate?.predicateFormat ?? "all"), sorted \(request.sortDescriptors != nil))")
            }
        }
    }

    @Test func aMatchOfASubentityReadsEveryKeyFirst() throws {
        let (store, container) = try TemporaryStore.randomProducts(300, seed: 4)
        defer { store.cleanUp() }
        let writer = container.newBackgroundContext()
        try writer.performAndWait {
            let favorite = FavoriteProducts(context: writer)
            favorite.name = SeedModel.productNames[0]
            try writer.save()
        }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let other = container.newBackgroundContext()
            let full = try other.performAndWait { try other.fetch(Self.request(sorted: true, batch: 0)).map(\.objectID) }
            let batched = try context.fetch(Self.request(sorted: true, batch: 20))
            #expect(batched.map(\.objectID) == full)
            #expect(batched.filter { $0 is FavoriteProducts }.count == 1)
        }
    }

    @Test func aProgressiveBatchKeepsUniquing() throws {
        let (store, container) = try TemporaryStore.randomProducts(500, seed: 2)
        defer { store.cleanUp() }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let products = try context.fetch(Self.request(sorted: true, batch: 10))
            let deep = products[437]
            // A lookup by ID finds the array's object (the registry waits for the keys it needs).
            #expect(context.registeredObject(for: deep.objectID) === deep)
            #expect(try context.existingObject(with: deep.objectID) === deep)
            // Another fetch of the same rows gives the same objects.
            let again = try context.fetch(Self.request(sorted: true, batch: 0))
            #expect(zip(again, products).allSatisfy { $0 === $1 })
            #expect(deep.name == again[437].name)
        }
    }

    @Test func aBatchNobodyHoldsStopsItsReader() throws {
        let (store, container) = try TemporaryStore.randomProducts(2000, seed: 3)
        defer { store.cleanUp() }
        weak var keys: BatchKeys?
        try container.newBackgroundContext().performAndWait {
            let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
            context.persistentStoreCoordinator = container.persistentStoreCoordinator
            let products = try context.fetch(Self.request(sorted: true, batch: 5))
            if case .inBatch(let batch, _) = products[0].faultState { keys = batch.keys }
            #expect(keys != nil)
        }
        // The reader holds the keys until it notices; it stops within a key.
        for _ in 0..<400 where keys != nil { Thread.sleep(forTimeInterval: 0.005) }
        #expect(keys == nil)
        // The store is writable and its file whole.
        let writer = container.newBackgroundContext()
        try writer.performAndWait {
            Products(context: writer).name = "after"
            try writer.save()
        }
    }
}
