import Foundation
import OpenCoreData

extension ModelContext {
    /// Mirrors `fetchHistory(_:)`: the store's persistent history (Core Data's
    /// `NSPersistentHistoryChangeRequest`), in the order it was saved unless `sortBy` says otherwise; the
    /// predicate and sort run in memory over the transactions (docs/SwiftData.md, "History").
    /// Custom stores that keep a history (``HistoryProviding``) answer for their own changes.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        let bridges = container.dataStoreBridges
        if !bridges.isEmpty {
            let custom = try bridges.compactMap { try $0.history(descriptor, delete: false) }.flatMap { $0 }
            guard bridges.count < container.persistentStoreCoordinator.persistentStores.count else { return custom }
            return try custom + ownHistory(descriptor)
        }
        return try ownHistory(descriptor)
    }

    private func ownHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        guard T.self == DefaultHistoryTransaction.self else {
            throw SwiftDataError(.invalidTransactionFetchRequest, "the history's transactions are DefaultHistoryTransaction, not \(T.self)")
        }
        var transactions = try allTransactions() as! [T]
        if let predicate = descriptor.predicate { transactions = try transactions.filter { try predicate.evaluate($0) } }
        if !descriptor.sortBy.isEmpty { transactions.sort(using: descriptor.sortBy) }
        return descriptor.fetchLimit > 0 ? Array(transactions.prefix(Int(clamping: descriptor.fetchLimit))) : transactions
    }

    /// Mirrors `deleteHistory(_:)`: deletes the transactions the descriptor matches. Core Data deletes a
    /// store's history up to a transaction, so each store's history is deleted through the latest
    /// transaction matched there (the earlier ones with it).
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        let bridges = container.dataStoreBridges
        for bridge in bridges { _ = try bridge.history(descriptor, delete: true) }
        guard bridges.count < container.persistentStoreCoordinator.persistentStores.count else { return }
        var last: [String: Int64] = [:]
        for case let transaction as DefaultHistoryTransaction in try ownHistory(descriptor) {
            last[transaction.storeIdentifier] = max(last[transaction.storeIdentifier] ?? 0, transaction.transactionIdentifier)
        }
        for (store, number) in last {
            let token = NSPersistentHistoryToken(storeID: store, transactionNumber: number)
            try managedObjectContext.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: token))
        }
    }

    private func allTransactions() throws -> [DefaultHistoryTransaction] {
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
        let result = try managedObjectContext.execute(request)
        guard let transactions = (result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] else {
            throw SwiftDataError(.invalidTransactionFetchRequest, "the history request gave \(result), not transactions")
        }
        return transactions.map { transaction in
            let changes = (transaction.changes ?? []).compactMap {
                HistoryChangeMaking.change($0, transaction: transaction.transactionNumber, schema: container.schema)
            }
            return DefaultHistoryTransaction(transaction, changes: changes)
        }
    }
}
