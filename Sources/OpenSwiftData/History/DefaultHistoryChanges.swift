import Foundation
import OpenCoreData

/// Mirrors SwiftData's `DefaultHistoryInsert`: an insert of the default history.
public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert {
    /// Mirrors `ChangeIdentifier`: the change's number in its store.
    public typealias ChangeIdentifier = Int64
    /// Mirrors `TransactionIdentifier`.
    public typealias TransactionIdentifier = Int64
    /// Mirrors `changedPersistentIdentifier`.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// Mirrors `changeIdentifier`.
    public let changeIdentifier: Int64
    /// Mirrors `transactionIdentifier`.
    public let transactionIdentifier: Int64

    /// Mirrors `==`: the same change.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.changeIdentifier == rhs.changeIdentifier && lhs.changedPersistentIdentifier == rhs.changedPersistentIdentifier }
    /// Mirrors `hash(into:)`.
    public func hash(into hasher: inout Hasher) { hasher.combine(changeIdentifier) }
}

/// Mirrors SwiftData's `DefaultHistoryUpdate`: an update of the default history.
public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate {
    /// Mirrors `PropertyUpdate`: a changed property's key path.
    public typealias PropertyUpdate = any PartialKeyPath<Model> & Sendable
    /// Mirrors `ChangeIdentifier`.
    public typealias ChangeIdentifier = Int64
    /// Mirrors `TransactionIdentifier`.
    public typealias TransactionIdentifier = Int64
    /// Mirrors `changedPersistentIdentifier`.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// Mirrors `changeIdentifier`.
    public let changeIdentifier: Int64
    /// Mirrors `transactionIdentifier`.
    public let transactionIdentifier: Int64
    /// Mirrors `updatedAttributes`: the key paths of the changed persisted properties.
    public let updatedAttributes: [any PartialKeyPath<Model> & Sendable]

    /// Mirrors `containsAttribute(_:)`: whether the property is one of ``updatedAttributes``.
    public func containsAttribute(_ keyPath: any PartialKeyPath<Model> & Sendable) -> Bool {
        updatedAttributes.contains { $0 == keyPath as AnyKeyPath }
    }

    /// Mirrors `==`: the same change.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.changeIdentifier == rhs.changeIdentifier && lhs.changedPersistentIdentifier == rhs.changedPersistentIdentifier }
    /// Mirrors `hash(into:)`.
    public func hash(into hasher: inout Hasher) { hasher.combine(changeIdentifier) }
}

/// Mirrors SwiftData's `DefaultHistoryDelete`: a delete of the default history.
public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete {
    /// Mirrors `ChangeIdentifier`.
    public typealias ChangeIdentifier = Int64
    /// Mirrors `TransactionIdentifier`.
    public typealias TransactionIdentifier = Int64
    /// Mirrors `changedPersistentIdentifier`.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// Mirrors `changeIdentifier`.
    public let changeIdentifier: Int64
    /// Mirrors `transactionIdentifier`.
    public let transactionIdentifier: Int64
    /// Mirrors `tombstone`.
    public let tombstone: HistoryTombstone<Model>

    /// Mirrors `==`: the same change.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.changeIdentifier == rhs.changeIdentifier && lhs.changedPersistentIdentifier == rhs.changedPersistentIdentifier }
    /// Mirrors `hash(into:)`.
    public func hash(into hasher: inout Hasher) { hasher.combine(changeIdentifier) }
}

/// A Core Data history change as the change of its model type.
enum HistoryChangeMaking {
    static func change(_ change: NSPersistentHistoryChange, transaction: Int64, schema: Schema) -> HistoryChange? {
        guard let type = schema.modelType(named: change.changedObjectID.entity.name ?? "") else { return nil }
        return make(type, change, transaction)
    }

    private static func make<M: PersistentModel>(_ type: M.Type, _ change: NSPersistentHistoryChange, _ transaction: Int64) -> HistoryChange {
        let identifier = PersistentIdentifier(change.changedObjectID)
        switch change.changeType {
        case .insert:
            return .insert(DefaultHistoryInsert<M>(changedPersistentIdentifier: identifier, changeIdentifier: change.changeID, transactionIdentifier: transaction))
        case .update:
            let names = Set((change.updatedProperties ?? []).map(\.name))
            // `@Model` writes each key path as a literal (`\Trip.name`), which captures nothing: Sendable.
            let keyPaths = M.schemaMetadata.filter { names.contains($0.name) }.compactMap { $0.keypath as? PartialKeyPath<M> }
                .map { unsafeBitCast($0, to: (any PartialKeyPath<M> & Sendable).self) }
            return .update(DefaultHistoryUpdate<M>(changedPersistentIdentifier: identifier, changeIdentifier: change.changeID,
                                                   transactionIdentifier: transaction, updatedAttributes: keyPaths))
        case .delete:
            var values: [String: any Sendable] = [:]
            for (key, value) in change.tombstone ?? [:] {
                if let name = key as? String, let value = sendable(value) { values[name] = value }
            }
            return .delete(DefaultHistoryDelete<M>(changedPersistentIdentifier: identifier, changeIdentifier: change.changeID,
                                                   transactionIdentifier: transaction, tombstone: HistoryTombstone(values: values)))
        }
    }

    /// A preserved value as a value type (numbers as `NSNumber`, which cast `as? Int` and the like).
    private static func sendable(_ value: Any) -> (any Sendable)? {
        switch value {
        case let value as String: value
        case let value as NSNumber: value
        case let value as Date: value
        case let value as Data: value
        case let value as UUID: value
        case let value as URL: value
        case let value as Decimal: value
        default: nil
        }
    }
}
