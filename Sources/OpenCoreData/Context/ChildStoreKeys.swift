import Foundation

/// What a context keeps so that its child contexts' objects stay unique across its own saves. A child's
/// save hands its inserted objects to this context under their temporary keys, and the child keeps
/// them under those keys; when this context then saves them to the store they take store keys, which
/// the child learns the next time it reads through this context (``NSManagedObjectContext/adoptParentsStoreKeys(_:)``).
/// Without that, a fetch in the child would make a second object for each such row.
struct ChildStoreKeys {
    /// Temporary keys of objects a child's save inserted here and this context has not saved yet.
    private(set) var inserted: Set<ObjectKey> = []
    /// The IDs those objects took when this context saved them, by their temporary keys. Kept until
    /// this context's `reset()`: any child may hold an object under the temporary key (one that fetched
    /// through this context before the save, or the child that inserted it).
    private(set) var saved: [ObjectKey: NSManagedObjectID] = [:]

    /// Notes an object a child's save inserted here.
    mutating func noteInserted(_ key: ObjectKey) {
        if key.isTemporary { inserted.insert(key) }
    }

    /// Notes the ID an object took when this context saved it (or learned it from its own parent), if a
    /// child inserted it under `key`.
    mutating func noteSaved(_ key: ObjectKey, as id: NSManagedObjectID) {
        guard !inserted.isEmpty, inserted.remove(key) != nil else { return }
        saved[key] = id
    }

    mutating func removeAll() { self = ChildStoreKeys() }
}

extension NSManagedObjectContext {
    /// Gives this child context's objects the store IDs their rows took when the parent saved them (a
    /// child's object keeps the temporary ID it had when the child saved it into the parent), and
    /// renames every reference to them: called before the child reads through its parent, so that a
    /// fetch finds the registered object of each row (uniquing) and a predicate naming those objects
    /// (`self IN %@`) names their rows.
    func adoptParentsStoreKeys(_ parent: NSManagedObjectContext) {
        guard registry.holdsTemporaryKeys else { return }
        let saved = parent.performAndWait { parent.childStoreKeys.saved }
        guard !saved.isEmpty else { return }
        var pairs: [(ObjectKey, ObjectKey)] = []
        for (old, id) in saved {
            guard let object = registry[old], !object.isInserted, registry[id.key] == nil else { continue }
            registry[old] = nil
            object.objectID = id
            registry[id.key] = object
            childStoreKeys.noteSaved(old, as: id)
            pairs.append((old, id.key))
        }
        guard !pairs.isEmpty else { return }
        let renaming = KeyRenaming(pairs)
        for object in registry.values where !object.layout.relationshipSlots.isEmpty && !object.isFault {
            object.values = renaming.apply(object.values, object.layout)
            if let snapshot = object.snapshot { object.snapshot = renaming.apply(snapshot, object.layout) }
        }
    }
}
