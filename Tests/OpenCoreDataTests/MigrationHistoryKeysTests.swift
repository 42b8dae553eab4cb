import Foundation
import Testing
@testable import OpenCoreData

/// A store keeping persistent history, migrated in place: its history's key counters survive, so the next
/// save records transaction N+1 (it reused key 1 and failed with a UNIQUE violation on ATRANSACTION).
@Suite struct MigrationHistoryKeysTests {
    static func model(withStars: Bool) -> NSManagedObjectModel {
        var properties: [NSPropertyDescription] = [NSAttributeDescription(name: "text", type: .stringAttributeType)]
        if withStars { properties.append(NSAttributeDescription(name: "stars", type: .integer64AttributeType, defaultValue: 1)) }
        return NSManagedObjectModel(entities: [NSEntityDescription(name: "Note", properties: properties)])
    }

    /// A context over the store at `url`, migrated from `source` if the store is of that model.
    func context(_ model: NSManagedObjectModel, url: URL, source: NSManagedObjectModel? = nil) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [
            NSPersistentHistoryTrackingKey: true, NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        ], knownSource: source)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    func saveNote(_ text: String, in context: NSManagedObjectContext) throws {
        let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
        note.setValue(text, forKey: "text")
        try context.save()
    }

    @Test func aMigratedStoreRecordsItsNextTransactionAfterTheOldOnes() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("history-keys-\(UUID().uuidString).sqlite")
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) } }
        let source = Self.model(withStars: false)
        do {
            let old = try context(source, url: url)
            try saveNote("one", in: old)
            try saveNote("two", in: old)
        }
        let migrated = try context(Self.model(withStars: true), url: url, source: source)
        try saveNote("three", in: migrated)
        let result = try migrated.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
        let transactions = try #require((result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction])
        #expect(transactions.map(\.transactionNumber) == [1, 2, 3])
    }
}
