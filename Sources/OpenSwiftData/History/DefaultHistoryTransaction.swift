import Foundation
import OpenCoreData

/// Mirrors SwiftData's `DefaultHistoryToken`: a position in each store's history (the number of its
/// last transaction there). Tokens order by those numbers: `a < b` when `b` is at or after `a` in every
/// store `a` names, and after it in one.
public struct DefaultHistoryToken: HistoryToken, Comparable, Identifiable {
    /// Mirrors `TokenType`: transaction numbers by store identifier.
    public typealias TokenType = [String: Int64]
    /// Mirrors `tokenValue`.
    public let tokenValue: TokenType?
    /// Mirrors `storeIdentifier`: the store of a one-store token (the first store's otherwise).
    public var storeIdentifier: String { tokenValue?.keys.sorted().first ?? "" }
    /// The token itself (`Identifiable`).
    public var id: DefaultHistoryToken { self }

    init(store: String, transaction: Int64) { tokenValue = [store: transaction] }

    /// Before: `rhs` at or after `lhs` in each store of `lhs`, and after it in one.
    public static func < (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool {
        let (l, r) = (lhs.tokenValue ?? [:], rhs.tokenValue ?? [:])
        guard !l.isEmpty else { return !r.isEmpty }
        return l.allSatisfy { store, number in r[store].map { $0 >= number } ?? false } && l.contains { r[$0.key]! > $0.value }
    }
}

/// Mirrors SwiftData's `DefaultHistoryTransaction`: a transaction of the store's persistent history
/// (Core Data's `NSPersistentHistoryTransaction`).
public struct DefaultHistoryTransaction: HistoryTransaction {
    /// Mirrors `TokenType`.
    public typealias TokenType = DefaultHistoryToken
    /// Mirrors `TransactionIdentifier`: the transaction's number in its store.
    public typealias TransactionIdentifier = Int64
    /// Mirrors `bundleIdentifier`: the saving process's bundle identifier (its name without one).
    public let bundleIdentifier: String
    /// Mirrors `processIdentifier`.
    public let processIdentifier: String
    /// Mirrors `author`.
    public let author: String?
    /// Mirrors `changes`.
    public let changes: [HistoryChange]
    /// Mirrors `storeIdentifier`.
    public let storeIdentifier: String
    /// Mirrors `timestamp`.
    public let timestamp: Date
    /// Mirrors `token`.
    public let token: DefaultHistoryToken
    /// Mirrors `transactionIdentifier`.
    public let transactionIdentifier: Int64

    init(_ transaction: NSPersistentHistoryTransaction, changes: [HistoryChange]) {
        (bundleIdentifier, processIdentifier, author) = (transaction.bundleID, transaction.processID, transaction.author)
        (storeIdentifier, timestamp, transactionIdentifier) = (transaction.storeID, transaction.timestamp, transaction.transactionNumber)
        token = DefaultHistoryToken(store: transaction.storeID, transaction: transaction.transactionNumber)
        self.changes = changes
    }
}
