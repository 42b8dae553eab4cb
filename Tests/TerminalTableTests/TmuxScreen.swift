#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// A tmux server of the test's own (its own socket) running one command in a 100 × 30 window: keys sent
/// as a person types them, the screen read back as text.
final class TmuxScreen {
    struct Missing: Error, CustomStringConvertible {
        var description: String { "tmux is missing: the live table tests drive the terminal table in tmux (apt-get install tmux)" }
    }

    static let width = 100, height = 30
    private let tmux: URL
    private let socket = "ocd-live-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))"
    private var socketPath = ""
    private var serverPID: pid_t = 0

    /// Starts `command` (a shell command line) in a new detached session.
    init(command: String) throws {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard let found = path.split(separator: ":").map({ URL(fileURLWithPath: String($0)).appendingPathComponent("tmux") })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else { throw Missing() }
        tmux = found
        _ = try run(["new-session", "-d", "-s", "live", "-x", "\(Self.width)", "-y", "\(Self.height)", command])
        socketPath = try run(["display-message", "-p", "#{socket_path}"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        serverPID = pid_t(try run(["display-message", "-p", "#{pid}"]).output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Runs a tmux command on the server; its standard output. (Spawned and waited for directly:
    /// Foundation's `Process` on Linux waits for descriptors that the tmux server, forked by the first
    /// command, keeps open. Spawned with no signal blocked: a test's thread may block them all, and a tmux
    /// server — and the shell in its pane — that inherit that mask never see SIGCHLD or SIGHUP, so
    /// `kill-server` would wait for its pane forever.)
    @discardableResult
    func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(socket)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, file.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var environment = ProcessInfo.processInfo.environment
        environment["LANG"] = "C.UTF-8"
        environment["LC_ALL"] = "C.UTF-8"
        environment.removeValue(forKey: "TMUX")
        let argv = ([tmux.path, "-u", "-L", socket] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid = pid_t()
        let spawned = posix_spawn(&pid, tmux.path, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exitStatus, String(decoding: (try? Data(contentsOf: file)) ?? Data(), as: UTF8.self))
    }

    /// Presses keys by tmux's names ("a", "NPage", "Up").
    func press(_ keys: String...) throws { try run(["send-keys", "-t", "live"] + keys) }

    /// Types text as it is (a Cyrillic letter included).
    func type(_ text: String) throws { try run(["send-keys", "-t", "live", "-l", text]) }

    /// The screen, `height` lines.
    func capture() throws -> [String] {
        var lines = try run(["capture-pane", "-p", "-t", "live"]).output.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines + Array(repeating: "", count: max(0, Self.height - lines.count))
    }

    /// The screen once it has not changed for half a second (at most `timeout` seconds).
    func settled(timeout: TimeInterval = 15) throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var last = try capture(), since = Date()
        while Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            let now = try capture()
            if now != last { last = now; since = Date() } else if Date().timeIntervalSince(since) >= 0.5 { break }
        }
        return last
    }

    /// Waits (at most `timeout` seconds) until the screen's first line starts with `prefix`.
    func waitFor(_ prefix: String, timeout: TimeInterval = 20) throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try capture().first?.hasPrefix(prefix) == true { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return false
    }

    /// A tmux format about the pane (`#{alternate_on}`, `#{cursor_flag}`), expanded.
    func pane(_ format: String) throws -> String {
        try run(["display-message", "-p", "-t", "live", format]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether the command still runs (the session ends with it).
    var isRunning: Bool { (try? run(["has-session", "-t", "live"]).status) == 0 }

    /// Ends the server and whatever still runs in it, and removes its socket.
    func close() {
        _ = try? run(["kill-server"])
        // The server must be gone (a test run waits for its children): killed if it still runs after a second.
        let deadline = Date().addingTimeInterval(1)
        while serverPID > 0, kill(serverPID, 0) == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if serverPID > 0, kill(serverPID, 0) == 0 { kill(serverPID, SIGKILL) }
        if !socketPath.isEmpty { try? FileManager.default.removeItem(atPath: socketPath) }
    }
}

/// A program built with the tests (beside the test bundle, or in .build/debug).
func builtProgram(_ name: String) -> URL? {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for folder in [here, URL(fileURLWithPath: ".build/debug")] {
        let url = folder.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    return nil
}
