import Foundation
import Synchronization

/// The store keys of a batched fetch's objects, in result order: all of them at once, or the first
/// window at once and the rest as a reader delivers them (``ProgressiveKeyStore/progressiveKeys(_:)``). Their
/// number is known from the start. Reading a key the reader has not delivered yet waits for it; if the
/// reader failed, the keys are read again at once (``rereading``), and only if that fails too does the
/// process stop, with the store's errors (a subscript cannot throw; Core Data's batched array raises).
///
/// The keys live in a buffer of `count` slots made up front, each written once before ``delivered``
/// counts it, so a reader thread writes while the context reads the slots already counted.
package final class BatchKeys: @unchecked Sendable {
    let count: Int
    private let slots: UnsafeMutablePointer<Int64>
    /// How many slots hold their key (a prefix).
    private let delivered: Atomic<Int>
    /// Stops the reader when nobody holds the fetch's objects any more.
    private let stop = ReaderStop()
    private let condition = NSCondition()
    /// The reader ended: normally (every key delivered), or with this failure.
    private var ended = false
    private var failure: (any Error)?
    /// Reads every key again, in result order (the reader's query, outside its transaction).
    private let rereading: (() throws -> [Int64])?

    /// Every key, known now.
    init(_ keys: [Int64]) {
        count = keys.count
        slots = .allocate(capacity: max(keys.count, 1))
        slots.initialize(from: keys, count: keys.count)
        delivered = Atomic(keys.count)
        ended = true
        rereading = nil
    }

    /// `count` keys of which `first` are known now; a reader delivers the rest (``deliver(_:)``,
    /// then ``end(failure:)``); `rereading` reads them all again should it fail.
    init(count: Int, first: [Int64], rereading: (() throws -> [Int64])? = nil) {
        self.rereading = rereading
        precondition(first.count <= count, "the first window is part of the results")
        self.count = count
        slots = .allocate(capacity: max(count, 1))
        slots.initialize(from: first, count: first.count)
        delivered = Atomic(first.count)
        ended = first.count == count
    }

    deinit { slots.deallocate() }

    /// The key at `index`, waiting for the reader when it has not delivered it yet.
    @inline(__always) subscript(index: Int) -> Int64 {
        if index < delivered.load(ordering: .acquiring) { return slots[index] }
        return waitForKey(index)
    }

    /// How many keys are known now (for tests and the reader).
    var deliveredCount: Int { delivered.load(ordering: .acquiring) }

    @inline(never) private func waitForKey(_ index: Int) -> Int64 {
        precondition(index >= 0 && index < count, "index \(index) of a batched fetch of \(count) objects")
        condition.lock()
        defer { condition.unlock() }
        while index >= delivered.load(ordering: .acquiring), !ended {
            // Timed: the reader signals every so many keys, not each one.
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.005))
        }
        if index < delivered.load(ordering: .acquiring) { return slots[index] }
        do {
            try readRestAgain()
        } catch {
            fatalError("""
                CoreData could not read the keys of a batched fetch (object at index \(index) of \(count), which has no \
                ID until its key is read): the key reader stopped after \(deliveredCount) (\(failure.map { "\($0)" } ?? "no error")), \
                and reading them again failed: \(error)
                """)
        }
        return slots[index]
    }

    /// The reader ended before the last key: every key is read again, now, and those it had not
    /// delivered are taken, provided the ones it had are still the first (else the store changed since
    /// the fetch counted its objects, and its order cannot be kept). Called holding `condition`.
    private func readRestAgain() throws {
        guard let rereading else { throw CoreDataError(NSCoreDataError, "the keys cannot be read again") }
        let all = try rereading()
        let known = deliveredCount
        guard all.count == count, (0..<known).allSatisfy({ all[$0] == slots[$0] }) else {
            throw CoreDataError(NSCoreDataError, "the store's matches changed since the fetch counted \(count) (\(all.count) now, or in another order)")
        }
        (slots + known).initialize(from: Array(all[known...]), count: count - known)
        delivered.store(count, ordering: .releasing)
    }

    // MARK: - The reader's side

    /// Whether the reader should stop: nobody holds the fetch's objects any more.
    var isAbandoned: Bool { stop.isAbandoned }

    /// Nobody holds the fetch's objects any more (see ``ReaderStop``).
    func abandon() { stop.abandon() }

    /// Runs the reader's `body`, interrupted if the keys are abandoned meanwhile (see ``ReaderStop``).
    func whileReading<T>(interrupt: @escaping @Sendable () -> Void, _ body: () throws -> T) rethrows -> T {
        try stop.whileReading(interrupt: interrupt, body)
    }

    /// Delivers the next key (the reader's only writer; after the first window).
    func deliver(_ key: Int64) {
        let index = delivered.load(ordering: .relaxed)
        guard index < count else { return }
        slots.advanced(by: index).initialize(to: key)
        delivered.store(index + 1, ordering: .releasing)
        if (index + 1) & 1023 == 0 { condition.broadcast() }
    }

    /// The reader ended; `failure` says why when it did not deliver every key.
    func end(failure: (any Error)?) {
        condition.lock()
        ended = true
        if deliveredCount < count {
            self.failure = failure ?? CoreDataError(NSCoreDataError, "the store gave \(deliveredCount) keys of \(count)")
        }
        condition.broadcast()
        condition.unlock()
    }
}
