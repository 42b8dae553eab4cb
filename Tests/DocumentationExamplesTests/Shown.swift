import Foundation

/// What an example's app would display: the lines its callbacks hand over, from any queue.
final class Shown: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []

    func append(_ line: String) { lock.withLock { items.append(line) } }
    var lines: [String] { lock.withLock { items } }

    /// Waits (up to 10 s) until `count` lines have arrived; returns them.
    func waitFor(_ count: Int) async throws -> [String] {
        for _ in 0..<1000 where lines.count < count { try await Task.sleep(for: .milliseconds(10)) }
        return lines
    }
}
