import Foundation
import OpenCoreData
import Testing

/// Persistent history: with `NSPersistentHistoryTrackingKey`, each save is a transaction (author, changes)
/// after the previous token, and history can be deleted. A store that keeps no history refuses history
/// requests with `NSPersistentStoreUnsupportedRequestTypeError` and has no token.
@Suite("Conformance: persistent history")
struct ConformanceHistoryTests {
    static var tracking: [AnyHashable: Any] { [NSPersistentHistoryTrackingKey: true] }

    static func transactions(_ request: NSPersistentHistoryChangeRequest, _ context: NSManagedObjectContext) throws -> [NSPersistentHistoryTransaction] {
        try (context.execute(request) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
    }

    @Test(arguments: StoreUnderTest.with(.persistentHistory))
    func savesAreTransactionsAfterATokenAndCanBeDeleted(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let coordinator = try place.coordinator(options: Self.tracking)
        let context = StorePlace.context(of: coordinator)
        context.transactionAuthor = "importer"
        try ConformanceModel.seedAuthors(context)
        let token = try #require(coordinator.currentPersistentHistoryToken(fromStores: nil))
        try context.performAndWait { () throws in
            let grace = try #require(try context.fetch(ConformanceModel.request("Author", "name == 'Grace'")).first)
            grace.setValue("Grace H.", forKey: "name")
            try context.save()
            let all = try Self.transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?), context)
            #expect(all.count == 2 && all.allSatisfy { $0.author == "importer" })
            #expect(all.first?.changes?.filter { $0.changeType == .insert }.count == 6)
            let later = try Self.transactions(.fetchHistory(after: token), context)
            let change = try #require(later.first?.changes?.first)
            #expect(later.count == 1 && later[0].changes?.count == 1)
            #expect(change.changeType == .update && change.changedObjectID == grace.objectID)
            #expect(change.updatedProperties?.map(\.name) == ["name"])
            _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: token))
            #expect(try Self.transactions(.fetchHistory(after: nil as NSPersistentHistoryToken?), context).count == 1)
        }
    }

    @Test(arguments: StoreUnderTest.without(.persistentHistory))
    func historyRequestsAreRefused(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let coordinator = try place.coordinator(options: Self.tracking)
        let context = StorePlace.context(of: coordinator)
        try ConformanceModel.seedAuthors(context)
        #expect(coordinator.currentPersistentHistoryToken(fromStores: nil) == nil)
        context.performAndWait {
            for request in [NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?), .deleteHistory(before: nil as NSPersistentHistoryToken?)] {
                let error = #expect(throws: CoreDataError.self) { try context.execute(request) }
                #expect(error?.code == NSPersistentStoreUnsupportedRequestTypeError)
            }
        }
    }
}
