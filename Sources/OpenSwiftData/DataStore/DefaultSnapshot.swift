import Foundation
import OpenCoreData

/// Mirrors SwiftData's `DataStoreSnapshotCodingKey`: the keys of a snapshot's `Codable` form.
public enum DataStoreSnapshotCodingKey: CodingKey, CustomStringConvertible, CustomDebugStringConvertible, Sendable {
    /// Mirrors `persistentIdentifier`: the key of the snapshot's identifier.
    case persistentIdentifier
    /// Mirrors `modeledProperty(_:)`: the key of a property's value, the property's name.
    case modeledProperty(String)

    private static let identifierKey = "persistentIdentifier"

    /// Mirrors `stringValue`.
    public var stringValue: String {
        switch self {
        case .persistentIdentifier: Self.identifierKey
        case .modeledProperty(let name): name
        }
    }

    /// Mirrors `init(stringValue:)`.
    public init?(stringValue: String) {
        self = stringValue == Self.identifierKey ? .persistentIdentifier : .modeledProperty(stringValue)
    }

    /// Mirrors `intValue`: `nil` (the keys are names).
    public var intValue: Int? { nil }
    /// Mirrors `init(intValue:)`: `nil` (the keys are names).
    public init?(intValue: Int) { nil }
    /// Mirrors `description`.
    public var description: String { stringValue }
    /// Mirrors `debugDescription`.
    public var debugDescription: String { "DataStoreSnapshotCodingKey(\(stringValue))" }
}

/// Mirrors SwiftData's `DefaultSnapshot`: a model's persisted values by property name (attributes as the
/// store keeps them, relationships as the identifiers of their destinations), `Codable`, so that a
/// custom store can keep snapshots as they are (a JSON file of them is a store).
///
/// Its `Codable` form is an object with the key `persistentIdentifier` and one key per property, each value
/// an object naming its kind: `{"string": "Paris"}`, `{"int": 3}`, `{"date": …}`, `{"model": {identifier}}`,
/// `{"models": […]}`, `{"null": null}` (docs/SwiftData.md, "Custom stores").
public struct DefaultSnapshot: DataStoreSnapshot, Hashable {
    /// Mirrors `persistentIdentifier`.
    public let persistentIdentifier: PersistentIdentifier
    /// The values by property name.
    let values: [String: SnapshotValue]

    init(persistentIdentifier: PersistentIdentifier, values: [String: SnapshotValue]) {
        (self.persistentIdentifier, self.values) = (persistentIdentifier, values)
    }

    /// Mirrors `init(from:relatedBackingDatas:)`: the values of the model `backingData` holds; the backing
    /// data of each model its relationships reach is added to `relatedBackingDatas`.
    public init(from backingData: any BackingData, relatedBackingDatas: inout [PersistentIdentifier: any BackingData]) {
        guard let storage = backingData as? any SnapshotSource else {
            preconditionFailure("DefaultSnapshot(from:relatedBackingDatas:) reads OpenSwiftData's own backing data, not \(type(of: backingData))")
        }
        self = storage.snapshot(related: &relatedBackingDatas)
    }

    /// Mirrors `copy(persistentIdentifier:remappedIdentifiers:)`.
    public func copy(persistentIdentifier: PersistentIdentifier, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]? = nil) -> DefaultSnapshot {
        DefaultSnapshot(persistentIdentifier: persistentIdentifier, values: values.mapValues { $0.remapped(remappedIdentifiers ?? [:]) })
    }

    /// Mirrors `init(from:)` of `Decodable`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: DataStoreSnapshotCodingKey.self)
        persistentIdentifier = try c.decode(PersistentIdentifier.self, forKey: .persistentIdentifier)
        var values: [String: SnapshotValue] = [:]
        for key in c.allKeys where key.stringValue != DataStoreSnapshotCodingKey.persistentIdentifier.stringValue {
            values[key.stringValue] = try c.decode(SnapshotValue.self, forKey: key)
        }
        self.values = values
    }

    /// Mirrors `encode(to:)` of `Encodable`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: DataStoreSnapshotCodingKey.self)
        try c.encode(persistentIdentifier, forKey: .persistentIdentifier)
        for (name, value) in values.sorted(by: { $0.key < $1.key }) { try c.encode(value, forKey: .modeledProperty(name)) }
    }

    /// The identifiers this snapshot's relationships refer to.
    var referencedIdentifiers: [PersistentIdentifier] {
        values.values.flatMap { value -> [PersistentIdentifier] in
            switch value {
            case .model(let id): [id]
            case .models(let ids): ids
            default: []
            }
        }
    }
}

