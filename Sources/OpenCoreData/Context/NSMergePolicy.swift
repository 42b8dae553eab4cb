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

/// Mirrors Core Data's `NSMergePolicy`: how a save resolves optimistic-locking conflicts (a row changed in
/// the store since the object read it, detected by the row version `Z_OPT`).
public class NSMergePolicy: NSObject, @unchecked Sendable {
    /// Mirrors `mergeType`.
    public let mergeType: NSMergePolicyType

    /// Mirrors `init(merge:)`.
    public init(merge ty: NSMergePolicyType) {
        self.mergeType = ty
        super.init()
    }

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
public class NSMergeConflict: NSObject, @unchecked Sendable {
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

    init(source: NSManagedObject, objectSnapshot: [String: Any]?, cachedSnapshot: [String: Any]?,
         persistedSnapshot: [String: Any]?, newVersion: Int, oldVersion: Int) {
        self.sourceObject = source
        self.objectSnapshot = objectSnapshot
        self.cachedSnapshot = cachedSnapshot
        self.persistedSnapshot = persistedSnapshot
        self.newVersionNumber = newVersion
        self.oldVersionNumber = oldVersion
        super.init()
    }

    public override var description: String {
        "NSMergeConflict (\(sourceObject.objectID.uriRepresentation().absoluteString)) old version \(oldVersionNumber), new version \(newVersionNumber)"
    }
}
