import Foundation
import OpenCoreData
#if canImport(Glibc)
import Glibc
#endif

/// One chaos trial on a schema of its own (Benchmarks `postgres-live --chaos`, PostgresChaosTests): two
/// writer processes (``AcknowledgingWriter``) save continuously while this process follows with a
/// controller (``HistoryFollower``); then a writer is killed with SIGKILL (and another started), or the
/// server restarted. Its result lists what went wrong: an acknowledged tag not stored, a tag stored
/// twice, a writer that did not save again after a restart, a writer process that ended by itself (a
/// crash: its output's tail is in the problem), a controller that did not equal a fresh fetch within 10 s.
/// The writers' outputs are files in `folder` (`writer-<number>-<id>.txt`), kept for the caller to keep
/// or delete.
public struct ChaosTrial {
    /// What goes wrong in the trial.
    public enum Kind: String, CaseIterable, Sendable {
        case killWriter = "SIGKILL a writer"
        case restartFast = "restart fast"
        case restartImmediate = "restart immediate"
    }

    let kind: Kind
    let url: URL
    let folder: String
    let number: Int
    /// Starts a writer process: `AcknowledgingWriter.run` on the store `url` as writer `id`, printing to
    /// the file given.
    let startWriter: (_ url: URL, _ id: Int, _ output: String) throws -> ChildProcess

    public init(kind: Kind, url: URL, folder: String, number: Int,
                startWriter: @escaping (_ url: URL, _ id: Int, _ output: String) throws -> ChildProcess) {
        self.kind = kind
        self.url = url
        self.folder = folder
        self.number = number
        self.startWriter = startWriter
    }

    /// What the trial saw: acknowledged saves, saves that threw, those found committed anyway, rows stored.
    public struct Result {
        public var acknowledged = 0, failures = 0, committedAnyway = 0, stored = 0
        /// Seconds until the controller equaled a fresh fetch, nil if it did not within 10 s.
        public var converged: Double?
        public var problems: [String] = []
    }

    /// Runs the trial on `server` (which it restarts for the restart kinds); random pauses from `rng`.
    public func run(_ server: ScriptedPostgresServer, _ rng: inout SeededRandom) throws -> Result {
        let observer = try TickModel.container(url, watching: true)
        let follower = try HistoryFollower(observer.persistentStoreCoordinator, refetches: true)
        defer { follower.stop() }
        var result = Result()
        var writers: [ChildProcess] = []
        func start(_ id: Int) throws {
            writers.append(try startWriter(url, number * 8 + id, "\(folder)/writer-\(number)-\(id).txt"))
        }
        defer { for writer in writers { writer.kill() } }
        try start(1)
        try start(2)
        if !acknowledge(writers, beyond: writers.map { _ in 0 }) { result.problems.append("the writers saved nothing: \(lastWords(writers))") }
        usleep(useconds_t(rng.int(200_000...800_000)))
        if kind == .killWriter {
            writers[0].kill()
            writers[0].wait()
            try start(3)
            if !acknowledge([writers[2]], beyond: [2]) { result.problems.append("the writer started after the kill saved nothing: \(lastWords([writers[2]]))") }
        } else {
            try server.restart(immediate: kind == .restartImmediate)
            let counts = writers.map { AcknowledgingWriter.acknowledged(in: $0.output).tags.count }
            if !acknowledge(writers, beyond: counts) { result.problems.append("a writer did not save again within 20 s of the restart: \(lastWords(writers))") }
        }
        usleep(300_000)
        var acknowledged: Set<Int64> = []
        for writer in writers {
            writer.kill()
            writer.wait()
            if let crash = Self.crash(writer) { result.problems.append(crash) }
            let printed = AcknowledgingWriter.acknowledged(in: writer.output)
            acknowledged.formUnion(printed.tags)
            result.failures += printed.failures
            result.committedAnyway += printed.committedAnyway
        }
        result.acknowledged = acknowledged.count
        let stored = try storedTags(observer.persistentStoreCoordinator)
        result.stored = stored.count
        result.problems += TickModel.problems(stored: stored, acknowledged: acknowledged)
        let began = Date()
        if follower.converges(within: 10) { result.converged = Date().timeIntervalSince(began) } else {
            result.problems.append("the controller shows \(follower.shownTags().count) ticks, a fresh fetch \(stored.count)")
        }
        return result
    }

    /// What each writer printed last, and how many saves it acknowledged (for a failure's message).
    private func lastWords(_ writers: [ChildProcess]) -> String {
        writers.map { writer in
            let output = writer.output
            return "writer \(writer.pid) acknowledged \(AcknowledgingWriter.acknowledged(in: output).tags.count), last printed \(output.split(separator: "\n").suffix(2))"
        }.joined(separator: "; ")
    }

    /// How `writer` ended if not by the trial's SIGKILL (a Swift trap, an exit): the signal or exit code,
    /// its output file and what it printed besides its save lines (the error message and backtrace), with
    /// the last save lines before them. Nil when the trial killed it. After ``ChildProcess/wait()``.
    public static func crash(_ writer: ChildProcess) -> String? {
        guard !writer.wasKilled else { return nil }
        let how = writer.exitCode.map { "exited with code \($0)" } ?? "died of signal \(writer.wait() & 0x7f)"
        let lines = writer.output.split(separator: "\n", omittingEmptySubsequences: false)
        let isSaveLine = { (line: Substring) in ["ack ", "failed ", "committed "].contains { line.hasPrefix($0) } }
        let firstOther = lines.firstIndex { !isSaveLine($0) && !$0.isEmpty } ?? lines.endIndex
        let tail = (lines[..<firstOther].suffix(3) + lines[firstOther...].filter { !isSaveLine($0) }.prefix(80)).joined(separator: "\n")
        return "a writer process crashed (pid \(writer.pid) \(how); output \(writer.outputFile)):\n\(tail.suffix(8000))"
    }

    /// Waits until each writer has acknowledged more saves than `beyond` says (20 s at most).
    private func acknowledge(_ writers: [ChildProcess], beyond: [Int]) -> Bool {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if zip(writers, beyond).allSatisfy({ AcknowledgingWriter.acknowledged(in: $0.output).tags.count > $1 }) { return true }
            usleep(20_000)
        }
        return false
    }

    /// The stored tags, asked again while the server is still coming back.
    private func storedTags(_ coordinator: NSPersistentStoreCoordinator) throws -> [Int64] {
        for _ in 0..<100 {
            if let tags = try? TickModel.storedTags(coordinator) { return tags }
            usleep(100_000)
        }
        return try TickModel.storedTags(coordinator)
    }
}
