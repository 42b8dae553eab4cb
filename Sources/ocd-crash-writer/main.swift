#if canImport(Glibc)
import Glibc
#endif
import OpenCoreData
import OpenCoreDataTesting

// Saves forever into the store at argv[1]: each save inserts `LedgerModel.entriesPerBatch` entries of the
// next batch number and sets the single Counter's `lastBatch` to it. The crash-consistency test kills
// this process with SIGKILL at random moments and checks that every batch is wholly present or absent.
//
// `ocd-crash-writer --open-once STORE_PATH [GO_FILE]` is the store-opening test's helper instead: it waits
// until GO_FILE exists (so that many helpers open at the same moment), opens the store, saves one Entry
// and exits 0; any error is printed and exits 1. `ocd-crash-writer --migrate STORE_PATH MODEL_FOLDER` opens
// the store with the folder's current model version, migrating it (the migration crash test's helper).
// `ocd-crash-writer --batch STORE_PATH` writes with batch requests instead (BatchWriter.swift), and
// `--history-writer STORE_PATH SEED COUNT` is the cross-process history test's writer (HistoryWriter.swift),
// and `--acked-writer STORE_URL WRITER` the chaos test's (AcknowledgingWriter: one Tick a save, `ack <tag>`
// printed after each save returned).
guard CommandLine.arguments.count > 1 else {
    print("usage: ocd-crash-writer STORE_PATH | --open-once STORE_PATH [GO_FILE]")
    exit(2)
}
if CommandLine.arguments[1] == "--open-once" {
    guard CommandLine.arguments.count > 2 else { print("usage: ocd-crash-writer --open-once STORE_PATH [GO_FILE]"); exit(2) }
    openOnce(path: CommandLine.arguments[2], goFile: CommandLine.arguments.count > 3 ? CommandLine.arguments[3] : nil)
}
if CommandLine.arguments[1] == "--history-writer" {
    guard CommandLine.arguments.count > 4, let seed = UInt64(CommandLine.arguments[3]), let count = Int(CommandLine.arguments[4]) else {
        print("usage: ocd-crash-writer --history-writer STORE_PATH SEED COUNT"); exit(2)
    }
    HistoryWriter.run(path: CommandLine.arguments[2], seed: seed, count: count)
}
if CommandLine.arguments[1] == "--acked-writer" {
    guard CommandLine.arguments.count > 3, let writer = Int64(CommandLine.arguments[3]) else { print("usage: ocd-crash-writer --acked-writer STORE_URL WRITER"); exit(2) }
    let container = openContainer("Ticks", TickModel.make(), path: CommandLine.arguments[2], options: [NSPersistentHistoryTrackingKey: NSNumber(value: true)])
    AcknowledgingWriter.run(container, writer: writer, pause: 2_000)
}
if CommandLine.arguments[1] == "--batch" {
    guard CommandLine.arguments.count > 2 else { print("usage: ocd-crash-writer --batch STORE_PATH"); exit(2) }
    BatchWriter.run(path: CommandLine.arguments[2])
}
if CommandLine.arguments[1] == "--migrate" {
    guard CommandLine.arguments.count > 3 else { print("usage: ocd-crash-writer --migrate STORE_PATH MODEL_FOLDER"); exit(2) }
    migrateOnce(path: CommandLine.arguments[2], folder: CommandLine.arguments[3])
}
let container = openContainer("Ledger", LedgerModel.make(), path: CommandLine.arguments[1])
let context = container.newBackgroundContext()
let parent = getppid()
context.performAndWait {
    do {
        var batch = (try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Counter")).first?.value(forKey: "lastBatch") as? Int64) ?? 0
        FileHandle.standardOutput.write(Data("ready \(batch)\n".utf8))  // unbuffered: the test waits for it
        // Never outlive the test that started us (a killed test runner must not leave a writer behind).
        while getppid() == parent {
            let counter = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Counter")).first
                ?? NSEntityDescription.insertNewObject(forEntityName: "Counter", into: context)
            batch += 1
            for i in 0..<LedgerModel.entriesPerBatch {
                let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
                entry.setValue(batch, forKey: "batch")
                entry.setValue(i, forKey: "index")
                entry.setValue(String(repeating: "x", count: 200), forKey: "text")
            }
            counter.setValue(batch, forKey: "lastBatch")
            try context.save()
            // Acknowledge the save (unbuffered): the test checks that every acknowledged batch survives the kill.
            FileHandle.standardOutput.write(Data("saved \(batch)\n".utf8))
            context.reset()  // keep memory flat however long it runs
        }
    } catch {
        print("writer failed: \(error)")
        exit(1)
    }
}
