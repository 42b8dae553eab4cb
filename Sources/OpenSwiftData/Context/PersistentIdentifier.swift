import Foundation
import OpenCoreData

/// Mirrors SwiftData's `PersistentIdentifier`: a model's identity in its store, which crosses actors and
/// may be saved (`Codable`). Two identifiers are equal when they name the same object: a model's
/// identifier changes once, from temporary to permanent, when it is first saved.
public struct PersistentIdentifier: Hashable, Identifiable, Codable, Sendable, Comparable {
    /// Mirrors `PersistentIdentifier.ID`: the identifier's value (Core Data's object URI).
    public struct ID: Hashable, Sendable {
        let uri: String

        /// Mirrors `==`: the same object URI.
        public static func == (lhs: ID, rhs: ID) -> Bool { lhs.uri == rhs.uri }
        /// Mirrors `hash(into:)`.
        public func hash(into hasher: inout Hasher) { hasher.combine(uri) }
    }

    /// Mirrors `id`.
    public let id: ID
    /// Mirrors `entityName`.
    public let entityName: String
    /// Mirrors `storeIdentifier`: the identifier of the store holding the model; `nil` before it is saved.
    public let storeIdentifier: String?
    /// The managed object identifier, when made in this process.
    let objectID: NSManagedObjectID?

    init(_ objectID: NSManagedObjectID) {
        if DataStoreBridges.exist, !objectID.isTemporaryID, let bridge = objectID.persistentStore as? any DataStoreBridging {
            let known = bridge.persistentIdentifier(for: objectID)
            // Without the object ID: a custom store's identifiers are looked up through its bridge.
            (self.objectID, id, entityName, storeIdentifier) = (nil, known.id, known.entityName, known.storeIdentifier)
            return
        }
        self.objectID = objectID
        id = ID(uri: objectID.uriString)
        entityName = objectID.entity.name ?? ""
        storeIdentifier = objectID.isTemporaryID ? nil : objectID.persistentStore?.identifier
    }

    /// A detached model's identifier (SwiftData gives one before the model is inserted).
    init(temporary entityName: String) {
        (objectID, self.entityName, storeIdentifier) = (nil, entityName, nil)
        id = ID(uri: "x-coredata:///\(entityName)/d\(UUID().uuidString)")
    }

    /// Mirrors `identifier(for:entityName:primaryKey:)`: the identifier of the object whose primary key in
    /// the store `storeIdentifier` is `primaryKey`: for OpenSwiftData's own stores Core Data's `Z_PK`, a
    /// positive integer; a custom ``DataStore`` may use any key (a `UUID`, a string, a server's number).
    public static func identifier<T: Codable & Hashable & Sendable>(for storeIdentifier: String, entityName: String,
                                                                    primaryKey: T) throws -> PersistentIdentifier {
        let key: String
        if let number = primaryKey as? any BinaryInteger {
            guard let value = Int64(exactly: number), value > 0 else {
                throw SwiftDataError(.unsupportedKeyPath, "an integer primary key of \(entityName) is positive (Core Data's Z_PK), not \(primaryKey)")
            }
            key = "p\(value)"
        } else if let uuid = primaryKey as? UUID {
            key = "u\(uuid.uuidString)"
        } else if let string = primaryKey as? String {
            key = "s" + (string.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? string)
        } else {
            let encoded = String(decoding: try JSONEncoder().encode(primaryKey), as: UTF8.self)
            key = "j" + (encoded.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? encoded)
        }
        return PersistentIdentifier(uri: "x-coredata://\(storeIdentifier)/\(entityName)/\(key)", entityName: entityName, storeIdentifier: storeIdentifier)
    }

    private init(uri: String, entityName: String, storeIdentifier: String?) {
        (objectID, id, self.entityName, self.storeIdentifier) = (nil, ID(uri: uri), entityName, storeIdentifier)
    }

    /// The URI Core Data gives the object.
    var uri: URL? { URL(string: id.uri) }

    /// Equal when naming the same object.
    public static func == (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool { lhs.id == rhs.id }
    /// Hashes the ``id``.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    /// Orders identifiers by their URI.
    public static func < (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool { lhs.id.uri < rhs.id.uri }

    private enum CodingKeys: String, CodingKey { case uri, entityName, storeIdentifier }

    /// Decodes an identifier another process or run encoded.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(uri: try c.decode(String.self, forKey: .uri), entityName: try c.decode(String.self, forKey: .entityName),
                  storeIdentifier: try c.decodeIfPresent(String.self, forKey: .storeIdentifier))
    }

    /// Encodes the URI, entity name and store identifier.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id.uri, forKey: .uri)
        try c.encode(entityName, forKey: .entityName)
        try c.encodeIfPresent(storeIdentifier, forKey: .storeIdentifier)
    }
}
