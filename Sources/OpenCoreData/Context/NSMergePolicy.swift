import Foundation

/// Mirrors Core Data's `NSMergePolicyType`.
public enum NSMergePolicyType: UInt, Sendable {
    /// A conflict fails the save (the default).
    case errorMergePolicyType = 0x00
    /// Property by property, the store's changes win over the object's.
    case mergeByPropertyStoreTrumpMergePolicyType = 0x01
    /// Property by property, the object's changes win over the store's.
    case mergeByPropertyObjectTrumpMergePolicyType = 0x02
    /// The object's values replace the store's entirely.
    case overwriteMergePolicyType = 0x03
    /// The object's changes are discarded; it takes the store's values.
    case rollbackMergePolicyType = 0x04
}

/// Mirrors Core Data's `NSMergePolicy`: how a save resolves conflicts. The store finds them (a row changed
/// since the object read it, detected by the row version `Z_OPT`) and hands them, inside the save's
/// transaction, to the context's policy; `resolve(optimisticLockingConflicts:)` settles each by changing
/// the conflicting objects, and the store writes the outcome before committing. Subclass it and override
/// `resolve(optimisticLockingConflicts:)` (calling `super` for the standard arithmetic, then adjusting the
/// objects) to merge your own way.
///
/// After `resolve` returns, each object of an update conflict is written where its values differ from
/// the store's current row. A subclass that does not call `super` therefore overwrites the row with the
/// object's values. A row deleted in the store is written again (`mergeByPropertyObjectTrump`,
/// `overwrite`) or left deleted (`mergeByPropertyStoreTrump`, `rollback`, by `mergeType`); a delete
/// conflict deletes the row, except under `rollback`, which keeps it.
open class NSMergePolicy: NSObject, @unchecked Sendable {
    /// Mirrors `mergeType`.
    public let mergeType: NSMergePolicyType

    /// Mirrors `init(merge:)`.
    public init(merge ty: NSMergePolicyType) {
        self.mergeType = ty
        super.init()
    }

    /// Mirrors `init(mergeType:)`, the newer spelling of ``init(merge:)``.
    public convenience init(mergeType ty: NSMergePolicyType) { self.init(merge: ty) }

    /// Mirrors `NSMergePolicy.error`.
    public static let error = NSMergePolicy(merge: .errorMergePolicyType)
    /// Mirrors `NSMergePolicy.mergeByPropertyStoreTrump`.
    public static let mergeByPropertyStoreTrump = NSMergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
    /// Mirrors `NSMergePolicy.mergeByPropertyObjectTrump`.
    public static let mergeByPropertyObjectTrump = NSMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
    /// Mirrors `NSMergePolicy.overwrite`.
    public static let overwrite = NSMergePolicy(merge: .overwriteMergePolicyType)
    /// Mirrors `NSMergePolicy.rollback`.
    public static let rollback = NSMergePolicy(merge: .rollbackMergePolicyType)

