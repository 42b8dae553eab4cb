import Foundation

/// Mirrors `NSPersistentHistoryTransaction`: one save or batch request as persistent history recorded
/// it — when, by whom, from which context and process, and the objects it changed.
open class NSPersistentHistoryTransaction: NSObject, KeyValueCoding, @unchecked Sendable {
    /// Mirrors `timestamp`: when the transaction was written.
    open private(set) var timestamp: Date
    /// Mirrors `changes`: the objects it changed, in order (`nil` when the request asked for
    /// transactions only).
    open internal(set) var changes: [NSPersistentHistoryChange]?
    /// Mirrors `transactionNumber`: its number in the store, increasing.
    open private(set) var transactionNumber: Int64
    /// Mirrors `storeID`: the store's UUID.
    open private(set) var storeID: String
    /// Mirrors `bundleID`: the writing program's bundle identifier (its process name when it has none).
    open private(set) var bundleID: String
    /// Mirrors `processID`: the writing program's process name.
    open private(set) var processID: String
    /// Mirrors `contextName`: the saving context's `name`.
    open private(set) var contextName: String?
    /// Mirrors `author`: the saving context's `transactionAuthor`.
    open private(set) var author: String?
    /// Mirrors `token`: the history up to and including this transaction.
    open var token: NSPersistentHistoryToken { NSPersistentHistoryToken(storeID: storeID, transactionNumber: transactionNumber) }

    init(_ row: HistoryTransactionRow, storeID: String) {
        timestamp = row.timestamp
        transactionNumber = row.number
        self.storeID = storeID
        bundleID = row.bundleID ?? ""
        processID = row.processID ?? ""
        contextName = row.contextName
        author = row.author
        super.init()
    }

    /// Mirrors `objectIDNotification()`: a `DidSave`-style notification with the IDs of the objects this
    /// transaction inserted, updated and deleted (under `NSInsertedObjectsKey`… and the `…ObjectIDsKey`
    /// keys), for ``NSManagedObjectContext/mergeChanges(fromContextDidSave:)``. Empty when the
    /// transaction was fetched without its changes.
    open func objectIDNotification() -> Notification {
        var ids: [NSPersistentHistoryChangeType: Set<NSManagedObjectID>] = [.insert: [], .update: [], .delete: []]
        for change in changes ?? [] { ids[change.changeType]!.insert(change.changedObjectID) }
        return Notification(name: .contextDidSaveObjectIDs, object: nil, userInfo: [
            NSInsertedObjectsKey: ids[.insert]!, NSUpdatedObjectsKey: ids[.update]!, NSDeletedObjectsKey: ids[.delete]!,
            NSInsertedObjectIDsKey: ids[.insert]!, NSUpdatedObjectIDsKey: ids[.update]!, NSDeletedObjectIDsKey: ids[.delete]!,
        ])
    }

    /// Mirrors `entityDescription`: the entity a fetch request over transactions names (its attributes
    /// are this class's properties), for ``NSPersistentHistoryChangeRequest/fetchHistory(withFetch:)``.
    open class var entityDescription: NSEntityDescription? { HistoryEntities.transaction }

    /// Mirrors `entityDescription(with:)`: the same entity (it does not depend on the context here).
    open class func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? { HistoryEntities.transaction }

    /// Mirrors `fetchRequest`: a fetch request over transactions, to give a predicate and hand to
    /// ``NSPersistentHistoryChangeRequest/fetchHistory(withFetch:)``.
    open class var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = HistoryEntities.transaction
        return request
    }

    /// The property of `key`, for predicates over transactions.
    public func value(forKey key: String) -> Any? {
        switch key {
        case "timestamp": timestamp
        case "transactionNumber": transactionNumber
        case "storeID": storeID
        case "bundleID": bundleID
        case "processID": processID
        case "contextName": contextName
        case "author": author
        case "token": token
        case "changes": changes
        default: nil
        }
    }

    open override var description: String {
        "<NSPersistentHistoryTransaction: \(transactionNumber) at \(timestamp), author \(author ?? "nil"), context \(contextName ?? "nil"), \(changes?.count ?? 0) changes>"
    }
}

/// The entities fetch requests over history name (Core Data's `Transaction` and `Change`).
enum HistoryEntities {
    nonisolated(unsafe) static let transaction: NSEntityDescription = {
        NSEntityDescription(name: "Transaction", properties: [
            NSAttributeDescription(name: "timestamp", type: .dateAttributeType),
            NSAttributeDescription(name: "transactionNumber", type: .integer64AttributeType),
            NSAttributeDescription(name: "storeID", type: .stringAttributeType),
            NSAttributeDescription(name: "bundleID", type: .stringAttributeType),
            NSAttributeDescription(name: "processID", type: .stringAttributeType),
            NSAttributeDescription(name: "contextName", type: .stringAttributeType),
            NSAttributeDescription(name: "author", type: .stringAttributeType),
        ])
    }()

    nonisolated(unsafe) static let change: NSEntityDescription = {
        NSEntityDescription(name: "Change", properties: [
            NSAttributeDescription(name: "changeID", type: .integer64AttributeType),
            NSAttributeDescription(name: "changeType", type: .integer64AttributeType),
            NSAttributeDescription(name: "changedEntity", type: .stringAttributeType),
            NSAttributeDescription(name: "changedObjectID", type: .objectIDAttributeType),
        ])
    }()
}
