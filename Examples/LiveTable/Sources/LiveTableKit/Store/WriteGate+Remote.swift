import Foundation
import OpenCoreData

extension WriteGate {
    /// Follows the commits of other processes on the same store (a PostgreSQL database): on each
    /// `NSPersistentStoreRemoteChange`, the gate reads the persistent history after the last transaction
    /// it merged (`NSPersistentHistoryChangeRequest.fetchHistory(after:)`) and merges each other
    /// process's transaction into the writer context and every connection, as a commit of its own. The
    /// gate's own transactions, which reached the connections when they were saved, carry its author.
    func followOtherProcesses() {
        writerContext.transactionAuthor = author
        lastToken = store.container.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil)
        remoteObserver = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange,
                                                                object: store.container.persistentStoreCoordinator,
                                                                queue: nil) { [unowned self] _ in
            queue.async { self.mergeOtherProcesses() }
        }
    }

    /// Merges the other processes' transactions since the last one merged (on the gate's queue, on each
    /// remote change and before each commit). A row another process changed or deleted after this
    /// merge is a conflict the save refuses (optimistic locking, the default `NSErrorMergePolicy`): the
    /// message gets a `save` error, and the row shows the other change once it is merged.
    func mergeOtherProcesses() {
        let transactions: [NSPersistentHistoryTransaction]
        do {
            transactions = try writerContext.performAndWait {
                let request = NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)
                return (try writerContext.execute(request) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
            }
        } catch {
            FileHandle.standardError.write(Data("live-table: reading the history failed: \(error)\n".utf8))
            return
        }
        for transaction in transactions {
            lastToken = transaction.token
            guard transaction.author != author else { continue }
            let note = transaction.objectIDNotification()
            writerContext.performAndWait { writerContext.mergeChanges(fromContextDidSave: note) }
            _ = publish(note)
        }
    }
}
