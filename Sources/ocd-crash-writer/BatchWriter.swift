#if canImport(Glibc)
import Glibc
#endif
import OpenCoreData
import OpenCoreDataTesting

/// The batch-request crash test's writer: forever, for the next batch number b, a batch insert of
/// `LedgerModel.entriesPerBatchRequest` entries of batch b (text "new"), a batch update of batch b's entries (text
/// "updated"), and a batch delete of the batches before b - 1; then prints "saved b". Killed at random moments, the
/// store must show only whole batches, each with one text, the batches present consecutive.
enum BatchWriter {
    static func run(path: String) -> Never {
        let container = openContainer("Ledger", LedgerModel.make(), path: path)
        let context = container.newBackgroundContext()
        let parent = getppid()
        context.performAndWait {
            do {
                let last = NSFetchRequest<NSDictionary>(entityName: "Entry")
                last.resultType = .dictionaryResultType
                last.propertiesToFetch = ["batch"]
                last.sortDescriptors = [NSSortDescriptor(key: "batch", ascending: false)]
                last.fetchLimit = 1
                var batch = (try context.fetch(last).first?["batch"] as? Int64) ?? 0
                FileHandle.standardOutput.write(Data("ready \(batch)\n".utf8))
                while getppid() == parent {
                    batch += 1
                    try step(batch, context)
                    FileHandle.standardOutput.write(Data("saved \(batch)\n".utf8))
                }
            } catch {
                print("writer failed: \(error)")
                exit(1)
            }
        }
        exit(0)
    }

    private static func step(_ batch: Int64, _ context: NSManagedObjectContext) throws {
        let insert = NSBatchInsertRequest(entityName: "Entry", objects: (0..<LedgerModel.entriesPerBatchRequest).map {
            ["batch": batch, "index": $0, "text": "new"]
        })
        _ = try context.execute(insert)
        let update = NSBatchUpdateRequest(entityName: "Entry")
        update.predicate = NSPredicate(format: "batch == %lld", batch)
        update.propertiesToUpdate = ["text": "updated"]
        _ = try context.execute(update)
        let old = NSFetchRequest<any NSFetchRequestResult>(entityName: "Entry")
        old.predicate = NSPredicate(format: "batch <= %lld", batch - 2)
        _ = try context.execute(NSBatchDeleteRequest(fetchRequest: old))
    }
}
