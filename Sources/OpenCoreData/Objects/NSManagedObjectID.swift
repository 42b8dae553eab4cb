import Foundation

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

    static func temporary(for entity: NSEntityDescription) -> NSManagedObjectID {
        NSManagedObjectID(entity: entity, key: .temporary(UUID()), storeIdentifier: "")
    }

    /// Mirrors `isTemporaryID`.
    public var isTemporaryID: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The row's primary key (`Z_PK`), `nil` while temporary.
    var primaryKey: Int64? {
        if case .permanent(_, let pk) = key { return pk }
        return nil
    }

    /// Mirrors `uriRepresentation()`: `x-coredata://STORE-UUID/Entity/pN`, or
    /// `x-coredata:///Entity/tUUID` while temporary.
    public func uriRepresentation() -> URL {
        switch key {
        case .permanent(_, let pk): return URL(string: "x-coredata://\(storeIdentifier)/\(entity.name ?? "")/p\(pk)")!
        case .temporary(let uuid): return URL(string: "x-coredata:///\(entity.name ?? "")/t\(uuid.uuidString)")!
        }
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSManagedObjectID else { return false }
        return other.key == key && other.storeIdentifier == storeIdentifier
    }

    public override var hash: Int { key.hashValue }

    public override var description: String { "<NSManagedObjectID \(uriRepresentation().absoluteString)>" }
}

/// What uniquely names a row: the hierarchy's root entity number and `Z_PK`, or a temporary UUID.
enum ObjectKey: Hashable, Sendable {
    case permanent(root: Int, pk: Int64)
    case temporary(UUID)
}