extension DefaultSnapshot {
    /// The snapshot of a managed object's values (its identifier as `identifier` maps its object ID).
    init(_ object: NSManagedObject, identifier: (NSManagedObjectID) -> PersistentIdentifier) {
        var values: [String: SnapshotValue] = [:]
        for (name, property) in object.entity.propertiesByName where !property.isTransient {
            if let relationship = property as? NSRelationshipDescription {
                values[name] = Self.relationshipValue(object, relationship, identifier)
            } else {
                values[name] = Self.attributeValue(object, name, property as? NSAttributeDescription)
            }
        }
        self.init(persistentIdentifier: identifier(object.objectID), values: values)
    }

    private static func relationshipValue(_ object: NSManagedObject, _ relationship: NSRelationshipDescription,
                                          _ identifier: (NSManagedObjectID) -> PersistentIdentifier) -> SnapshotValue {
        let value = object.value(forKey: relationship.name)
        guard relationship.isToMany else {
            return (value as? NSManagedObject).map { .model(identifier($0.objectID)) } ?? .null
        }
        let members: [NSManagedObject] = switch value {
        case let set as Set<NSManagedObject>: Array(set)
        case let set as NSSet: set.allObjects.compactMap { $0 as? NSManagedObject }
        case let ordered as NSOrderedSet: ordered.array.compactMap { $0 as? NSManagedObject }
        case let array as [NSManagedObject]: array
        default: []
        }
        let ids = members.map { identifier($0.objectID) }
        return .models(relationship.isOrdered ? ids : ids.sorted())
    }

    private static func attributeValue(_ object: NSManagedObject, _ name: String, _ attribute: NSAttributeDescription?) -> SnapshotValue {
        let value = object.value(forKey: name)
        if let snapshot = SnapshotValue(stored: value) { return snapshot }
        if let transformer = attribute?.valueTransformerName.flatMap({ ValueTransformer(forName: NSValueTransformerName($0)) }),
           let data = transformer.transformedValue(value) as? Data {
            return .data(data)
        }
        preconditionFailure("\(object.entity.name ?? "?").\(name) holds \(type(of: value!)), which a snapshot cannot carry (a value transformer to Data would)")
    }
}

/// A backing data a ``DefaultSnapshot`` can be made of.
protocol SnapshotSource {
    func snapshot(related: inout [PersistentIdentifier: any BackingData]) -> DefaultSnapshot
}

extension ModelStorage: SnapshotSource {
    func snapshot(related: inout [PersistentIdentifier: any BackingData]) -> DefaultSnapshot {
        switch state {
        case .managed(let object, let context):
            let snapshot = DefaultSnapshot(object, identifier: PersistentIdentifier.init)
            for id in snapshot.referencedIdentifiers where related[id] == nil {
                related[id] = backingData(of: context.model(for: id))
            }
            return snapshot
        case .detached(let values):
            var stored: [String: SnapshotValue] = [:]
            for detached in values {
                let (name, value) = (detached.slot.name, detached.value)
                if let model = value as? any PersistentModel {
                    stored[name] = .model(model.persistentModelID)
                    related[model.persistentModelID] = backingData(of: model)
                } else if let array = value as? any ModelArray {
                    stored[name] = .models(array.models.map(\.persistentModelID))
                    for model in array.models { related[model.persistentModelID] = backingData(of: model) }
                } else {
                    stored[name] = SnapshotValue(stored: ValueKinds.stored(value)) ?? .null
                }
            }
            return DefaultSnapshot(persistentIdentifier: detachedIdentifier, values: stored)
        }
    }
}

/// A model's backing data, through the existential.
func backingData(of model: any PersistentModel) -> any BackingData {
    func open<M: PersistentModel>(_ model: M) -> any BackingData { model.persistentBackingData }
    return open(model)
}
