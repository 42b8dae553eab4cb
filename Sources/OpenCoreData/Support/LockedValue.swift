import Foundation

/// A value behind an `NSLock` (a pthread mutex, which ThreadSanitizer follows: it reported the futex-based
/// `Mutex` of Synchronization as a race when two models loaded at once).
final class LockedValue<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
