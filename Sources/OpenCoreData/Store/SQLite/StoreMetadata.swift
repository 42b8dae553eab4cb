import Foundation

/// Core Data's metadata of a SQLite store, as `Z_METADATA` keeps it: one row, `Z_VERSION` 1, the store
/// UUID in `Z_UUID`, and in `Z_PLIST` a binary property list of the model's version hashes and the
/// framework that wrote it (docs/StoreFormat.md, "Metadata"). The UUID is not in the list: Core Data adds
/// it (`NSStoreUUIDKey`) when it hands the metadata out, and so do we.
enum StoreMetadata {
    /// `NSPersistenceFrameworkVersion` written by this framework: the newest Core Data version whose
    /// stores the fixtures prove we read and write (macOS 14 / iOS 17). A store that records a higher one
    /// opens read-only only (see ``checkFrameworkVersion(_:path:readOnly:)``).
    static let frameworkVersion = 1344
    static let frameworkVersionKey = "NSPersistenceFrameworkVersion"
    static let hashesDigestKey = "NSStoreModelVersionHashesDigest"
    static let autoVacuumKey = "_NSAutoVacuumLevel"

    /// The property list Core Data 1344 writes for `model` (without the UUID).
    static func plist(for model: NSManagedObjectModel) -> [String: Any] {
        let hashes = model.entityVersionHashesByName
        return [
            frameworkVersionKey: frameworkVersion,
            NSStoreModelVersionHashesKey: hashes,
            hashesDigestKey: digest(hashes),
            storeModelVersionHashesVersionKey: 3,
            NSStoreModelVersionIdentifiersKey: identifiers(model),
            NSPersistentStoreModelVersionChecksumKey: model.versionChecksum,
            NSStoreTypeKey: NSSQLiteStoreType,
            autoVacuumKey: "2",
        ]
    }

    /// `NSStoreModelVersionIdentifiers`: the model's identifiers, `[""]` for a model without any (what
    /// Core Data records for a model whose identifier is empty, in every fixture).
    static func identifiers(_ model: NSManagedObjectModel) -> [String] {
        let identifiers = model.versionIdentifiers.compactMap { $0 as? String }.sorted()
        return identifiers.isEmpty ? [""] : identifiers
    }

    /// `NSStoreModelVersionHashesDigest`: base64 of SHA-512 over each entity's name (UTF-8) followed by
    /// its version hash, in name order (matches every fixture that records one).
    static func digest(_ hashes: [String: Data]) -> String {
        var sha = SHA512()
        for name in hashes.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            sha.update(Array(name.utf8))
            sha.update(hashes[name]!)
        }
        return Data(sha.finalize()).base64EncodedString()
    }

    /// The binary property list of `Z_PLIST`.
    static func encode(_ plist: [String: Any]) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    }

    /// The metadata row, read as it is: `nil` when `Z_METADATA` has no row 1.
    static func row(_ db: SQLiteConnection) throws -> (uuid: String?, plist: Data?)? {
        var row: (String?, Data?)?
        try db.query("SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = ?", [.int(1)]) { r in
            let uuid: String? = if case .string(let s) = r.value(0, as: .stringAttributeType) { s } else { nil }
            let plist: Data? = if case .data(let d) = r.value(1, as: .binaryDataAttributeType) { d } else { nil }
            row = (uuid, plist)
        }
        return row
    }

    /// The metadata as ``NSPersistentStore/metadata`` gives it: the property list, with `NSStoreUUIDKey`
    /// from `Z_UUID` and `NSStoreTypeKey`. Throws naming the file when the row is missing or `Z_PLIST` is
    /// not a property list dictionary.
    static func read(_ db: SQLiteConnection, path: String) throws -> [String: Any] {
        guard let row = try row(db) else { throw unreadable(path, "Z_METADATA has no row (Z_VERSION 1)") }
        guard let data = row.plist else { throw unreadable(path, "Z_METADATA.Z_PLIST is empty") }
        let decoded: Any
        do {
            decoded = try PropertyListSerialization.propertyList(from: data, format: nil)
        } catch {
            throw unreadable(path, "Z_METADATA.Z_PLIST (\(data.count) bytes) is not a property list")
        }
        guard var plist = decoded as? [String: Any] else {
            throw unreadable(path, "Z_METADATA.Z_PLIST is a property list but not a dictionary")
        }
        if let uuid = row.uuid { plist[NSStoreUUIDKey] = uuid }
        if plist[NSStoreTypeKey] == nil { plist[NSStoreTypeKey] = NSSQLiteStoreType }
        return plist
    }

    /// The framework version a metadata dictionary records (0 when it records none).
    static func frameworkVersion(of metadata: [String: Any]) -> Int {
        (metadata[frameworkVersionKey] as? NSNumber)?.intValue ?? (metadata[frameworkVersionKey] as? Int) ?? 0
    }

    static func unreadable(_ path: String, _ what: String) -> CoreDataError {
        CoreDataError(NSPersistentStoreInvalidTypeError, "The store at \(path) has unreadable metadata: \(what); it was left untouched.",
                      userInfo: [NSFilePathErrorKey: path])
    }
}
