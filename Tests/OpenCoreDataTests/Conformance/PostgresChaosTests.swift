import Foundation
import OpenCoreDataPostgres
import OpenCoreDataTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The PostgreSQL store when the server goes away (issue 49 items 3 and 6): on a server of the test's own
/// (the shared one cannot be restarted), the pool connects again after a restart and a save after it
/// succeeds; and one chaos trial of each kind, reduced (Benchmarks `postgres-live --chaos` runs 20): a
/// writer process killed with SIGKILL mid-save, the server crashed (`immediate`) under load — no
/// acknowledged save lost, none stored twice, the writers save again, the controller converges.
@Suite("PostgreSQL under failure", .serialized,
       .disabled(if: PostgresTestServer.unavailable != nil, Comment(rawValue: "no PostgreSQL server: \(PostgresTestServer.unavailable ?? "")")))
struct PostgresChaosTests {
    @Test("After a restart (fast, then immediate) the next save and fetch succeed, and a watching coordinator hears of it")
    func poolConnectsAgainAfterRestart() throws {
        let server = try ScriptedPostgresServer(durable: true)  // else an immediate restart may lose the last commits
        defer { server.stop() }
        let url = server.storeURL(schema: "restart")
        let writing = try TickModel.container(url, watching: false), watching = try TickModel.container(url, watching: true)
        let follower = try HistoryFollower(watching.persistentStoreCoordinator, refetches: true)
        defer { follower.stop() }
        let context = writing.newBackgroundContext()
        func save(_ tag: Int64) throws { try context.performAndWait { TickModel.insert(tag: tag, into: context); try context.save() } }
        try save(1)
        #expect(follower.converges(within: 5))
        try server.restart(immediate: false)
        try save(2)
        try server.restart(immediate: true)
        try save(3)
        #expect(try TickModel.storedTags(writing.persistentStoreCoordinator) == [1, 2, 3])
        #expect(follower.converges(within: 10), "the watching coordinator's listener connected again and caught up")
        #expect(follower.shownTags() == [1, 2, 3])
    }

    @Test("A writer killed mid-save, then the server crashed under load: nothing acknowledged lost, nothing twice",
          arguments: [ChaosTrial.Kind.killWriter, .restartImmediate])
    func chaosTrial(_ kind: ChaosTrial.Kind) throws {
        let writer = try #require(CrashConsistencyTests.writerURL, "ocd-crash-writer is built with the tests")
        let server = try ScriptedPostgresServer(durable: true)
        defer { server.stop() }
        let folder = NSTemporaryDirectory() + "ocd-chaos-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var keepFolder = true  // a failed trial keeps its writers' outputs for whoever reads the log
        defer { if !keepFolder { try? FileManager.default.removeItem(atPath: folder) } }
        let seed = UInt64.random(in: 1...UInt64(UInt32.max))
        print("PostgreSQL chaos trial (\(kind.rawValue)), seed \(seed), writers' outputs in \(folder)")
        var rng = SeededRandom(seed: seed)
        let result = try ChaosTrial(kind: kind, url: server.storeURL(schema: "chaos"), folder: folder, number: 1) { url, id, output in
            try ChildProcess(writer.path, ["--acked-writer", url.absoluteString, "\(id)"], outputFile: output)
        }.run(server, &rng)
        keepFolder = !result.problems.isEmpty
        #expect(result.problems.isEmpty, "seed \(seed); the writers' outputs are kept in \(folder):\n\(result.problems.joined(separator: "\n"))")
        #expect(result.acknowledged > 0)
        #expect(result.converged != nil)
        print("PostgreSQL chaos trial (\(kind.rawValue)): \(result.acknowledged) acknowledged, \(result.failures) saves threw (\(result.committedAnyway) committed anyway), \(result.stored) stored")
    }
}
