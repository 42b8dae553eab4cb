import Foundation

/// A value behind a lock, for the fuzz tool's two globals (the selected target, the replayed seed).
/// `Synchronization.Mutex` would do, but needs macOS 15 and the package supports macOS 14.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
