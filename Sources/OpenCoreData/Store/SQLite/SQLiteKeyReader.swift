import Foundation

/// The thread of a SQLite store that reads batched fetches' keys in the background
/// (``SQLiteStore/progressiveKeys(_:)``): one fetch at a time, on a connection of the store's reader
/// pool. The thread starts with the first such fetch, at a lower scheduling priority than the threads
/// that fetch, and ends after a second without work; a fetch that finds it busy reads its keys at once.
final class SQLiteKeyReader: @unchecked Sendable {
    private let condition = NSCondition()
    /// The job waiting for the thread.
    private var job: (() -> Void)?
    /// A job is waiting or running.
    private var isBusy = false
    /// The thread exists.
    private var isRunning = false

    /// For tests: no fetch's keys are being read.
    var isIdle: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !isBusy
    }

    /// Runs `job` on the reader's thread; `false` (and `job` is not run) when it is busy with another.
    func start(_ job: @escaping () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !isBusy else { return false }
        isBusy = true
        self.job = job
        if isRunning {
            condition.signal()
        } else {
            isRunning = true
            Thread.detachNewThread { self.run() }
        }
        return true
    }

    private func run() {
        Self.yieldToForeground()
        condition.lock()
        while true {
            if let job {
                self.job = nil
                condition.unlock()
                job()
                condition.lock()
                isBusy = false
            } else if !condition.wait(until: Date(timeIntervalSinceNow: 1)), job == nil {
                isRunning = false
                condition.unlock()
                return
            }
        }
    }

    /// Lowers the calling thread's scheduling priority (nice 10; on Linux a thread's own), so that the key
    /// reader takes what the cores have spare: the context's thread, making the array and loading the first
    /// batch, comes first when both want a core. Touching an object whose key is still to come waits for the
    /// reader, which then has the core to itself.
    private static func yieldToForeground() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #endif
    }
}

/// How a fetch hears from the key reader that its first part is read: the result, `nil` (the fetch is
/// not one it serves, or no reader was free), or the store's error.
final class ReaderHandoff<T>: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<T, any Error>?

    func finish(_ value: T) { hand(.success(value)) }
    func fail(_ error: any Error) { hand(.failure(error)) }

    private func hand(_ result: Result<T, any Error>) {
        condition.lock()
        self.result = result
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for the reader's answer.
    func wait() throws -> T {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return try result!.get()
    }
}
