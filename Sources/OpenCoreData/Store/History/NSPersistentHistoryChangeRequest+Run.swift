import Foundation

extension NSPersistentHistoryChangeRequest: ExecutableRequest {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        guard let coordinator = context.persistentStoreCoordinator else {
            throw CoreDataError(NSPersistentStoreOperationError, "The context has no persistent store coordinator to read history from.")
        }
        let stores = try historyStores(coordinator)
        switch operation {
        case .delete(let bound):
            var count = 0
            for store in stores { count += try store.deleteHistory(try deleteBound(bound, store)) }
            return NSPersistentHistoryResult(result: resultType == .count ? NSNumber(value: count) : NSNumber(value: true), resultType: resultType)
        case .fetch(let bound):
            var transactions: [NSPersistentHistoryTransaction] = []
            for store in stores { transactions += try fetch(bound, store, coordinator.managedObjectModel) }
            return result(filtered(transactions))
        }
    }

    /// The stores keeping history the request reads (its `affectedStores`, else every such store). A
    /// request that reaches stores of which none keeps history (atomic and incremental stores) is refused,
    /// not answered with an empty history.
    private func historyStores(_ coordinator: NSPersistentStoreCoordinator) throws -> [any HistoryStore] {
        let reached = coordinator.persistentStores.filter { reaches($0) }
        let stores = reached.compactMap { $0.backend as? HistoryStore }
        if stores.isEmpty, let store = reached.first {
            throw CoreDataError(NSPersistentStoreUnsupportedRequestTypeError,
                                "Persistent history is kept by SQLite and in-memory stores only; the request reaches a store of type \(store.type) at \(store.url?.path ?? "no URL").")
        }
        if case .fetch(.token(let token?)) = operation, !stores.contains(where: { $0.identifier == token.storeID }) {
            throw CoreDataError(NSPersistentStoreOperationError, "The history token names store \(token.storeID), which is not one of the coordinator's stores.")
        }
        return stores
    }

    private func fetchBound(_ bound: Bound, _ store: any HistoryStore) -> HistoryBound? {
        switch bound {
        case .date(let date): return .afterDate(date)
        case .token(let token?): return token.storeID == store.identifier ? .afterToken(token.transactionNumber) : nil
        case .transaction(let t?): return t.storeID == store.identifier ? .afterNumber(t.transactionNumber) : nil
        case .token(nil), .transaction(nil), .all: return .afterNumber(0)
        }
    }

    private func deleteBound(_ bound: Bound, _ store: any HistoryStore) throws -> HistoryBound {
        switch bound {
        case .date(let date): return .beforeDate(date)
        case .token(let token?):
            guard token.storeID == store.identifier else { return .beforeNumber(0) }
            return .throughNumber(token.transactionNumber)
        case .transaction(let t?): return t.storeID == store.identifier ? .beforeNumber(t.transactionNumber) : .beforeNumber(0)
        case .token(nil), .transaction(nil), .all: return .throughNumber(Int64.max)
        }
    }

    /// One store's transactions after the bound, with their changes unless only transactions are asked for.
    private func fetch(_ bound: Bound, _ store: any HistoryStore, _ model: NSManagedObjectModel) throws -> [NSPersistentHistoryTransaction] {
        guard let historyBound = fetchBound(bound, store) else { return [] }
        let transactions = try store.historyTransactions(historyBound).map { NSPersistentHistoryTransaction($0, storeID: store.identifier) }
        guard resultType != .transactionsOnly || fetchRequest != nil else { return transactions }
        let byNumber = Dictionary(uniqueKeysWithValues: transactions.map { ($0.transactionNumber, $0) })
        var lists: [Int64: [NSPersistentHistoryChange]] = [:]
        for row in try store.historyChanges(transactions.map(\.transactionNumber)) {
            guard let entity = model.entity(number: row.entityID), let layout = entity.layout else { continue }
            let id = NSManagedObjectID(entity: entity, key: .permanent(root: layout.rootEntityID, pk: row.pk), storeIdentifier: store.identifier)
            let change = NSPersistentHistoryChange(row, objectID: id, layout: layout)
            change.listingTransaction = byNumber[row.transaction]
            lists[row.transaction, default: []].append(change)
        }
        for t in transactions { t.changes = lists[t.transactionNumber] ?? [] }
        return transactions
    }

    /// The transactions (and changes) the fetch request's predicate keeps.
    private func filtered(_ transactions: [NSPersistentHistoryTransaction]) -> [NSPersistentHistoryTransaction] {
        guard let request = fetchRequest, let predicate = request.predicate else { return transactions }
        if request.entity === HistoryEntities.change || request.entityName == HistoryEntities.change.name {
            return transactions.compactMap { t in
                let kept = (t.changes ?? []).filter { predicate.evaluate(with: $0) }
                guard !kept.isEmpty else { return nil }
                t.changes = kept
                return t
            }
        }
        return transactions.filter { predicate.evaluate(with: $0) }
    }

    private func result(_ transactions: [NSPersistentHistoryTransaction]) -> NSPersistentHistoryResult {
        let value: Any
        switch resultType {
        case .statusOnly: value = NSNumber(value: true)
        case .count: value = NSNumber(value: transactions.count)
        case .objectIDs: value = transactions.flatMap { ($0.changes ?? []).map(\.changedObjectID) }
        case .transactionsOnly:
            for t in transactions { t.changes = nil }
            value = transactions
        case .changesOnly:
            value = transactions.flatMap { t in (t.changes ?? []).map { change in change.ownedTransaction = t; return change } }
            for t in transactions { t.changes = nil }
        case .transactionsAndChanges: value = transactions
        }
        return NSPersistentHistoryResult(result: value, resultType: resultType)
    }
}

extension NSPersistentStoreCoordinator {
    /// Mirrors `currentPersistentHistoryToken(fromStores:)`: the token of the last transaction of the
    /// given stores (`nil`: every store) — of the first store among them that records history;
    /// `nil` when none does.
    public func currentPersistentHistoryToken(fromStores stores: [Any]?) -> NSPersistentHistoryToken? {
        let candidates = (stores?.compactMap { $0 as? NSPersistentStore } ?? persistentStores).compactMap { $0.backend as? HistoryStore }
        for store in candidates {
            if let number = try? store.lastHistoryNumber() { return NSPersistentHistoryToken(storeID: store.identifier, transactionNumber: number) }
        }
        return nil
    }
}
