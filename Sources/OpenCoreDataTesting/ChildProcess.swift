import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, its standard output and error written to a file
/// (Foundation's `Process` may never see a child's exit inside the test runner).
public final class ChildProcess: @unchecked Sendable {
    /// Its process ID.
    public let pid: pid_t
    /// Where its standard output and error go.
    public let outputFile: String
    private var status: Int32?

    /// Starts `executable` with `arguments`; fails with the reason when it cannot.
    public init(_ executable: String, _ arguments: [String], outputFile: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputFile, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard result == 0 else { throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "cannot start \(executable): \(String(cString: strerror(result)))"]) }
        self.pid = pid
        self.outputFile = outputFile
    }

    /// What it has printed so far.
    public var output: String { (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? "" }

    /// Sends `signal` (SIGKILL unless told) unless it has been waited for.
    public func kill(_ signal: Int32 = SIGKILL) { if status == nil { _ = Glibc.kill(pid, signal) } }

    /// Waits for it to end; its wait status.
    @discardableResult
    public func wait() -> Int32 {
        if let status { return status }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
        status = raw
        return raw
    }

    /// Whether it ended by SIGKILL (after ``wait()``).
    public var wasKilled: Bool { (wait() & 0x7f) == SIGKILL }

    /// Its exit code, nil when a signal ended it (after ``wait()``).
    public var exitCode: Int32? { let s = wait(); return s & 0x7f == 0 ? (s >> 8) & 0xff : nil }

    deinit { kill(); wait() }
}
