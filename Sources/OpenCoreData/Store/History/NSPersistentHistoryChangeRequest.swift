import Foundation

/// Mirrors `NSPersistentHistoryResultType`: what executing an ``NSPersistentHistoryChangeRequest`` returns.
public enum NSPersistentHistoryResultType: Int, Sendable {
    /// Mirrors `statusOnly`: `true`.
    case statusOnly = 0
    /// Mirrors `objectIDs`: the IDs of the changed objects, `[NSManagedObjectID]`, in change order.
    case objectIDs = 1
    /// Mirrors `count`: how many transactions were fetched or deleted (an `NSNumber`).
    case count = 2
    /// Mirrors `transactionsOnly`: the transactions, their `changes` `nil`.
    case transactionsOnly = 3
    /// Mirrors `changesOnly`: the changes, `[NSPersistentHistoryChange]`.
    case changesOnly = 4
    /// Mirrors `transactionsAndChanges`: the transactions with their changes.
    case transactionsAndChanges = 5
}

/// Mirrors `NSPersistentHistoryChangeRequest`: fetches a store's persistent history after a point, or
/// deletes it before one; run it with a context's `execute(_:)`. The result is an
/// ``NSPersistentHistoryResult`` whose `result` the ``resultType`` decides.
///
/// A token marks the history up to and including its transaction: `fetchHistory(after: token)` returns
/// the later transactions, and `deleteHistory(before: token)` deletes the token's transaction and the
/// earlier ones (what a fetch after that token no longer needs). A date compares with transactions'
/// timestamps (strictly after, strictly before); a transaction marks its own number (after it; before
/// it, itself kept). A token of another store, or one whose following history was deleted
/// (`NSPersistentHistoryTokenExpiredError`), is an error. Final here (Core Data's class is open, but its
/// factory methods return `Self`, which a subclass could not make without a public initializer).
public final class NSPersistentHistoryChangeRequest: NSPersistentStoreRequest, @unchecked Sendable {
    enum Operation {
        case fetch(after: Bound)
        case delete(before: Bound)
    }
    enum Bound {
        case date(Date)
        case token(NSPersistentHistoryToken?)
        case transaction(NSPersistentHistoryTransaction?)
        case all
    }

    let operation: Operation

    /// Mirrors `resultType` (default ``NSPersistentHistoryResultType/transactionsAndChanges``).
    public var resultType: NSPersistentHistoryResultType = .transactionsAndChanges
    /// Mirrors `token`: the token a request made with one starts after (or deletes before).
    public var token: NSPersistentHistoryToken? {
        switch operation {
        case .fetch(.token(let t)), .delete(.token(let t)): t
        default: nil
        }
    }
    /// Mirrors `fetchRequest`: a fetch request over ``NSPersistentHistoryTransaction/entityDescription``
    /// or ``NSPersistentHistoryChange/entityDescription`` whose predicate keeps only some transactions or
    /// changes (evaluated on the history read; a transaction is kept when one of its changes is, with
    /// those changes).
    public var fetchRequest: NSFetchRequest<NSFetchRequestResult>?

    init(_ operation: Operation) {
        self.operation = operation
        super.init()
    }

    /// Mirrors `fetchHistory(after:)` with a date: the transactions written after it.
    public class func fetchHistory(after date: Date) -> Self { Self(.fetch(after: .date(date))) }
    /// Mirrors `fetchHistory(after:)` with a token: the transactions after the token's (all of them for `nil`).
    public class func fetchHistory(after token: NSPersistentHistoryToken?) -> Self { Self(.fetch(after: .token(token))) }
    /// Mirrors `fetchHistory(after:)` with a transaction: the transactions after it (all for `nil`).
    public class func fetchHistory(after transaction: NSPersistentHistoryTransaction?) -> Self { Self(.fetch(after: .transaction(transaction))) }
    /// Mirrors `fetchHistory(withFetch:)`: every transaction the fetch request's predicate keeps.
    public class func fetchHistory(withFetch fetchRequest: NSFetchRequest<NSFetchRequestResult>) -> Self {
        let request = Self(.fetch(after: .all))
        request.fetchRequest = fetchRequest
        return request
    }
    /// Mirrors `deleteHistory(before:)` with a date: the transactions written before it.
    public class func deleteHistory(before date: Date) -> Self { Self(.delete(before: .date(date))) }
    /// Mirrors `deleteHistory(before:)` with a token: the token's transaction and the earlier ones.
    public class func deleteHistory(before token: NSPersistentHistoryToken?) -> Self { Self(.delete(before: .token(token))) }
    /// Mirrors `deleteHistory(before:)` with a transaction: the transactions before it.
    public class func deleteHistory(before transaction: NSPersistentHistoryTransaction?) -> Self { Self(.delete(before: .transaction(transaction))) }
}

/// Mirrors `NSPersistentHistoryResult`: what executing an ``NSPersistentHistoryChangeRequest`` returned.
open class NSPersistentHistoryResult: NSPersistentStoreResult, @unchecked Sendable {
    /// Mirrors `result`: as the request's ``NSPersistentHistoryChangeRequest/resultType`` says.
    open private(set) var result: Any?
    /// Mirrors `resultType`.
    open private(set) var resultType: NSPersistentHistoryResultType

    init(result: Any?, resultType: NSPersistentHistoryResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}