    /// Mirrors `resolve(optimisticLockingConflicts:)`: under `.errorMergePolicyType` throws
    /// `NSManagedObjectMergeError` (133020) with the conflicts under `NSPersistentStoreSaveConflictsErrorKey`;
    /// otherwise gives each conflicting object the values `mergeType` says (see `MergeArithmetic`) and
    /// the store's row version, so that the save writes them.
    open func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        if mergeType == .errorMergePolicyType { throw NSMergePolicy.mergeError(list) }
        for conflict in list where !conflict.isDelete {
            guard let store = conflict.storeValues else { continue }  // row gone: decided by mergeType at save
            let object = conflict.sourceObject
            object.values = MergeArithmetic.merged(mergeType, object: object.values, read: conflict.readValues,
                                                   store: store, slots: object.layout.persistentSlots)
            object.snapshot = store
            object.version = Int64(conflict.newVersionNumber)
        }
    }

    /// Mirrors `resolve(constraintConflicts:)`: called by a save, before anything is written, with the
    /// groups of objects that would break a uniqueness constraint (docs/Store.md, "Uniqueness
    /// constraints"). Under `.errorMergePolicyType` throws `NSManagedObjectConstraintMergeError` (133021)
    /// with the conflicts under `NSPersistentStoreSaveConflictsErrorKey` (`"conflictList"`). Otherwise, in
    /// each conflict the database object (or, for objects that only collide with each other, the one
    /// inserted first) keeps the constrained values, and each other conflicting object — an inserted one —
    /// is merged into it property by property as `mergeType` says (the survivor standing for the store,
    /// the entity's default values for the common ancestor), gives it its relationships, and leaves the
    /// context. Apple does not document which object survives; Core Data is reported to delete the losing
    /// inserted object, which nullifies its relationships — we keep them. A subclass may change the
    /// objects itself before or instead of calling `super`.
    open func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
        guard !list.isEmpty else { return }
        if mergeType == .errorMergePolicyType { throw NSMergePolicy.constraintError(list) }
        var byContext: [ObjectIdentifier: (NSManagedObjectContext, [NSConstraintConflict])] = [:]
        for conflict in list {
            guard let context = conflict.context ?? conflict.conflictingObjects.first?.managedObjectContext else { continue }
            byContext[ObjectIdentifier(context), default: (context, [])].1.append(conflict)
        }
        for (context, conflicts) in byContext.values { try context.mergeConstraintConflicts(conflicts, type: mergeType) }
    }

    /// The error a save throws for uniqueness constraint conflicts, naming entity and constraint.
    static func constraintError(_ conflicts: [NSConstraintConflict]) -> CoreDataError {
        let names = conflicts.map { c in
            "\(c.conflictingObjects.first?.entity.name ?? "?") (\(c.constraint.joined(separator: ", "))): \(c.conflictingObjects.count) object\(c.conflictingObjects.count == 1 ? "" : "s")\(c.databaseObject == nil ? "" : " and a saved row")"
        }
        return CoreDataError(NSManagedObjectConstraintMergeError,
                             "Could not merge changes: \(conflicts.count) uniqueness constraint conflict\(conflicts.count == 1 ? "" : "s") (\(names.joined(separator: "; "))).",
                             userInfo: [NSPersistentStoreSaveConflictsErrorKey: conflicts])
    }

    /// Mirrors `resolve(mergeConflicts:)` (the older name): resolves optimistic-locking conflicts.
    open func resolve(mergeConflicts list: [Any]) throws {
        try resolve(optimisticLockingConflicts: list.compactMap { $0 as? NSMergeConflict })
    }

    /// The error a failed save throws for `conflicts`, naming each object.
    static func mergeError(_ conflicts: [NSMergeConflict]) -> CoreDataError {
        let names = conflicts.map { "\($0.sourceObject.entity.name ?? "?") \($0.sourceObject.objectID.uriRepresentation().lastPathComponent)" }
        return CoreDataError(NSManagedObjectMergeError,
                             "Could not merge changes: \(conflicts.count) object\(conflicts.count == 1 ? "" : "s") changed in the store since they were read (\(names.joined(separator: ", "))).",
                             userInfo: [NSPersistentStoreSaveConflictsErrorKey: conflicts])
    }
}

/// Mirrors `NSErrorMergePolicy`.
public let NSErrorMergePolicy: NSMergePolicy = NSMergePolicy.error
/// Mirrors `NSMergeByPropertyStoreTrumpMergePolicy`.
public let NSMergeByPropertyStoreTrumpMergePolicy: NSMergePolicy = NSMergePolicy.mergeByPropertyStoreTrump
/// Mirrors `NSMergeByPropertyObjectTrumpMergePolicy`.
public let NSMergeByPropertyObjectTrumpMergePolicy: NSMergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
/// Mirrors `NSOverwriteMergePolicy`.
public let NSOverwriteMergePolicy: NSMergePolicy = NSMergePolicy.overwrite
/// Mirrors `NSRollbackMergePolicy`.
public let NSRollbackMergePolicy: NSMergePolicy = NSMergePolicy.rollback

