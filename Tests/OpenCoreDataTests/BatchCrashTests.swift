@testable import OpenCoreData
import OpenCoreDataTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A child process runs batch inserts, updates and deletes in a loop (`ocd-crash-writer --batch`) and is
/// killed with SIGKILL at random moments; after each kill the store's integrity check is ok, every batch
/// present is whole (all its entries, all with one text: a batch update is all or nothing), the batches
/// present are consecutive, and the batch the writer last acknowledged is among them. A step inserts batch b and then
/// deletes the batches before b - 1, so a kill between the two leaves one batch more: after a round that
/// acknowledged a step at most three are present, and one more for each round since that acknowledged none
/// (a slow machine may kill several writers in a row before their first delete).
@Suite("Batch requests, crash consistency")
struct BatchCrashTests {
    @Test func killedBatchWritersNeverLeaveAPartialRequest() throws {
        let writer = try #require(CrashConsistencyTests.writerURL, "ocd-crash-writer is built with the tests")
        let store = TemporaryStore()
        defer { store.cleanUp() }
        var rng = SeededRandom(seed: 11)
        var acknowledgedMax: Int64 = 0
        var roundsWithoutAcknowledgement = 0
        for round in 0..<25 {
            let (text, _) = try CrashConsistencyTests.runKilled(writer, ["--batch", store.url.path], afterMicroseconds: UInt32(rng.int(1_000...60_000)))
            #expect(!text.contains("failed"), "round \(round): \(text)")
            let acknowledged = text.split(separator: "\n").compactMap { $0.hasPrefix("saved ") ? Int64($0.dropFirst(6)) : nil }.max() ?? 0
            roundsWithoutAcknowledgement = acknowledged > 0 ? 0 : roundsWithoutAcknowledgement + 1
            let mostPresent = 3 + roundsWithoutAcknowledgement
            acknowledgedMax = max(acknowledgedMax, acknowledged)

            let container = try store.container(LedgerModel.make())
            var integrity = ""
            try container.persistentStoreCoordinator.sqlite.read { db in
                try db.query("PRAGMA integrity_check") { integrity = String(describing: $0.dynamicValue(0)) }
            }
            #expect(integrity == "string(\"ok\")", "round \(round)")
            let context = container.newBackgroundContext()
            try context.performAndWait { () throws in
                let entries = NSFetchRequest<NSDictionary>(entityName: "Entry")
                entries.resultType = .dictionaryResultType
                entries.propertiesToFetch = ["batch", "text"]
                var batches: [Int64: (count: Int, texts: Set<String>)] = [:]
                for row in try context.fetch(entries) {
                    let batch = row["batch"] as! Int64
                    batches[batch, default: (0, [])].count += 1
                    batches[batch]!.texts.insert(row["text"] as! String)
                }
                let present = batches.keys.sorted()
                #expect(batches.values.allSatisfy { $0.count == LedgerModel.entriesPerBatchRequest && $0.texts.count == 1 }, "round \(round): \(batches.mapValues { "\($0.count) \($0.texts)" })")
                #expect(present.count <= mostPresent && (present.last.map { present == Array(($0 - Int64(present.count) + 1)...$0) } ?? true), "round \(round): batches \(present)")
                #expect((present.last ?? 0) >= acknowledgedMax, "round \(round): acknowledged \(acknowledgedMax), store has \(present)")
            }
        }
        #expect(acknowledgedMax > 0, "the writer acknowledged some batches")
        print("batch crash consistency: 25 kills, last acknowledged batch \(acknowledgedMax)")
    }
}
