#if canImport(Glibc)
import Glibc
#endif
import OpenCoreData
import OpenCoreDataTesting

/// The cross-process history test's writer (`ocd-crash-writer --history-writer STORE SEED COUNT`): on
/// seed 000's Products store with persistent history on, `COUNT` seeded random writes — context saves
/// (insert, rename, re-price, delete) and batch requests (insert, update, delete) — one at a time: after
/// each it prints `commit <transaction> <wall-clock ns>` and waits for a line on standard input (the test
/// checks its controllers against the store meanwhile), then prints `done`.
enum HistoryWriter {
    static func run(path: String, seed: UInt64, count: Int) -> Never {
        let container = openContainer("Products", SeedModel.makeCurrent(), path: path, options: [NSPersistentHistoryTrackingKey: NSNumber(value: true)])
        let context = container.newBackgroundContext()
        context.transactionAuthor = "history-writer"
        var rng = SeededRandom(seed: seed)
        var number: Int64 = 0
        for _ in 0..<count {
            var now = timespec()
            do {
                try context.performAndWait {
                    try write(&rng, context)
                    clock_gettime(CLOCK_REALTIME, &now)
                    // The last transaction's number, through the public API.
                    let request = NSPersistentHistoryChangeRequest.fetchHistory(after: Date.distantPast)
                    request.resultType = .transactionsOnly
                    let transactions = (try context.execute(request) as! NSPersistentHistoryResult).result as! [NSPersistentHistoryTransaction]
                    number = transactions.last?.transactionNumber ?? number
                }
            } catch {
                print("writer failed: \(error)")
                exit(1)
            }
            FileHandle.standardOutput.write(Data("commit \(number) \(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec))\n".utf8))
            guard readLine() != nil else { exit(0) }
        }
        print("done")
        exit(0)
    }

    private static func write(_ rng: inout SeededRandom, _ context: NSManagedObjectContext) throws {
        let all = try context.fetch(NSFetchRequest<Products>(entityName: "Products"))
        switch rng.int(0...6) {
        case 0, 1:
            for _ in 0..<rng.int(1...3) {
                let p = Products(context: context)
                p.name = rng.pick(SeedModel.productNames)
                p.price = Int32(rng.int(0...999))
            }
        case 2 where !all.isEmpty: rng.pick(all).name = rng.pick(SeedModel.productNames)
        case 3 where !all.isEmpty: rng.pick(all).price = Int32(rng.int(0...999))
        case 4 where !all.isEmpty: context.delete(rng.pick(all))
        case 5:
            let update = NSBatchUpdateRequest(entityName: "Products")
            update.predicate = NSPredicate(format: "price < %d", rng.int(0...999))
            update.propertiesToUpdate = ["price": NSExpression(format: "price + %d", rng.int(1...200))]
            _ = try context.execute(update)
        case 6:
            let low = rng.int(0...999)
            let doomed = NSFetchRequest<any NSFetchRequestResult>(entityName: "Products")
            doomed.predicate = NSPredicate(format: "price BETWEEN {%d, %d}", low, low + 60)
            _ = try context.execute(NSBatchDeleteRequest(fetchRequest: doomed))
        default:
            let rows = (0..<rng.int(1...5)).map { _ in ["name": rng.pick(SeedModel.productNames), "price": rng.int(0...999)] as [String: Any] }
            _ = try context.execute(NSBatchInsertRequest(entityName: "Products", objects: rows))
        }
        if context.hasChanges { try context.save() }
        context.reset()
    }
}
