import Foundation
import Synchronization

/// Mirrors Core Data's `NSManagedObjectID`: a store-wide identity for an object, safe to pass between
/// contexts and threads. Temporary until the object is saved (or `obtainPermanentIDs(for:)`).
public final class NSManagedObjectID: NSObject, NSFetchRequestResult, @unchecked Sendable {
    /// Mirrors `entity`.
    public let entity: NSEntityDescription
    let key: ObjectKey
    let storeIdentifier: String

    init(entity: NSEntityDescription, key: ObjectKey, storeIdentifier: String) {
        self.entity = entity
        self.key = key
        self.storeIdentifier = storeIdentifier
        super.init()
    }

    /// A new temporary ID. Temporary IDs only need to be unique in this process: a counter (a `UUID()`
    /// per object reads `/dev/urandom` on Linux and dominated fetch and insert times).
    static func temporary(for entity: NSEntityDescription) -> NSManagedObjectID {
        NSManagedObjectID(entity: entity, key: ObjectKey.newTemporary(), storeIdentifier: "")
    }

    /// Mirrors `isTemporaryID`.
    public var isTemporaryID: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The row's primary key (`Z_PK`), `nil` while temporary.
    var primaryKey: Int64? { key.primaryKey }

    /// Mirrors `uriRepresentation()`: `x-coredata://STORE-UUID/Entity/pN`, or
    /// `x-coredata:///Entity/tUUID` while temporary.
    public func uriRepresentation() -> URL { URL(string: uriString)! }

    /// For OpenSwiftData's identifiers: the store's identifier ("" while temporary) and the primary key
    /// (`nil` while temporary), without making the URI.
    package var storeAndPrimaryKey: (store: String, primaryKey: Int64?) { (storeIdentifier, key.primaryKey) }

    /// ``uriRepresentation()`` as a string (without making the URL).
    package var uriString: String {
        switch key {
        case .permanent(_, let pk): "x-coredata://\(storeIdentifier)/\(entity.name ?? "")/p\(pk)"
        case .temporary(let n): "x-coredata:///\(entity.name ?? "")/t\(processTag)-\(n)"
        }
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSManagedObjectID else { return false }
        return other.key == key && other.storeIdentifier == storeIdentifier
    }

    public override var hash: Int { key.hashValue }

    public override var description: String { "<NSManagedObjectID \(uriRepresentation().absoluteString)>" }
}

/// Distinguishes this process's temporary IDs in URIs.
private let processTag = UUID().uuidString

extension NSManagedObjectID {
    /// Mirrors `persistentStore`: the store the object's row is in; `nil` for a temporary ID, or once
    /// the store is gone.
    public var persistentStore: NSPersistentStore? {
        guard !isTemporaryID else { return nil }
        return NSPersistentStore.addedStores.withLock { $0[storeIdentifier]?.store }
    }
}
