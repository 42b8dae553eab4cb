import Foundation
import OpenCoreData

/// Every save goes through the gate: a serial queue that applies waiting messages on one writer context,
/// saves them as one numbered commit, and, still in the gate, merges that save into every connection's
/// context (in commit order, on each context's queue). With `verify`, it also keeps a fresh fetch of the
/// table after each commit (``snapshot(_:)``), so a test can compare every batch's result exactly.
/// When other processes write the store too, their commits reach the connections through the gate as
/// well (WriteGate+Remote.swift), each numbered as a commit of this gate.
public final class WriteGate: @unchecked Sendable {
    public let store: LiveStore
    /// Whether a fresh fetch is kept after every commit (`--verify`).
    public let verify: Bool
    let queue = DispatchQueue(label: "live-table.write-gate")
    let writerContext: NSManagedObjectContext
    private let lock = NSLock()
    // Guarded by `lock`.
    private var waiting: [(ClientMessage, Reply)] = []
    private var snapshots: [Int: [SectionData]] = [:]
    private var commitsMade = 0
    // Touched on `queue` only.
    private var sessions: [ObjectIdentifier: TableSession] = [:]
    private var lastSave: Notification?
    private var observer: (any NSObjectProtocol)?
    // Following other processes (touched on `queue` only): the last history transaction merged, and
    // the author that marks this gate's own transactions.
    var lastToken: NSPersistentHistoryToken?
    let author = "live-table \(ProcessInfo.processInfo.processIdentifier) \(UUID().uuidString.prefix(8))"
    var remoteObserver: (any NSObjectProtocol)?

    /// A gate for the store's writes, with its own writer context.
    public init(store: LiveStore, verify: Bool = false) {
        self.store = store
        self.verify = verify
        writerContext = store.container.newBackgroundContext()
        observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: writerContext, queue: nil) { [unowned self] note in
            self.lastSave = note
        }
        if verify { snapshots[0] = store.freshTable() }
        if store.followsOtherProcesses { followOtherProcesses() }
    }

    deinit {
        for observer in [observer, remoteObserver].compactMap({ $0 }) { NotificationCenter.default.removeObserver(observer) }
    }

    /// The number of the last commit.
    public var commit: Int { lock.withLock { commitsMade } }

    /// The table a fresh fetch showed right after commit `k` (verify mode; 0 is the table at start).
    public func snapshot(_ k: Int) -> [SectionData]? { lock.withLock { snapshots[k] } }

    /// The last commit and a fresh fetch of the table it left (taken between commits).
    public func table() async -> (commit: Int, sections: [SectionData]) {
        await withCheckedContinuation { done in
            queue.async { done.resume(returning: (self.commit, self.store.freshTable())) }
        }
    }

    /// Opens a connection: its snapshot shows the last commit, and every later commit reaches it.
    public func open() async throws -> TableSession {
        try await withCheckedThrowingContinuation { done in
            queue.async {
                do {
                    let session = try TableSession(store: self.store, commit: self.commit)
                    self.sessions[ObjectIdentifier(session)] = session
                    done.resume(returning: session)
                } catch {
                    done.resume(throwing: error)
                }
            }
        }
    }

    /// Closes a connection: no more merges reach it.
    public func close(_ session: TableSession) {
        queue.async {
            self.sessions[ObjectIdentifier(session)] = nil
            session.finish()
        }
    }

    /// The answer to a message: its commit's number, or the error reply (the store unchanged).
    public typealias Reply = @Sendable (Result<Int, ErrorReply>) -> Void

    /// Applies a page's message; returns its commit's number once the commit has been handed to every
    /// connection, or the error reply (the store unchanged).
    public func submit(_ message: ClientMessage) async -> Result<Int, ErrorReply> {
        await withCheckedContinuation { done in submit(message) { done.resume(returning: $0) } }
    }

    /// Applies a page's message and calls `done` as ``submit(_:)`` returns.
    public func submit(_ message: ClientMessage, done: @escaping Reply) {
        let first = lock.withLock {
            waiting.append((message, done))
            return waiting.count == 1
        }
        if first { queue.async { self.drain() } }
    }

    /// Applies everything waiting as one commit (a message that fails is answered and left out). If that
    /// save fails, each message is tried alone, so one bad message costs the others nothing.
    private func drain() {
        // Another process's commits first, so that the messages apply to rows as they are now.
        if store.followsOtherProcesses { mergeOtherProcesses() }
        let batch = lock.withLock {
            defer { waiting = [] }
            return waiting
        }
        if !commitAll(batch) {
            for item in batch { _ = commitAll([item]) }
        }
    }

    /// Applies `items` and saves them as one commit; false (nothing answered, nothing changed) when the
    /// save failed and there was more than one item.
    private func commitAll(_ items: [(ClientMessage, Reply)]) -> Bool {
        var accepted: [Reply] = [], rejected: [(Reply, ErrorReply)] = []
        let failure: ErrorReply? = writerContext.performAndWait {
            for (message, done) in items {
                if let problem = apply(message) { rejected.append((done, problem)) } else { accepted.append(done) }
            }
            guard writerContext.hasChanges else { return nil }
            do {
                try writerContext.save()
                return nil
            } catch {
                writerContext.rollback()
                return ErrorReply(message: "the save failed: \(error)", problem: "save", ref: items.first?.0.ref)
            }
        }
        if let failure {
            guard items.count == 1 else { return false }
            for done in accepted { done(.failure(failure)) }
        }
        for (done, problem) in rejected { done(.failure(problem)) }
        if failure != nil { return true }
        let k = lastSave.map(publish) ?? commit
        lastSave = nil
        for done in accepted { done(.success(k)) }
        return true
    }

    /// Numbers the commit, keeps its snapshot (verify mode) and merges it into every connection.
    func publish(_ note: Notification) -> Int {
        let k = lock.withLock { commitsMade += 1; return commitsMade }
        let save = SavedChanges(notification: note, commit: k, savedAt: Date().timeIntervalSince1970 * 1000)
        if verify {
            let table = store.freshTable()
            lock.withLock { snapshots[k] = table }
        }
        for session in sessions.values { session.merge(save) }
        return k
    }
}
