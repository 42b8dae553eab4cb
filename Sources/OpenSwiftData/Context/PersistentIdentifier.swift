import Foundation
import OpenCoreData

/// Mirrors SwiftData's `PersistentIdentifier`: a model's identity in its store, which crosses actors and
/// may be saved (`Codable`). Two identifiers are equal when they name the same object: a model's
/// identifier changes once, from temporary to permanent, when it is first saved.
public struct PersistentIdentifier: Hashable, Identifiable, Codable, Sendable, Comparable {
    /// Mirrors `PersistentIdentifier.ID`: the identifier's value, Core Data's object URI
    /// (`x-coredata://STORE/Entity/pN`) kept in its parts, so that an identifier is made without formatting
    /// the URI.
    public struct ID: Hashable, Sendable {
        /// The store's identifier ("" for an object not saved yet).
        let store: String
        let entity: String
        let key: Key

        /// The last part of the URI: Core Data's primary key (`pN`), or another store's key as the URI spells it.
        enum Key: Hashable, Sendable {
            case number(Int64)
            case text(String)
        }

        init(store: String, entity: String, key: Key) { (self.store, self.entity, self.key) = (store, entity, key) }

        /// The parts of an object URI; a string of another shape is kept whole as the key.
        init(uri: String) {
            let prefix = "x-coredata://"
            let parts = uri.hasPrefix(prefix) ? uri.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false) : []
            guard parts.count == 3 else {
                self.init(store: "", entity: "", key: .text(uri))
                return
            }
            let last = parts[2]
            if last.first == "p", let number = Int64(last.dropFirst()), number > 0, "p\(number)" == last {
                self.init(store: String(parts[0]), entity: String(parts[1]), key: .number(number))
            } else {
                self.init(store: String(parts[0]), entity: String(parts[1]), key: .text(String(last)))
            }
        }

        /// The URI.
        var uri: String {
            switch key {
            case .number(let n): "x-coredata://\(store)/\(entity)/p\(n)"
            case .text(let text) where store.isEmpty && entity.isEmpty: text
            case .text(let text): "x-coredata://\(store)/\(entity)/\(text)"
            }
        }

        /// Mirrors `==`: the same object URI.
        public static func == (lhs: ID, rhs: ID) -> Bool { lhs.key == rhs.key && lhs.entity == rhs.entity && lhs.store == rhs.store }
        /// Mirrors `hash(into:)`.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(key)
            hasher.combine(entity)
            hasher.combine(store)
        }

        /// Orders by store, entity and key (numbers before other keys).
        static func < (lhs: ID, rhs: ID) -> Bool {
            if lhs.store != rhs.store { return lhs.store < rhs.store }
            if lhs.entity != rhs.entity { return lhs.entity < rhs.entity }
            switch (lhs.key, rhs.key) {
            case (.number(let a), .number(let b)): return a < b
            case (.number, .text): return true
            case (.text, .number): return false
            case (.text(let a), .text(let b)): return a < b
            }
        }
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
        entityName = objectID.entity.name ?? ""
        let (store, primaryKey) = objectID.storeAndPrimaryKey
        if let primaryKey {
            id = ID(store: store, entity: entityName, key: .number(primaryKey))
            storeIdentifier = store
        } else {
            id = ID(uri: objectID.uriString)
            storeIdentifier = nil
        }
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
    /// Orders identifiers by store, entity and key.
    public static func < (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool { lhs.id < rhs.id }

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
