import Foundation

// Core Data's store option and metadata keys beyond the SQLite ones declared beside NSPersistentStore.

/// Mirrors `NSStoreTypeKey`: the store type in a store's metadata (`"SQLite"`, `"Binary"`, …).
public let NSStoreTypeKey = "NSStoreType"
/// Mirrors `NSStoreUUIDKey`: the store's UUID in its metadata (``NSPersistentStore/identifier``).
public let NSStoreUUIDKey = "NSStoreUUID"

/// Mirrors `NSSQLiteAnalyzeOption`: set to true, the SQLite store runs `ANALYZE` when it is added, so that
/// SQLite's planner has statistics about the indexes. Ignored for a read-only store.
public let NSSQLiteAnalyzeOption = "NSSQLiteAnalyzeOption"
/// Mirrors `NSSQLiteManualVacuumOption`: set to true, the SQLite store runs `VACUUM` (rebuilding the file
/// without free pages) when it is added. Ignored for a read-only store.
public let NSSQLiteManualVacuumOption = "NSSQLiteManualVacuumOption"
/// Mirrors `NSPersistentStoreConnectionPoolMaxSizeKey`: the most connections the SQLite store opens to
/// its file, the writer included (an `NSNumber`; 3 without it). With 1 every read waits for the writer's
/// connection; with more, reads run beside a save on their own connections (WAL).
public let NSPersistentStoreConnectionPoolMaxSizeKey = "NSPersistentStoreConnectionPoolMaxSizeKey"
/// Mirrors `NSPersistentStoreFileProtectionKey`. Linux has no data-protection classes: the option is
/// accepted and has no effect; the store's files are created with the process's `umask`, as every other
/// file (see docs/Store.md).
public let NSPersistentStoreFileProtectionKey = "NSPersistentStoreFileProtectionKey"
/// Mirrors `NSBinaryStoreSecureDecodingClasses`: on Apple platforms, the classes the binary store may
/// decode when it reads its archive. The binary store here writes a property list of attribute values
/// that are property-list objects already (a transformable attribute's value reaches it as the data its
/// transformer made), so it decodes no classes: the option is accepted and has no effect (docs/Store.md).
public let NSBinaryStoreSecureDecodingClasses = "NSBinaryStoreSecureDecodingClasses"
/// Mirrors `NSBinaryStoreInsecureDecodingCompatibilityOption`: on Apple platforms, lets the binary store
/// read an archive without secure decoding. Accepted with no effect, for the reason
/// ``NSBinaryStoreSecureDecodingClasses`` gives: nothing in the file is unarchived.
public let NSBinaryStoreInsecureDecodingCompatibilityOption = "NSBinaryStoreInsecureDecodingCompatibilityOption"
/// Mirrors `NSMigratePersistentStoresAutomaticallyOption` (``NSPersistentStoreDescription/shouldMigrateStoreAutomatically``).
/// With ``NSInferMappingModelAutomaticallyOption`` also true, a SQLite store made with another version of
/// the model is migrated when it is added: the source model is found among the versions of the model's
/// folder (then `Bundle.allBundles`), the mapping inferred, and the store rewritten in place in one
/// transaction (docs/Migration.md). Without both, such a store is refused with
/// `NSPersistentStoreIncompatibleVersionHashError` and left untouched. Custom mapping models are not
/// looked for yet.
public let NSMigratePersistentStoresAutomaticallyOption = "NSMigratePersistentStoresAutomaticallyOption"
/// Mirrors `NSInferMappingModelAutomaticallyOption` (``NSPersistentStoreDescription/shouldInferMappingModelAutomatically``).
/// See ``NSMigratePersistentStoresAutomaticallyOption``: both true turn on lightweight migration.
public let NSInferMappingModelAutomaticallyOption = "NSInferMappingModelAutomaticallyOption"

extension NSPersistentStoreDescription {
    /// Mirrors `shouldMigrateStoreAutomatically`: `NSMigratePersistentStoresAutomaticallyOption` in
    /// `options`, true unless set otherwise (as Core Data's descriptions).
    public var shouldMigrateStoreAutomatically: Bool {
        get { options[NSMigratePersistentStoresAutomaticallyOption].map { StoreOptionValue.flag($0) } ?? true }
        set { setOption(NSNumber(value: newValue), forKey: NSMigratePersistentStoresAutomaticallyOption) }
    }

    /// Mirrors `shouldInferMappingModelAutomatically`: `NSInferMappingModelAutomaticallyOption` in
    /// `options`, true unless set otherwise (as Core Data's descriptions).
    public var shouldInferMappingModelAutomatically: Bool {
        get { options[NSInferMappingModelAutomaticallyOption].map { StoreOptionValue.flag($0) } ?? true }
        set { setOption(NSNumber(value: newValue), forKey: NSInferMappingModelAutomaticallyOption) }
    }
}

/// Mirrors `NSPersistentStoreForceDestroyOption`: with true in the options of
/// `destroyPersistentStore(at:type:options:)`, the files are deleted even when the file is not a store
/// that can be opened (not a SQLite database); without it such a file is refused and kept.
public let NSPersistentStoreForceDestroyOption = "NSPersistentStoreForceDestroyOption"

/// Mirrors `NSIgnorePersistentStoreVersioningOption`: with true, adding a SQLite store does not compare
/// the metadata's version hashes with the model's. The file must still have every table and column the
/// model reads, and `Z_PRIMARYKEY` must number the entities as the model does (else the add fails,
/// naming what is missing, and the file is left as it was); its metadata is kept as it is.
public let NSIgnorePersistentStoreVersioningOption = "NSIgnorePersistentStoreVersioningOption"

/// Reading store options, whatever the store.
enum StoreOptionValue {
    /// A Boolean option given as `Bool`, `NSNumber` (Core Data's `@YES`) or a string such as `"YES"`.
    static func flag(_ value: Any?) -> Bool {
        switch value {
        case let value as Bool: return value
        case let value as NSNumber: return value.boolValue
        case let value as String: return ["1", "yes", "true"].contains(value.lowercased())
        default: return false
        }
    }
}