/// Mirrors Core Data's `NSPersistentStoreSaveConflictsErrorKey`: the `[NSMergeConflict]` of a failed save.
public let NSPersistentStoreSaveConflictsErrorKey = "conflictList"

/// Mirrors Core Data's `NSMergeConflict`: one object whose row changed in the store since it was read.
open class NSMergeConflict: NSObject, @unchecked Sendable {
    /// Mirrors `sourceObject`.
    public let sourceObject: NSManagedObject
    /// Mirrors `objectSnapshot`: the object's unsaved values.
    public let objectSnapshot: [String: Any]?
    /// Mirrors `cachedSnapshot`: the values the object read.
    public let cachedSnapshot: [String: Any]?
    /// Mirrors `persistedSnapshot`: the values now in the store (`nil` if the row was deleted).
    public let persistedSnapshot: [String: Any]?
    /// Mirrors `newVersionNumber` (0 if the row was deleted).
    public let newVersionNumber: Int
    /// Mirrors `oldVersionNumber`.
    public let oldVersionNumber: Int

    /// The values the object read (its snapshot), and the store's current row (`nil`: deleted), by slot.
    let readValues: [Value]
    let storeValues: [Value]?
    /// A conflict of an object deleted in this context (the row changed since it was read).
    let isDelete: Bool

    init(source: NSManagedObject, read: [Value], store: [Value]?, newVersion: Int, oldVersion: Int, isDelete: Bool) {
        self.sourceObject = source
        self.objectSnapshot = source.dictionary(source.values)
        self.cachedSnapshot = source.dictionary(read)
        self.persistedSnapshot = source.dictionary(store)
        self.readValues = read
        self.storeValues = store
        self.newVersionNumber = newVersion
        self.oldVersionNumber = oldVersion
        self.isDelete = isDelete
        super.init()
    }

    /// Mirrors `init(source:newVersion:oldVersion:cachedSnapshot:persistedSnapshot:)`: a conflict made by
    /// a merge policy of the app's, resolved by ``NSMergePolicy/resolve(optimisticLockingConflicts:)`` like
    /// one a save found. The snapshots hold values by property name (a to-one relationship's destination
    /// as an object or object ID); a `nil` persisted snapshot is a row that is gone, a `nil` cached one the
    /// values the object last read.
    public convenience init(source srcObject: NSManagedObject, newVersion newvers: Int, oldVersion oldvers: Int,
                            cachedSnapshot cachesnap: [String: Any]?, persistedSnapshot persnap: [String: Any]?) {
        let read = cachesnap.map { srcObject.slotValues(from: $0) } ?? srcObject.snapshot ?? srcObject.values
        self.init(source: srcObject, read: read, store: persnap.map { srcObject.slotValues(from: $0) },
                  newVersion: newvers, oldVersion: oldvers, isDelete: srcObject.isDeleted)
    }

    public override var description: String {
        "NSMergeConflict (\(sourceObject.objectID.uriRepresentation().absoluteString)) old version \(oldVersionNumber), new version \(newVersionNumber)"
    }
}

/// Mirrors Core Data's `NSConstraintConflict`: objects that would break a uniqueness constraint, with
/// each other (`databaseObject == nil`) or with a row already in the store (`databaseObject`, the
/// context's object for that row).
open class NSConstraintConflict: NSObject, @unchecked Sendable {
    /// Mirrors `constraint`: the constrained property names.
    public let constraint: [String]
    /// Mirrors `constraintValues`: the values the conflicting objects share, by property name.
    public let constraintValues: [String: Any]
    /// Mirrors `databaseObject`: the object for the stored row holding the values, if any.
    public let databaseObject: NSManagedObject?
    /// Mirrors `databaseSnapshot`: the stored row's values, by property name (`nil` without a database object).
    public let databaseSnapshot: [String: Any]?
    /// Mirrors `conflictingObjects`: the objects of the save holding the values.
    public let conflictingObjects: [NSManagedObject]
    /// Mirrors `conflictingSnapshots`: each conflicting object's values as last saved (empty for an
    /// inserted object), in `conflictingObjects` order.
    public let conflictingSnapshots: [[AnyHashable: Any]]
    /// The context whose save found the conflict.
    weak var context: NSManagedObjectContext?

