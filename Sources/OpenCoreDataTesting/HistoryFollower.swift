import Foundation
import OpenCoreData

/// What an app does to follow other processes' saves (docs/PostgreSQL.md, "Changes from other
/// processes"): a fetched results controller of every `Tick` by tag on a private context, which on each
/// `NSPersistentStoreRemoteChange` fetches the history after the last transaction it merged and merges it.
/// Notices that arrive while a catch-up is waiting to run are folded into it; a catch-up that fails (the
/// server restarting) is tried again 100 ms later.
public final class HistoryFollower: NSObject, NSFetchedResultsControllerDelegate, @unchecked Sendable {
    /// The context the controller fetches into.
    public let context: NSManagedObjectContext
    private let controller: NSFetchedResultsController<NSManagedObject>
    private var token: NSPersistentHistoryToken?
    private let scheduled = NSLock()
    private var isScheduled = false
    private var observer: (any NSObjectProtocol)?
    private let inserted: (@Sendable (_ tag: Int64, _ sentAt: Int64, _ shownAt: Int64) -> Void)?
    /// Catch-ups that failed and were tried again.
    public private(set) var failedCatchUps = 0

    /// Whether a catch-up fetches the controller's objects again instead of merging the history.
    private let refetches: Bool

    /// Follows the store of `coordinator` (added with `NSPersistentStoreRemoteChangeNotificationPostOptionKey`
    /// and history tracking); `inserted` is called on the context's queue for each tick the controller
    /// shows for the first time, with the time it showed it. `refetches`: each catch-up still fetches the
    /// history (so that it fails while the server is away) but then runs the controller's fetch again
    /// rather than merging — for a server that may go away mid-catch-up: a merge cannot throw, and a merge
    /// whose rows cannot be read stops the process, as Core Data raises (docs/PostgreSQL.md, "Consistency
    /// under failure").
    public init(_ coordinator: NSPersistentStoreCoordinator, refetches: Bool = false,
                inserted: (@Sendable (_ tag: Int64, _ sentAt: Int64, _ shownAt: Int64) -> Void)? = nil) throws {
        self.refetches = refetches
        context = NSManagedObjectContext(.privateQueue)
        context.persistentStoreCoordinator = coordinator
        let request = NSFetchRequest<NSManagedObject>(entityName: "Tick")
        request.sortDescriptors = [NSSortDescriptor(key: "tag", ascending: true)]
        controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        self.inserted = inserted
        super.init()
        try context.performAndWait {
            token = coordinator.currentPersistentHistoryToken(fromStores: nil)
            controller.delegate = self
            try controller.performFetch()
        }
        observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil) { [weak self] _ in
            self?.schedule()
        }
    }

    /// Stops following (removes the notification observer).
    public func stop() {
        if let observer { NotificationCenter.default.removeObserver(observer) }
        observer = nil
    }

    deinit { stop() }

    /// Runs a catch-up on the context's queue unless one is already waiting there.
    private func schedule() {
        guard scheduled.withLock({ () -> Bool in defer { isScheduled = true }; return !isScheduled }) else { return }
        context.perform { [self] in
            scheduled.withLock { isScheduled = false }
            do {
                try catchUp()
            } catch {
                failedCatchUps += 1
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { [weak self] in self?.schedule() }
            }
        }
    }

    /// Merges every transaction after the last one merged (on the context's queue).
    private func catchUp() throws {
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
        let transactions = (try context.execute(request) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
        if refetches {
            try controller.performFetch()
            token = transactions.last?.token ?? token
            return
        }
        for transaction in transactions {
            context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
            token = transaction.token
        }
    }

    /// `NSFetchedResultsControllerDelegate`: reports each inserted tick with the time it was shown.
    public func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                           at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
        guard type == .insert, let inserted, let tick = anObject as? NSManagedObject else { return }
        let shownAt = realtimeMicroseconds()
        inserted((tick.value(forKey: "tag") as? Int64) ?? 0, (tick.value(forKey: "sentAt") as? Int64) ?? 0, shownAt)
    }

    /// The tags the controller shows, in its order.
    public func shownTags() -> [Int64] {
        context.performAndWait { (controller.fetchedObjects ?? []).map { ($0.value(forKey: "tag") as? Int64) ?? -1 } }
    }

    /// Waits until the controller shows what a fresh fetch finds (fetches that fail, the server being
    /// away, are tried again); false if it does not within `seconds`. Nothing but remote change notices
    /// makes it catch up meanwhile: a notice missed shows as a controller that never converges.
    public func converges(within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if let fresh = try? TickModel.storedTags(context.persistentStoreCoordinator!), fresh == shownTags() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return false
    }
}
