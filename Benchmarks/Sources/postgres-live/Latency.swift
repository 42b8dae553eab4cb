import Foundation
import OpenCoreDataPostgres
import OpenCoreDataTesting
#if canImport(Glibc)
import Glibc
#endif

/// Cross-process change delivery: `processes` children, each saving one `Tick` `rate` times a second on
/// one coordinator and following every save (its own process's too) with a ``HistoryFollower`` on another.
/// Each child prints `commit <tag> <µs>` when a save returned and `seen <tag> <µs>` when its controller
/// first showed another process's tick; the parent pairs them.
enum Latency {
    static func run(processes: Int, rate: Int, seconds: Int) throws {
        let schema = "live_\(UUID().uuidString.prefix(8).lowercased())"
        var own: ScriptedPostgresServer?
        let url: URL
        if let given = ProcessInfo.processInfo.environment["OPENCOREDATA_POSTGRES_URL"], var parts = URLComponents(string: given) {
            parts.queryItems = [URLQueryItem(name: "schema", value: schema)]
            url = parts.url!
        } else {
            own = try ScriptedPostgresServer(durable: false)
            url = own!.storeURL(schema: schema)
        }
        defer { own?.stop() }
        let setup = try TickModel.container(url, watching: false)  // makes the schema before the children open it
        defer { try? setup.persistentStoreCoordinator.destroyPersistentStore(at: url, ofType: NSPostgreSQLStoreType) }
        let folder = NSTemporaryDirectory() + "postgres-live-\(schema)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        progress("\(processes) processes × \(rate) saves/s for \(seconds) s on \(schema)")
        let children = try (0..<processes).map { i in
            try ChildProcess(executable, ["--latency-child", "--url", url.absoluteString, "--index", "\(i + 1)", "--processes", "\(processes)",
                                          "--rate", "\(rate)", "--seconds", "\(seconds)", "--dir", folder], outputFile: "\(folder)/child-\(i + 1).txt")
        }
        var commits: [Int64: Int64] = [:], seen: [(process: Int, tag: Int64, at: Int64)] = [], failed: [String] = []
        for (i, child) in children.enumerated() {
            child.wait()
            for line in child.output.split(separator: "\n") {
                let parts = line.split(separator: " ")
                if parts.count == 3, let tag = Int64(parts[1]), let at = Int64(parts[2]) {
                    if parts[0] == "commit" { commits[tag] = at } else if parts[0] == "seen" { seen.append((i + 1, tag, at)) }
                } else if !line.hasPrefix("converged") {
                    failed.append("process \(i + 1): \(line)")
                } else {
                    progress("process \(i + 1): \(line)")
                }
            }
            if child.exitCode != 0 { failed.append("process \(i + 1) exited with status \(child.wait())") }
        }
        var latencies = seen.compactMap { s in commits[s.tag].map { Double(s.at - $0) / 1000 } }.sorted()
        let expected = commits.count * (processes - 1)
        if latencies.count != expected { failed.append("\(latencies.count) deliveries for \(expected) (commit, other process) pairs") }
        if latencies.isEmpty { latencies = [.nan] }
        func percentile(_ p: Int) -> String { String(format: "%.1f ms", latencies[min(latencies.count - 1, latencies.count * p / 100)]) }
        print("| \(processes) processes × \(rate) saves/s, \(seconds) s | \(commits.count) saves (\(commits.count / max(seconds, 1) / processes)/s a process) | \(latencies.count) deliveries | p50 \(percentile(50)) | p99 \(percentile(99)) | max \(String(format: "%.1f ms", latencies.last!)) |")
        for line in failed.prefix(20) { print("FAILED: \(line)") }
        if !failed.isEmpty { exit(1) }
    }

    /// One process: saves on a thread of its own at `rate` a second for `seconds`, follows all saves;
    /// then waits until every process has written, its controller shows every tick and equals a fresh
    /// fetch, and prints `converged`.
    static func child(_ options: [String: String]) throws {
        guard let url = options["url"].flatMap(URL.init(string:)), let index = options["index"].flatMap(Int64.init),
              let processes = options["processes"].flatMap(Int.init), let rate = options["rate"].flatMap(Double.init),
              let seconds = options["seconds"].flatMap(Double.init), let folder = options["dir"] else { usage() }
        let lines = LockedLines()
        let follower = try HistoryFollower(try TickModel.container(url, watching: true).persistentStoreCoordinator) { tag, _, shownAt in
            if tag >> 32 != index { lines.add("seen \(tag) \(shownAt)") }
        }
        let writing = try TickModel.container(url, watching: false).newBackgroundContext()
        // Every process starts saving at the same moment (a second from now, rounded to a second).
        let start = (realtimeMicroseconds() / 1_000_000 + 2) * 1_000_000
        while realtimeMicroseconds() < start { usleep(1000) }
        let period = 1_000_000 / rate, end = Double(start) + seconds * 1_000_000
        var serial: Int64 = 0
        while Double(realtimeMicroseconds()) < end {
            serial += 1
            let tag = index << 32 | serial
            try writing.performAndWait {
                TickModel.insert(tag: tag, into: writing)
                try writing.save()
                lines.add("commit \(tag) \(realtimeMicroseconds())")
                writing.reset()
            }
            let next = Double(start) + Double(serial) * period
            let wait = next - Double(realtimeMicroseconds())
            if wait > 0 { usleep(useconds_t(wait)) }
        }
        try "\(serial)".write(toFile: "\(folder)/wrote-\(index)", atomically: true, encoding: .utf8)
        var total = 0
        for other in 1...processes {
            while true {
                if let text = try? String(contentsOfFile: "\(folder)/wrote-\(other)", encoding: .utf8), let n = Int(text) { total += n; break }
                usleep(10_000)
            }
        }
        let converged = follower.converges(within: 20)
        let shown = follower.shownTags()
        for line in lines.all { print(line) }
        print(converged && shown.count == total ? "converged: \(shown.count) ticks, equal to a fresh fetch" : "controller of process \(index) shows \(shown.count) ticks of \(total), converged: \(converged)")
        exit(converged && shown.count == total ? 0 : 1)
    }
}

/// Lines gathered from several threads, printed at the end (printing while measuring would disturb it).
final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
