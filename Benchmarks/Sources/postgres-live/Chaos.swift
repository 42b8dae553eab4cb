import Foundation
import OpenCoreDataPostgres
import OpenCoreDataTesting
#if canImport(Glibc)
import Glibc
#endif

/// The chaos trials, on a durable server of their own (fsync, synchronous commits): in each, two writer
/// processes (``AcknowledgingWriter``) save continuously while this process follows with a controller
/// (``HistoryFollower``); then, by turns, a writer is killed with SIGKILL (and another started), the
/// server is restarted `fast`, or `immediate` (a crash). After each: every acknowledged tag is stored
/// exactly once, no tag twice, writers that lived through a restart saved again after it, and the
/// controller equals a fresh fetch within 10 s.
enum Chaos {
    static func run(trials: Int, seed: UInt64) throws {
        progress("chaos: \(trials) trials, seed \(seed)")
        var rng = SeededRandom(seed: seed)
        let server = try ScriptedPostgresServer(durable: true)
        defer { server.stop() }
        let folder = NSTemporaryDirectory() + "postgres-chaos-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var failures = 0
        defer { if failures == 0 { try? FileManager.default.removeItem(atPath: folder) } }  // else kept for reading
        print("| trial | what | acknowledged saves | saves that threw | of which committed | stored | controller converged after | result |")
        print("|---|---|---|---|---|---|---|---|")
        for trial in 0..<trials {
            let kind = ChaosTrial.Kind.allCases[trial % ChaosTrial.Kind.allCases.count]
            let result = try ChaosTrial(kind: kind, url: server.storeURL(schema: "chaos_\(trial)"), folder: folder, number: trial) { url, writer, output in
                try ChildProcess(executable, ["--chaos-writer", "--url", url.absoluteString, "--writer", "\(writer)"], outputFile: output)
            }.run(server, &rng)
            print("| \(trial + 1) | \(kind.rawValue) | \(result.acknowledged) | \(result.failures) | \(result.committedAnyway) | \(result.stored) | \(result.converged.map { String(format: "%.0f ms", $0 * 1000) } ?? "never") | \(result.problems.isEmpty ? "ok" : result.problems.joined(separator: "; ")) |")
            if !result.problems.isEmpty { failures += 1 }
        }
        print(failures == 0 ? "chaos: \(trials) trials, no acknowledged save lost, none stored twice, every controller converged" : "chaos: \(failures) of \(trials) trials FAILED; the writers' outputs are kept in \(folder)")
        if failures > 0 { exit(1) }
    }
}

