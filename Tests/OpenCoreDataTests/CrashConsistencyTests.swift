@testable import OpenCoreData
import OpenCoreDataTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A child process saves in a loop and is killed with SIGKILL at random moments; after each kill the
/// store opens, `PRAGMA integrity_check` is ok, every save is wholly present or wholly absent, and every
/// save the writer acknowledged (printed after `save()` returned) is present.
///
/// 50 kills by default; `OCD_LONG=1` (the long mode of docs/LongRuns.md) runs 200, and
/// `OCD_CRASH_KILLS=N` runs N.
@Suite("Crash consistency")
struct CrashConsistencyTests {
    static var writerURL: URL? {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [here, URL(fileURLWithPath: ".build/debug")] {
            let url = candidate.appendingPathComponent("ocd-crash-writer")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    /// Runs the writer with `arguments`, waits until it has printed its first line, kills it with SIGKILL
    /// `afterMicroseconds` later; returns what it printed and whether the kill ended it.
    static func runKilled(_ writer: URL, _ arguments: [String], afterMicroseconds delay: UInt32) throws -> (output: String, killed: Bool) {
        let process = Process()
        process.executableURL = writer
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        var output = pipe.fileHandleForReading.availableData
        usleep(delay)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        output += pipe.fileHandleForReading.readDataToEndOfFile()
        return (String(decoding: output, as: UTF8.self), process.terminationReason == .uncaughtSignal)
    }

    @Test func killedWritersNeverLeaveAPartialSave() throws {
        let writer = try #require(Self.writerURL, "ocd-crash-writer is built with the tests")
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let environment = ProcessInfo.processInfo.environment
        let kills = Int(environment["OCD_CRASH_KILLS"] ?? "") ?? (environment["OCD_LONG"] == "1" ? 200 : 50)
        var rng = SeededRandom(seed: 7)
        var lastBatch: Int64 = 0
        var acknowledgedSaves = 0
        for round in 0..<kills {
            let (output, killed) = try Self.runKilled(writer, [store.url.path], afterMicroseconds: UInt32(rng.int(1_000...40_000)))
            let acknowledged = output.split(separator: "\n").compactMap { $0.hasPrefix("saved ") ? Int64($0.dropFirst(6)) : nil }.max() ?? 0
            acknowledgedSaves += acknowledged > lastBatch ? Int(acknowledged - lastBatch) : 0
            #expect(killed, "round \(round): the writer should have been killed")

            let container = try store.container(LedgerModel.make())
            let backend = try container.persistentStoreCoordinator.sqlite
            var integrity = ""
            try backend.read { db in try db.query("PRAGMA integrity_check") { integrity = String(describing: $0.dynamicValue(0)) } }
            #expect(integrity == "string(\"ok\")", "round \(round)")
            let context = container.newBackgroundContext()
            try context.performAndWait {
                let counter = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Counter")).first
                let batch = (counter?.value(forKey: "lastBatch") as? Int64) ?? 0
                #expect(batch >= lastBatch, "round \(round): committed saves never disappear")
                #expect(batch >= acknowledged, "round \(round): the writer acknowledged batch \(acknowledged), the store has \(batch)")
                lastBatch = batch
                let entries = NSFetchRequest<NSDictionary>(entityName: "Entry")
                entries.resultType = .dictionaryResultType
                entries.propertiesToFetch = ["batch"]
                var sizes: [Int64: Int] = [:]
                for row in try context.fetch(entries) { sizes[row["batch"] as! Int64, default: 0] += 1 }
                #expect(sizes.count == Int(batch), "round \(round): batches 1...\(batch) present")
                #expect(sizes.values.allSatisfy { $0 == LedgerModel.entriesPerBatch }, "round \(round): a batch is whole")
                #expect(sizes.keys.allSatisfy { $0 >= 1 && $0 <= batch })
            }
        }
        #expect(lastBatch > 0, "the writer got some saves in")
        #expect(acknowledgedSaves > 0, "the writer acknowledged some saves")
        print("crash consistency: \(kills) kills, \(lastBatch) batches committed, \(acknowledgedSaves) acknowledged")
    }
}
