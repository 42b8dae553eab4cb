import Foundation
import OpenCoreData
import DemoModels

/// One page's connection: its own private-queue context and fetched results controller; the
/// controller's batches, and the snapshot it starts with, come out of ``messages`` in order.
public final class TableSession: @unchecked Sendable {
    public let context: NSManagedObjectContext
    /// The snapshot first, then one batch per merged commit that changed the table.
    public let messages: AsyncStream<ServerMessage>
    private let continuation: AsyncStream<ServerMessage>.Continuation
    private let controller: NSFetchedResultsController<Products>
    private let recorder = BatchRecorder()
    /// The edits the page began (``WriteGate/begin(_:in:done:)``), by row id; touched on the gate's queue.
    var edits: [String: NSManagedObjectContext] = [:]

    /// Fetches the table on a new context; the gate calls this between commits, so the snapshot shows
    /// exactly commit `commit`.
    init(store: LiveStore, commit: Int) throws {
        context = store.container.newBackgroundContext()
        controller = NSFetchedResultsController(fetchRequest: LiveStore.request(), managedObjectContext: context,
                                                sectionNameKeyPath: "category", cacheName: nil)
        (messages, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(Self.backlog))
        let (controller, recorder, continuation) = (self.controller, self.recorder, self.continuation)
        recorder.emit = { Self.send(.batch($0), continuation) }
        recorder.commit = commit
        try context.performAndWait {
            controller.delegate = recorder
            try controller.performFetch()
            continuation.yield(.snapshot(commit: commit, sections: Self.sections(controller)))
        }
    }

    /// Sorts and filters the page's table as `view` says: the controller's fetch request changes and is
    /// fetched again (as Core Data documents for a controller without a cache), and the page gets a new
    /// snapshot of the commit the context shows; later batches follow the new request.
    public func setView(_ view: ClientMessage.View) {
        let (context, controller, recorder, continuation) = (self.context, self.controller, self.recorder, self.continuation)
        context.perform {
            let request = LiveStore.request(view)
            controller.fetchRequest.sortDescriptors = request.sortDescriptors
            controller.fetchRequest.predicate = request.predicate
            do {
                try controller.performFetch()
                Self.send(.snapshot(commit: recorder.commit, sections: Self.sections(controller)), continuation)
            } catch {
                Self.send(.error(ErrorReply(message: "the table could not be fetched: \(error)", problem: "save")), continuation)
            }
        }
    }

    private static func sections(_ controller: NSFetchedResultsController<Products>) -> [SectionData] {
        (controller.sections ?? []).map { info in
            SectionData(name: info.name, rows: (info.objects ?? []).map { LiveStore.row($0 as! NSManagedObject) })
        }
    }

    /// Merges a commit's save into this connection's context, on its queue; the batch it produces is
    /// tagged with the commit.
    func merge(_ save: SavedChanges) {
        let (context, recorder) = (self.context, self.recorder)
        context.perform {
            recorder.commit = save.commit
            recorder.savedAt = save.savedAt
            context.mergeChanges(fromContextDidSave: save.notification)
        }
    }

    /// Sends a message of the server's own (an error reply, an ack) after what is already queued.
    public func send(_ message: ServerMessage) { Self.send(message, continuation) }

    /// Messages a connection may have waiting. A page that falls further behind is disconnected rather
    /// than sent a table with a gap: it reconnects and starts again from a snapshot.
    public static let backlog = 10_000

    private static func send(_ message: ServerMessage, _ continuation: AsyncStream<ServerMessage>.Continuation) {
        if case .dropped = continuation.yield(message) { continuation.finish() }
    }

    /// Ends ``messages`` after the merges already queued on the context.
    func finish() {
        let continuation = self.continuation
        context.perform { continuation.finish() }
    }
}

/// A commit's did-save notification, its number and its time, handed to every connection's queue.
struct SavedChanges: @unchecked Sendable {
    let notification: Notification
    let commit: Int
    let savedAt: Double
}
