import Foundation

/// The objects a save writes, prepared by ``NSManagedObjectContext/prepareSave(policy:)``: what `save()`
/// hands the store, or a child context's save hands its parent.
struct SaveDraft {
    /// Inserted objects, in insertion order (the store writes their rows in that order).
    var inserted: [NSManagedObject]
    /// Updated objects (changed since read, not deleted), by primary key.
    var updated: [NSManagedObject]
    /// Deleted objects, by primary key.
    var deleted: [NSManagedObject]
    /// The context's inserted list when `inserted` was taken (see ``InsertedObjects/Mark``).
    var mark: InsertedObjects.Mark
    /// Set when the merge policy resolved uniqueness conflicts by changing objects: the objects as they
    /// were, restored if the save then fails.
    var restorePoint: NSManagedObjectContext.ConstraintRestorePoint?

    /// The three lists, chained (`+` would copy, and retain, every object of an import again).
    var all: [[NSManagedObject]] { [inserted, updated, deleted] }
}

extension NSManagedObjectContext {
    /// The steps every save takes before anything is written, into the store or into a parent:
    /// pending changes announced, `WillSave` posted, `willSave()` rounds, validation, and — for a save
    /// into the store (`policy` given) — uniqueness constraints, whose conflicts go to the policy before
    /// anything is written (its resolution changes objects; ``SaveDraft/restorePoint`` puts them back).
    /// Validation skips rows deleted elsewhere unless the policy writes them back: the store reports that
    /// conflict, naming the object.
    func prepareSave(policy: NSMergePolicy?) throws -> SaveDraft {
        if !deletesToPropagate.isEmpty { propagateDeletes() }  // also when not at the end of each event
        processPendingChanges()
        NotificationCenter.default.post(name: .contextWillSave, object: self)
        var draft = pendingChanges()
        if try callWillSave(draft.all) { draft = pendingChanges() }
        let skipsGoneRows = policy.map { !MergeArithmetic.rewritesDeletedRow($0.mergeType) } ?? false
        try validate(inserted: draft.inserted, updated: draft.updated.filter { !skipsGoneRows || !$0.faultState.isRowGone },
                     deleted: draft.deleted)
        guard let policy else { return draft }
        let conflicts = try constraintConflicts([draft.inserted, draft.updated].joined(), deleted: draft.deleted)
        guard !conflicts.isEmpty else { return draft }
        let point = constraintRestorePoint()
        do {
            try policy.resolve(constraintConflicts: conflicts)
        } catch {
            restore(point)
            throw error
        }
        processPendingChanges()
        draft = pendingChanges()
        draft.restorePoint = point
        return draft
    }

    /// The context's pending changes as a draft.
    private func pendingChanges() -> SaveDraft {
        let byKey: (NSManagedObject, NSManagedObject) -> Bool = { ($0.objectKey.primaryKey ?? 0) < ($1.objectKey.primaryKey ?? 0) }
        return SaveDraft(inserted: inserted.objects,
                         updated: touched.values.filter { ($0.isUpdated || $0.isMarkedForSave) && !$0.isDeleted }.sorted(by: byKey),
                         deleted: deleted.values.sorted(by: byKey),
                         mark: inserted.mark)
    }

    /// Calls `willSave()` on the objects about to be saved. As in Core Data, changes made by those calls
    /// are part of the save, and the objects they changed get `willSave()` again, until a round changes
    /// nothing; after ``willSaveRounds`` rounds the save throws. Returns whether they changed anything
    /// (the pending objects must then be listed again).
    private func callWillSave(_ lists: [[NSManagedObject]]) throws -> Bool {
        for list in lists {
            for object in list { object.willSave() }
        }
        var rounds = 0
        while !unprocessed.isEmpty {
            rounds += 1
            guard rounds <= Self.willSaveRounds else {
                throw CoreDataError(NSCoreDataError, "willSave() changed objects in \(Self.willSaveRounds) rounds in a row; "
                                    + "a willSave() that sets a value should first check that the value differs (Apple: otherwise willSave is called until the program crashes)")
            }
            let changed = unprocessed.inserted.filter(\.insertIsUnannounced) + unprocessed.updated.values.map(\.object) + unprocessed.deleted.values
            if !deletesToPropagate.isEmpty { propagateDeletes() }
            processPendingChanges()
            var seen = Set<ObjectIdentifier>()
            for object in changed where seen.insert(ObjectIdentifier(object)).inserted
                && object.managedObjectContext === self && (object.isInserted || object.isUpdated || object.isDeleted) {
                object.willSave()
            }
        }
        return rounds > 0
    }

    /// How many rounds of `willSave()` calls a save runs at most while they keep changing objects (Core
    /// Data runs them until the program crashes); then the save throws.
    static let willSaveRounds = 100
}
