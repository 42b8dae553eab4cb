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
    private var waiting: [Pending] = []
    private var owned: [String: Set<String>] = [:]
    private var snapshots: [Int: [SectionData]] = [:]
    private var commitsMade = 0
    // Touched on `queue` only.
    var sessions: [ObjectIdentifier: TableSession] = [:]
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

    /// The last commit and a fresh fetch of the table it left (taken between commits), in `view`'s order.
    public func table(_ view: ClientMessage.View = .init()) async -> (commit: Int, sections: [SectionData]) {
        await withCheckedContinuation { done in
            queue.async { done.resume(returning: (self.commit, self.store.freshTable(view))) }
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

    /// A message waiting for the next commit: from a page's `session` (whose begun edits it may save), or
    /// from a writer (`owner`, which the rows it adds are recorded for).
    struct Pending {
        let message: ClientMessage
        let session: TableSession?
        let owner: String?
        let done: Reply
    }

    /// Applies a page's message; returns its commit's number once the commit has been handed to every
    /// connection, or the error reply (the store unchanged). The rows an `owner`'s adds make are
    /// recorded as its own (``ownedIDs(_:)``).
    public func submit(_ message: ClientMessage, owner: String? = nil) async -> Result<Int, ErrorReply> {
        await withCheckedContinuation { done in submit(message, owner: owner) { done.resume(returning: $0) } }
    }

    /// Applies a message and calls `done` as ``submit(_:owner:)`` returns. An edit of a row the
    /// `session`'s page began editing (``begin(_:in:done:)``) is saved from the edit's own context: if the
    /// row changed since, the save is refused (problem `conflict`) and the page is sent the ``Conflict``.
    public func submit(_ message: ClientMessage, from session: TableSession? = nil, owner: String? = nil, done: @escaping Reply) {
        let first = lock.withLock {
            waiting.append(Pending(message: message, session: session, owner: owner, done: done))
            return waiting.count == 1
        }
        if first { queue.async { self.drain() } }
    }

    /// The rows `owner`'s adds made (deleted ones included).
    public func ownedIDs(_ owner: String) -> Set<String> { lock.withLock { owned[owner] ?? [] } }

    /// Applies everything waiting as one commit (a message that fails is answered and left out). If that
    /// save fails, each message is tried alone, so one bad message costs the others nothing.
    private func drain() {
        // Another process's commits first, so that the messages apply to rows as they are now.
        if store.followsOtherProcesses { mergeOtherProcesses() }
        let all = lock.withLock {
            defer { waiting = [] }
            return waiting
        }
        var batch: [Pending] = []
        for item in all {
            if case .edit(let id, let fields, let ref) = item.message, let session = item.session, let edit = session.edits[id] {
                item.done(commitEdit(edit, id: id, fields: fields, ref: ref, session: session))
            } else {
                batch.append(item)
            }
        }
        if !commitAll(batch) {
            for item in batch { _ = commitAll([item]) }
        }
    }

    /// Applies `items` and saves them as one commit; false (nothing answered, nothing changed) when the
    /// save failed and there was more than one item.
    private func commitAll(_ items: [Pending]) -> Bool {
        var accepted: [Reply] = [], rejected: [(Reply, ErrorReply)] = [], added: [(String, NSManagedObject)] = []
        let failure: ErrorReply? = writerContext.performAndWait {
            for item in items {
                switch apply(item.message) {
                case .failure(let problem): rejected.append((item.done, problem))
                case .success(let inserted):
                    accepted.append(item.done)
                    if let owner = item.owner, let inserted { added.append((owner, inserted)) }
                }
            }
            guard writerContext.hasChanges else { return nil }
            do {
                try writerContext.save()
                let ids = added.map { ($0.0, $0.1.objectID.uriRepresentation().absoluteString) }
                lock.withLock { for (owner, id) in ids { owned[owner, default: []].insert(id) } }
                return nil
            } catch {
                writerContext.rollback()
                return ErrorReply(message: "the save failed: \(error)", problem: "save", ref: items.first?.message.ref)
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
