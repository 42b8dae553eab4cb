import CSQLiteBench
import Foundation

/// Seconds on the monotonic clock.
func monotonicSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// The seconds `body` takes. Under `--profile`, the only code perf samples.
func time(_ body: () throws -> Void) rethrows -> Double {
    Profiling.enable()
    defer { Profiling.disable() }
    let start = monotonicSeconds()
    try body()
    return monotonicSeconds() - start
}

/// Runs `body` and returns its result with the seconds it took. The caller frees the result, untimed.
/// Under `--profile`, the only code perf samples.
func timed<T>(_ body: () throws -> T) rethrows -> (result: T, seconds: Double) {
    Profiling.enable()
    defer { Profiling.disable() }
    let start = monotonicSeconds()
    let result = try body()
    return (result, monotonicSeconds() - start)
}

/// Runs `sample` once to warm up, then `repetitions` times, and returns the median of what the
/// repetitions return (each sample times only its own measured part).
func measure(repetitions: Int, _ sample: () throws -> Double) rethrows -> Double {
    _ = try sample()
    var samples: [Double] = []
    for _ in 0..<max(repetitions, 1) { samples.append(try sample()) }
    return median(samples)
}

/// Like ``measure(repetitions:_:)`` for variants compared with each other: after one warm-up run of each,
/// every repetition runs each variant once, starting with a different one each time, so that a slow
/// stretch of a shared, noisy machine falls on all of them alike. Returns the medians, in order.
func measureInterleaved(repetitions: Int, _ variants: [() throws -> Double]) throws -> [Double] {
    for variant in variants { _ = try variant() }
    var samples = Array(repeating: [Double](), count: variants.count)
    for rep in 0..<max(repetitions, 1) {
        for k in 0..<variants.count {
            let i = (rep + k) % variants.count
            samples[i].append(try variants[i]())
        }
    }
    return samples.map(median)
}

/// The median of `values` (the mean of the middle two for an even count).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let n = sorted.count
    guard n > 0 else { return .nan }
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
}

/// Keeps the optimizer from dropping work whose result is otherwise unused.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// This process's resident memory in bytes: `/proc/self/statm`'s resident pages times the page size.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Hands the heap's free pages back to the system, so that a later resident-memory difference counts
/// new allocations rather than reuse of pages freed earlier.
func trimHeap() {
    #if canImport(Glibc)
    _ = malloc_trim(0)
    #endif
}

/// How a figure compares with its target.
enum Verdict {
    /// Within the target.
    case pass
    /// Outside the target.
    case miss
    /// Reported only: no target.
    case report
    /// Not measurable yet: the feature does not exist.
    case pending(String)

    /// `pass` when `condition` holds, else `miss`.
    static func check(_ condition: Bool) -> Verdict { condition ? .pass : .miss }

    var text: String {
        switch self {
        case .pass: return "PASS"
        case .miss: return "MISS"
        case .report: return "—"
        case .pending(let why): return "pending (\(why))"
        }
    }
}

/// One line of the results table.
struct ResultRow {
    /// What was measured.
    var figure: String
    /// OpenCoreData's figure.
    var ours = "—"
    /// The SQLite C API's figure.
    var raw = "—"
    /// GRDB's figure.
    var grdb = "—"
    /// The ratio the target names.
    var ratio = "—"
    /// The target.
    var target = "—"
    /// How the ratio compares with the target.
    var verdict = Verdict.report
}

/// Prints `rows` as a Markdown table with aligned columns.
func printTable(_ rows: [ResultRow]) {
    let header = ["figure", "ours", "raw sqlite3 (C API)", "GRDB", "ratio", "target", "result"]
    let cells = rows.map { [$0.figure, $0.ours, $0.raw, $0.grdb, $0.ratio, $0.target, $0.verdict.text] }
    let widths = header.indices.map { c in ([header] + cells).map { $0[c].count }.max() ?? 0 }
    func line(_ fields: [String]) -> String {
        "| " + fields.enumerated().map { c, f in f + String(repeating: " ", count: widths[c] - f.count) }.joined(separator: " | ") + " |"
    }
    print(line(header))
    print("|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|")
    for row in cells { print(line(row)) }
}

/// Number formatting for the table.
enum Format {
    /// A duration: `850 µs`, `12.3 ms`, `1.25 s`.
    static func seconds(_ s: Double) -> String {
        if s < 1e-3 { return "\(significant(s * 1e6)) µs" }
        if s < 1 { return "\(significant(s * 1e3)) ms" }
        return "\(significant(s)) s"
    }

    /// A rate: `850 k/s`, `12.3 M/s`.
    static func rate(_ perSecond: Double, unit: String = "/s") -> String {
        if perSecond >= 1e6 { return "\(significant(perSecond / 1e6)) M\(unit)" }
        if perSecond >= 1e3 { return "\(significant(perSecond / 1e3)) k\(unit)" }
        return "\(significant(perSecond))\(unit)"
    }

    /// A ratio: `1.18×`.
    static func ratio(_ r: Double) -> String { String(format: "%.2f×", r) }

    /// A percentage: `2.4%`.
    static func percent(_ fraction: Double) -> String { String(format: "%.1f%%", fraction * 100) }

    /// A count: `2000`, `100k`, `1M`.
    static func count(_ n: Int) -> String {
        if n >= 1_000_000, n % 100_000 == 0 { return n % 1_000_000 == 0 ? "\(n / 1_000_000)M" : String(format: "%.1fM", Double(n) / 1e6) }
        if n >= 10_000, n % 1000 == 0 { return "\(n / 1000)k" }
        return "\(n)"
    }

    /// A size in bytes: `850 kB`, `12.3 MB`.
    static func bytes(_ n: Int) -> String {
        if n >= 1_000_000 { return "\(significant(Double(n) / 1e6)) MB" }
        return "\(significant(Double(n) / 1e3)) kB"
    }

    /// Three significant digits.
    static func significant(_ x: Double) -> String {
        if x >= 100 { return String(format: "%.0f", x) }
        if x >= 10 { return String(format: "%.1f", x) }
        return String(format: "%.2f", x)
    }
}
