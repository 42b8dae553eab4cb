import Foundation

/// Mirrors `NSPersistentHistoryChangeType`: what a change did to its object.
public enum NSPersistentHistoryChangeType: Int, Sendable {
    /// Mirrors `insert`.
    case insert = 0
    /// Mirrors `update`.
    case update = 1
    /// Mirrors `delete`.
    case delete = 2
}

/// Mirrors `NSPersistentHistoryChange`: one object a transaction inserted, updated or deleted.
open class NSPersistentHistoryChange: NSObject, KeyValueCoding, @unchecked Sendable {
    /// Mirrors `changeID`: the change's number in the store, increasing.
    open private(set) var changeID: Int64
    /// Mirrors `changeType`.
    open private(set) var changeType: NSPersistentHistoryChangeType
    /// Mirrors `changedObjectID`: the object's ID (of a deleted object, too).
    open private(set) var changedObjectID: NSManagedObjectID
    /// Mirrors `updatedProperties`: for an update, the properties whose values changed (attributes and
    /// relationships); `nil` for inserts and deletes.
    open private(set) var updatedProperties: Set<NSPropertyDescription>?
    /// Mirrors `tombstone`: for a delete, the values of the entity's attributes marked
    /// `preservesValueInHistoryOnDeletion` when the object was deleted, by name (`NSNull` for nil);
    /// `nil` otherwise, or when the entity preserves none.
    open private(set) var tombstone: [AnyHashable: Any]?
    /// Mirrors `transaction`: the transaction it belongs to.
    open var transaction: NSPersistentHistoryTransaction? { ownedTransaction ?? listingTransaction }
    /// The transaction, held weakly when the transaction lists this change (it holds its changes), and
    /// strongly when the change was fetched on its own (`changesOnly`).
    weak var listingTransaction: NSPersistentHistoryTransaction?
    var ownedTransaction: NSPersistentHistoryTransaction?

    init(_ row: HistoryChangeRow, objectID: NSManagedObjectID, layout: EntityLayout) {
        changeID = row.id
        changeType = NSPersistentHistoryChangeType(rawValue: Int(row.kind)) ?? .update
        changedObjectID = objectID
        if changeType == .update {
            updatedProperties = Set((row.columns ?? []).compactMap { $0 < layout.properties.count ? layout.properties[$0] : nil })
        }
        let slots = layout.historyTombstoneSlots
        if changeType == .delete, !slots.isEmpty {
            var stone: [AnyHashable: Any] = [:]
            for (slot, value) in zip(slots, row.tombstone) { stone[layout.properties[slot].name] = value.anyValue ?? NSNull() }
            tombstone = stone
        }
        super.init()
    }

    /// Mirrors `entityDescription`: the entity a fetch request over changes names, for
    /// ``NSPersistentHistoryChangeRequest/fetchHistory(withFetch:)``.
    open class var entityDescription: NSEntityDescription? { HistoryEntities.change }

    /// Mirrors `entityDescription(with:)`: the same entity (it does not depend on the context here).
    open class func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? { HistoryEntities.change }

    /// Mirrors `fetchRequest`: a fetch request over changes, to give a predicate (`changeType`,
    /// `changedEntity` — the changed object's entity name —, `changedObjectID`, `changeID`) and hand to
    /// ``NSPersistentHistoryChangeRequest/fetchHistory(withFetch:)``.
    open class var fetchRequest: NSFetchRequest<NSFetchRequestResult>? {
        let request = NSFetchRequest<NSFetchRequestResult>()
        request.entity = HistoryEntities.change
        return request
    }

    /// The property of `key`, for predicates over changes.
    public func value(forKey key: String) -> Any? {
        switch key {
        case "changeID": changeID
        case "changeType": changeType.rawValue
        case "changedObjectID": changedObjectID
        case "changedEntity": changedObjectID.entity.name
        case "updatedProperties": updatedProperties
        case "tombstone": tombstone
        case "transaction": transaction
        default: nil
        }
    }

    open override var description: String {
        "<NSPersistentHistoryChange: \(changeID) \(changeType) \(changedObjectID.entity.name ?? "?") \(changedObjectID.key)>"
    }
}
