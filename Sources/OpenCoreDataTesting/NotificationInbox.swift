import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Notifications as they arrive on any thread, each with its arrival time, for a test to read or wait on.
public final class NotificationInbox: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(time: Int64, note: Notification)] = []
    private let semaphore = DispatchSemaphore(value: 0)

    /// An empty inbox.
    public init() {}

    /// Keeps `note` with the wall-clock time (nanoseconds since 1970) it arrived at.
    public func append(_ note: Notification) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        lock.withLock { items.append((Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec), note)) }
        semaphore.signal()
    }

    /// Whether another notification arrives within `seconds`.
    public func wait(_ seconds: Double) -> Bool { semaphore.wait(timeout: .now() + seconds) == .success }

    /// Every notification so far, oldest first.
    public var notes: [Notification] { lock.withLock { items.map(\.note) } }

    /// Every notification's arrival time and user info so far, oldest first.
    public var all: [(time: Int64, info: [AnyHashable: Any])] { lock.withLock { items.map { ($0.time, $0.note.userInfo ?? [:]) } } }
}
