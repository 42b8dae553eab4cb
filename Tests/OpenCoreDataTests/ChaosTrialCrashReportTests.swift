import Foundation
import OpenCoreDataTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What a chaos trial says about a writer process that ended by itself (issue 49: one crashed in CI and
/// its message was lost): how it ended, where its output is, and the message and backtrace it printed
/// after its last save lines; nothing about a writer the trial killed.
@Suite("Chaos trial crash reports")
struct ChaosTrialCrashReportTests {
    private static func output() -> String { NSTemporaryDirectory() + "ocd-crash-report-\(UUID().uuidString.prefix(8)).txt" }

    @Test("A writer that trapped: its signal, output file, last save lines, and the message after them")
    func trappedWriterIsReported() throws {
        let file = Self.output()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let lines = (1...5).map { "ack \($0)" } + ["failed 6 PostgreSQL error 57P01: terminating connection", "Assertion failed: deinitialized before being closed.", "#0 frame"]
        let script = "printf '\(lines.joined(separator: "\\n"))\\n'; kill -ILL $$"
        let writer = try ChildProcess("/bin/sh", ["-c", script], outputFile: file)
        writer.wait()
        let report = try #require(ChaosTrial.crash(writer))
        #expect(report.contains("pid \(writer.pid) died of signal \(SIGILL)"))
        #expect(report.contains(file))
        #expect(report.hasSuffix(":\nack 4\nack 5\n\(lines[5])\nAssertion failed: deinitialized before being closed.\n#0 frame\n"), "\(report)")
    }

    @Test("A writer that exited: its exit code; a writer the trial killed: nothing")
    func exitedAndKilledWriters() throws {
        let file = Self.output()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let exited = try ChildProcess("/bin/sh", ["-c", "echo 'cannot open: no server'; exit 3"], outputFile: file)
        exited.wait()
        #expect(ChaosTrial.crash(exited)?.contains("exited with code 3") == true)
        #expect(ChaosTrial.crash(exited)?.contains("cannot open: no server") == true)
        let killed = try ChildProcess("/bin/sh", ["-c", "sleep 30"], outputFile: file)
        killed.kill()
        killed.wait()
        #expect(ChaosTrial.crash(killed) == nil)
    }
}