    /// Mirrors `init(constraint:database:databaseSnapshot:conflicting:conflictingSnapshots:)`.
    /// `constraintValues` are read from the first conflicting object.
    public init(constraint: [String], database databaseObject: NSManagedObject?, databaseSnapshot: [AnyHashable: Any]?,
                conflicting conflictingObjects: [NSManagedObject], conflictingSnapshots: [Any]) {
        self.constraint = constraint
        var values: [String: Any] = [:]
        if let first = conflictingObjects.first {
            for name in constraint { values[name] = first.value(forKey: name) }
        }
        self.constraintValues = values
        self.databaseObject = databaseObject
        self.databaseSnapshot = databaseSnapshot.map { Dictionary(uniqueKeysWithValues: $0.compactMap { k, v in (k.base as? String).map { ($0, v) } }) }
        self.conflictingObjects = conflictingObjects
        self.conflictingSnapshots = conflictingSnapshots.map { ($0 as? [AnyHashable: Any]) ?? [:] }
        self.context = conflictingObjects.first?.managedObjectContext
        super.init()
    }

    /// Mirrors `init(constraint:databaseObject:databaseSnapshot:conflictingObjects:conflictingSnapshots:)`,
    /// the newer spelling of the initializer above.
    public convenience init(constraint contraint: [String], databaseObject: NSManagedObject?, databaseSnapshot: [AnyHashable: Any]?,
                            conflictingObjects: [NSManagedObject], conflictingSnapshots: [Any]) {
        self.init(constraint: contraint, database: databaseObject, databaseSnapshot: databaseSnapshot,
                  conflicting: conflictingObjects, conflictingSnapshots: conflictingSnapshots)
    }

    /// A conflict a save found.
    init(constraint: UniquenessConstraint, key: [Value], database: NSManagedObject?, conflicting: [NSManagedObject], context: NSManagedObjectContext) {
        self.constraint = constraint.names
        var values: [String: Any] = [:]
        if let first = conflicting.first {
            for (name, value) in zip(constraint.names, key) {
                if let slot = first.layout.slotByName[name] { values[name] = first.objectValue(slot, value) }
            }
        }
        self.constraintValues = values
        self.databaseObject = database
        self.databaseSnapshot = database.flatMap { $0.dictionary($0.snapshot ?? $0.values) }
        let others = conflicting.filter { $0 !== database }
        self.conflictingObjects = others
        self.conflictingSnapshots = others.map { o in (o.isInserted ? [:] : o.dictionary(o.snapshot) ?? [:]).reduce(into: [AnyHashable: Any]()) { $0[$1.key] = $1.value } }
        self.context = context
        super.init()
    }

    public override var description: String {
        "NSConstraintConflict (\(constraint.joined(separator: ", "))) database object: \(databaseObject.map { $0.objectID.uriRepresentation().absoluteString } ?? "none"), \(conflictingObjects.count) conflicting object\(conflictingObjects.count == 1 ? "" : "s")"
    }
}

extension NSManagedObject {
    /// A snapshot dictionary (values by property name) as values by slot: keys it lacks keep the object's
    /// read values; a to-one relationship may be given as an object or an object ID; to-many relationships
    /// keep the object's.
    func slotValues(from snapshot: [String: Any]) -> [Value] {
        var row = self.snapshot ?? values
        for (name, given) in snapshot {
            guard let slot = layout.slotByName[name], slot < row.count else { continue }
            if let r = layout.relationship(slot) {
                guard !r.isToMany else { continue }
                let id = (given as? NSManagedObject)?.objectID ?? (given as? NSManagedObjectID)
                row[slot] = id.map { ObjectRef(key: $0.key, entityID: $0.entity.layout?.entityID ?? 0).value } ?? .null
            } else if layout.attribute(slot)?.attributeType == .transformableAttributeType {
                row[slot] = TransformableValue.slotValue(given)
            } else {
                row[slot] = given is NSNull ? .null : Value(any: given)
            }
        }
        return row
    }
}
