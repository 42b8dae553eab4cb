import Foundation

/// `compare --profile`: runs the same command under `perf record`, with the events enabled only inside
/// the timed parts (``time(_:)`` and ``timed(_:)``), so that the profile shows what the figures measure
/// and not the fixtures that are written before them.
///
/// The parent process starts `perf record -g -D -1 --control fifo:…` on itself (without `--profile`);
/// the child finds the two FIFOs in ``environmentKey`` and sends `enable`/`disable` around each timed
/// part, waiting for perf's `ack` each time. The parent then prints the `perf report` command.
enum Profiling {
    /// The environment variable that hands the child its control and acknowledgement FIFOs.
    static let environmentKey = "COMPARE_PERF_CONTROL"

    /// The control channel of a child run by `--profile`, else `nil`.
    private static let channel: (control: Int32, ack: Int32)? = {
        guard let value = ProcessInfo.processInfo.environment[environmentKey] else { return nil }
        let paths = value.split(separator: ":").map(String.init)
        guard paths.count == 2 else { return nil }
        let control = open(paths[0], O_WRONLY), ack = open(paths[1], O_RDONLY)
        guard control >= 0, ack >= 0 else {
            progress("--profile: cannot open perf's control FIFOs \(value)")
            return nil
        }
        return (control, ack)
    }()

    /// Starts counting events (before a timed part).
    static func enable() { if channel != nil { send("enable") } }

    /// Stops counting events (after a timed part).
    static func disable() { if channel != nil { send("disable") } }

    /// Sends one command and waits for perf's `ack\n` (perf may follow it with a NUL byte: skipped).
    private static func send(_ command: String) {
        guard let channel else { return }
        let bytes = Array((command + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(channel.control, $0.baseAddress, $0.count) }
        var byte: UInt8 = 0
        while read(channel.ack, &byte, 1) == 1, byte != UInt8(ascii: "\n") {}
    }

    /// Runs `arguments` (this program's, without `--profile`) under `perf record` and prints how to read
    /// the profile; returns the exit status. Without `perf` on the `PATH`, prints the manual recipe.
    static func runUnderPerf(arguments: [String]) -> Int32 {
        let program = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
        let output = FileManager.default.currentDirectoryPath + "/compare.perf.data"
        guard let perf = findOnPath("perf") else {
            progress("--profile needs perf (linux-tools); by hand: perf record -g -o \(output) -- \(program) \(arguments.joined(separator: " "))")
            return 2
        }
        let fifos = FileManager.default.temporaryDirectory.appendingPathComponent("compare-perf-\(getpid())")
        try? FileManager.default.createDirectory(at: fifos, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: fifos) }
        let control = fifos.appendingPathComponent("control").path, ack = fifos.appendingPathComponent("ack").path
        guard mkfifo(control, 0o600) == 0, mkfifo(ack, 0o600) == 0 else {
            progress("--profile: cannot make FIFOs in \(fifos.path)")
            return 1
        }
        let perfArguments = ["record", "-g", "-F", "4999", "-D", "-1", "--control", "fifo:\(control),\(ack)", "-o", output, "--", program] + arguments
        progress("profiling the timed parts only: \(perf) \(perfArguments.joined(separator: " "))")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: perf)
        process.arguments = perfArguments
        var environment = ProcessInfo.processInfo.environment
        environment[environmentKey] = "\(control):\(ack)"
        process.environment = environment
        do { try process.run() } catch {
            progress("--profile: cannot run perf: \(error)")
            return 1
        }
        process.waitUntilExit()
        progress("profile written to \(output); read it with:")
        progress("    perf report -i \(output) --no-children --percent-limit 1 --stdio")
        progress("    perf report -i \(output) --children --comm compare --stdio -G   (callers, as a tree)")
        return process.terminationStatus
    }

    private static func findOnPath(_ name: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let path = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}
