import Foundation
import OpenCoreData

// A person's edit, as Core Data apps edit a record in a sheet: a context of its own, opened when the editing
// begins, which holds the row as it was then (its snapshot, with the optimistic-locking version the store
// had). Nothing merges into it. Saving the edit saves that context with `NSErrorMergePolicy`: if another
// page, a writer or another process changed or deleted the row since, the save throws an `NSMergeConflict`
// and writes nothing, and the page is shown the row as it is now. The edit stays open on that new version
// (the object refreshed with its changes kept), so saving again puts the person's values over it, knowingly.
extension WriteGate {
    /// Opens an edit of row `id` for `session`'s page (replacing an earlier one of the same row); `done`
    /// gets the last commit, or the error reply when no product has that id.
    public func begin(_ id: String, in session: TableSession, done: @escaping Reply) {
        queue.async {
            let context = self.store.container.newBackgroundContext()
            context.mergePolicy = NSErrorMergePolicy
            if self.store.followsOtherProcesses { context.transactionAuthor = self.author }
            let found = context.performAndWait { () -> Bool in
                guard let product = self.existing(id, in: context) else { return false }
                _ = product.value(forKey: "name")  // the snapshot (and its version) as of now
                return true
            }
            guard found else { return done(.failure(self.missing(id, nil))) }
            session.edits[id] = context
            done(.success(self.commit))
        }
    }

    /// Closes `session`'s edit of row `id` without saving.
    public func end(_ id: String, in session: TableSession) {
        queue.async { session.edits[id] = nil }
    }

    /// Saves an edit begun with ``begin(_:in:done:)`` (on the gate's queue): the commit, or the error reply;
    /// a conflict is also sent to the page as a ``Conflict``.
    func commitEdit(_ context: NSManagedObjectContext, id: String, fields: ClientMessage.Fields, ref: Int?,
                    session: TableSession) -> Result<Int, ErrorReply> {
        final class Saved: @unchecked Sendable { var note: Notification? }  // set on the context's queue, read after it
        let saved = Saved()
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { saved.note = $0 }
        defer { NotificationCenter.default.removeObserver(observer) }
        let outcome: Result<Void, ErrorReply> = context.performAndWait {
            guard let product = existing(id, in: context) else { return .failure(missing(id, ref)) }
            set(fields, on: product)
            do {
                try context.save()
                return .success(())
            } catch let error as NSError where error.code == NSManagedObjectMergeError {
                let conflict = (error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])?.first
                context.refresh(product, mergeChanges: true)
                session.send(.conflict(Self.conflict(id: id, now: conflict?.persistedSnapshot, ref: ref)))
                return .failure(ErrorReply(message: "the row changed after the edit began", problem: "conflict", ref: ref))
            } catch {
                context.rollback()
                return .failure(ErrorReply(message: "the save failed: \(error)", problem: "save", ref: ref))
            }
        }
        if case .failure(let reply) = outcome {
            if reply.problem != "conflict" { session.edits[id] = nil }
            return .failure(reply)
        }
        session.edits[id] = nil
        guard let saved = saved.note else { return .success(commit) }
        writerContext.performAndWait { writerContext.mergeChanges(fromContextDidSave: saved) }
        return .success(publish(saved))
    }

    /// The conflict reply: the row as the store has it now (`now`, the conflict's persisted snapshot; nil
    /// when the row was deleted).
    static func conflict(id: String, now: [String: Any]?, ref: Int?) -> Conflict {
        guard let now else {
            return Conflict(id: id, current: nil, message: "deleted by another page while you edited it: not saved", ref: ref)
        }
        let row = RowData(id: id, name: now["name"] as? String ?? "", price: (now["price"] as? NSNumber)?.intValue ?? 0,
                          category: now["category"] as? String ?? "")
        return Conflict(id: id, current: row, message: "changed by someone else while you edited it: not saved", ref: ref)
    }

    /// Sends `message` to every page.
    public func broadcast(_ message: ServerMessage) {
        queue.async { for session in self.sessions.values { session.send(message) } }
    }
}
