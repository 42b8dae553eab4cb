import Foundation

/// Mirrors `NSPersistentHistoryTrackingKey`: a store option (`true` as an `NSNumber`) that makes the
/// SQLite store record persistent history — one ``NSPersistentHistoryTransaction`` per save or batch
/// request, in Core Data's own tables (`ATRANSACTION`, `ACHANGE`, `ATRANSACTIONSTRING`).
public let NSPersistentHistoryTrackingKey = "NSPersistentHistoryTrackingKey"

/// Mirrors `NSPersistentHistoryTokenKey`: the key of an ``NSPersistentHistoryToken`` in a remote change
/// notification's `userInfo`.
public let NSPersistentHistoryTokenKey = "historyToken"

/// Mirrors `NSPersistentStoreURLKey`: the key of the store's URL in a remote change notification's
/// `userInfo`.
public let NSPersistentStoreURLKey = "storeURL"
