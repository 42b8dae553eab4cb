import Foundation
import OpenCoreData
import OpenSwiftData
import Testing

@Model final class Journal {
    @Attribute(.preserveValueOnDeletion) var title: String
    var pages: Int

    init(title: String, pages: Int) {
        self.title = title
        self.pages = pages
    }
}

/// SwiftData's history over the store's persistent history: each change kind, authors, tokens, deletion.
@Suite struct HistoryTests {
    /// A context over a new store where "writer" inserted, updated and deleted a journal, one save each.
    func journaled() throws -> (ModelContext, PersistentIdentifier) {
        let container = try ModelContainer(for: Journal.self, configurations: ModelConfiguration(url: temporaryStoreURL()))
        let context = ModelContext(container)
        context.author = "writer"
        let journal = Journal(title: "Diary", pages: 10)
        context.insert(journal)
        try context.save()
        journal.pages = 12
        try context.save()
        let identifier = journal.persistentModelID
        context.delete(journal)
        try context.save()
        return (context, identifier)
    }

    @Test func eachChangeKindIsReadWithItsModelType() throws {
        let (context, identifier) = try journaled()
        let transactions = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(transactions.count == 3)
        #expect(transactions.allSatisfy { $0.author == "writer" && !$0.bundleIdentifier.isEmpty && !$0.processIdentifier.isEmpty })
        #expect(Set(transactions.map(\.storeIdentifier)) == [context.container.persistentStoreCoordinator.persistentStores[0].identifier!])
        #expect(transactions.map(\.transactionIdentifier) == transactions.map(\.transactionIdentifier).sorted())
        guard transactions.count == 3, case .insert(let insert as DefaultHistoryInsert<Journal>) = transactions[0].changes.first,
              case .update(let update as DefaultHistoryUpdate<Journal>) = transactions[1].changes.first,
              case .delete(let delete as DefaultHistoryDelete<Journal>) = transactions[2].changes.first else {
            Issue.record("expected an insert, an update and a delete of Journal: \(transactions.map(\.changes))")
            return
        }
        #expect(insert.changedPersistentIdentifier == identifier && insert.transactionIdentifier == transactions[0].transactionIdentifier)
        #expect(update.containsAttribute(\Journal.pages) && !update.containsAttribute(\Journal.title))
        #expect(update.updatedAttributes.count == 1)
        #expect(delete.tombstone[\Journal.title] as? String == "Diary")
        #expect(delete.tombstone[\Journal.pages] == nil)
        #expect(transactions.allSatisfy { $0.changes.map(\.changedPersistentIdentifier) == [identifier] })
    }

    @Test func aTokenPredicateFetchesWhatCameAfterIt() throws {
        let (context, _) = try journaled()
        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let token = all[0].token
        let later = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token }))
        #expect(later.map(\.transactionIdentifier) == all.dropFirst().map(\.transactionIdentifier))
        var newestFirst = HistoryDescriptor<DefaultHistoryTransaction>(sortBy: [SortDescriptor(\.transactionIdentifier, order: .reverse)])
        newestFirst.fetchLimit = 1
        #expect(try context.fetchHistory(newestFirst).map(\.transactionIdentifier) == [all[2].transactionIdentifier])
        let decoded = try JSONDecoder().decode(DefaultHistoryToken.self, from: JSONEncoder().encode(token))
        #expect(decoded == token && token < all[2].token && !(all[2].token < token))
    }

    @Test func anAuthorPredicateFindsThatAuthorsSaves() throws {
        let (context, _) = try journaled()
        context.author = "importer"
        context.insert(Journal(title: "Imported", pages: 1))
        try context.save()
        let imported = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "importer" }))
        #expect(imported.count == 1)
        #expect(imported.first?.changes.count == 1)
    }

    @Test func deleteHistoryRemovesTheMatchedTransactions() throws {
        let (context, _) = try journaled()
        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let token = all[1].token
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= token }))
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map(\.transactionIdentifier) == [all[2].transactionIdentifier])
    }
}
