import Foundation

/// Mirrors SwiftData's `HistoryTransaction`: one saved transaction of a store's history and its changes.
public protocol HistoryTransaction {
    /// Mirrors `TokenType`: where in the history the transaction is.
    associatedtype TokenType: Comparable, Hashable, Identifiable, Sendable
    /// Mirrors `TransactionIdentifier`.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// Mirrors `author`: the saving context's `author`.
    var author: String? { get }
    /// Mirrors `changes`: the inserts, updates and deletes of the transaction.
    var changes: [HistoryChange] { get }
    /// Mirrors `storeIdentifier`.
    var storeIdentifier: String { get }
    /// Mirrors `timestamp`.
    var timestamp: Date { get }
    /// Mirrors `token`.
    var token: TokenType { get }
    /// Mirrors `transactionIdentifier`.
    var transactionIdentifier: TransactionIdentifier { get }
}

/// Mirrors SwiftData's `HistoryToken`: a position in a store's history, to fetch what came after it.
public protocol HistoryToken: Codable, Hashable, Sendable {
    /// Mirrors `TokenType`.
    associatedtype TokenType: Codable, Hashable, Sendable
    /// Mirrors `tokenValue`.
    var tokenValue: TokenType? { get }
    /// Mirrors `storeIdentifier`.
    var storeIdentifier: String { get }
}

/// Mirrors SwiftData's `HistoryInsert`: a model inserted by a transaction.
public protocol HistoryInsert<Model>: Hashable, Sendable {
    /// Mirrors `Model`.
    associatedtype Model: PersistentModel
    /// Mirrors `ChangeIdentifier`.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// Mirrors `TransactionIdentifier`.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// Mirrors `changeIdentifier`.
    var changeIdentifier: ChangeIdentifier { get }
    /// Mirrors `changedPersistentIdentifier`.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// Mirrors `transactionIdentifier`.
    var transactionIdentifier: TransactionIdentifier { get }
}

/// Mirrors SwiftData's `HistoryUpdate`: a model changed by a transaction, and which properties changed.
public protocol HistoryUpdate<Model>: Hashable, Sendable {
    /// Mirrors `Model`.
    associatedtype Model: PersistentModel
    /// Mirrors `ChangeIdentifier`.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// Mirrors `TransactionIdentifier`.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// Mirrors `PropertyUpdate`: a changed property's key path.
    typealias PropertyUpdate = any PartialKeyPath<Model> & Sendable
    /// Mirrors `changeIdentifier`.
    var changeIdentifier: ChangeIdentifier { get }
    /// Mirrors `changedPersistentIdentifier`.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// Mirrors `transactionIdentifier`.
    var transactionIdentifier: TransactionIdentifier { get }
    /// Mirrors `updatedAttributes`: the persisted properties whose values changed.
    var updatedAttributes: [any PartialKeyPath<Model> & Sendable] { get }
}

/// Mirrors SwiftData's `HistoryDelete`: a model deleted by a transaction, with its preserved values.
public protocol HistoryDelete<Model>: Hashable, Sendable {
    /// Mirrors `Model`.
    associatedtype Model: PersistentModel
    /// Mirrors `ChangeIdentifier`.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// Mirrors `TransactionIdentifier`.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// Mirrors `changeIdentifier`.
    var changeIdentifier: ChangeIdentifier { get }
    /// Mirrors `changedPersistentIdentifier`.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// Mirrors `transactionIdentifier`.
    var transactionIdentifier: TransactionIdentifier { get }
    /// Mirrors `tombstone`: the values of the properties marked `.preserveValueOnDeletion`.
    var tombstone: HistoryTombstone<Model> { get }
}

/// Mirrors SwiftData's `HistoryChange`: one change of a transaction.
public enum HistoryChange: Sendable {
    /// Mirrors `insert(_:)`.
    case insert(any HistoryInsert)
    /// Mirrors `update(_:)`.
    case update(any HistoryUpdate)
    /// Mirrors `delete(_:)`.
    case delete(any HistoryDelete)

    /// Mirrors `changedPersistentIdentifier`.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case .insert(let change): change.changedPersistentIdentifier
        case .update(let change): change.changedPersistentIdentifier
        case .delete(let change): change.changedPersistentIdentifier
        }
    }
}

/// Mirrors SwiftData's `HistoryTombstone`: the values a deleted model kept in history, by key path.
public struct HistoryTombstone<Model: PersistentModel>: Sendable {
    let values: [String: any Sendable]

    /// Mirrors `subscript(_:)`: the value of a property marked `.preserveValueOnDeletion`, else `nil`.
    public subscript(keyPath: PartialKeyPath<Model>) -> (any Sendable)? {
        ModelKeys.lookup(keyPath, in: Model.self).flatMap { values[$0] }
    }
}
