import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Persistent history (issue 38, item 2): Core Data's `ATRANSACTION` / `ACHANGE` / `ATRANSACTIONSTRING`
/// tables read back from a store Core Data wrote with history on, and written by saves and batch
/// requests here; tokens, fetch and delete requests, their result types, tombstones, and merging a
/// transaction into a context whose controller then reports it.
@Suite("Persistent history")
struct PersistentHistoryTests {
    /// Note (title, body; title preserved in history on deletion) ↔ Folder.
    static func model() -> NSManagedObjectModel {
        let title = NSAttributeDescription(name: "title", type: .stringAttributeType)
        title.preservesValueInHistoryOnDeletion = true
        let note = NSEntityDescription(name: "Note", properties: [
            title, NSAttributeDescription(name: "body", type: .stringAttributeType),
            NSRelationshipDescription(name: "folder", destination: "Folder", inverse: "notes"),
        ])
        let folder = NSEntityDescription(name: "Folder", properties: [
            NSAttributeDescription(name: "name", type: .stringAttributeType),
            NSRelationshipDescription(name: "notes", destination: "Note", inverse: "folder", toMany: true),
        ])
        return NSManagedObjectModel(entities: [note, folder])
    }

    func container(_ store: TemporaryStore, tracking: Bool = true) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Notes", managedObjectModel: Self.model())
        let description = NSPersistentStoreDescription(url: store.url)
        if tracking { description.setOption(NSNumber(value: true), forKey: NSPersistentHistoryTrackingKey) }
        container.persistentStoreDescriptions = [description]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        return container
    }

    func history(_ context: NSManagedObjectContext, after token: NSPersistentHistoryToken? = nil,
                 _ type: NSPersistentHistoryResultType = .transactionsAndChanges) throws -> Any? {
        let request = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
        request.resultType = type
        return (try context.execute(request) as! NSPersistentHistoryResult).result
    }

    @Test("A store Core Data wrote with history on: its transaction and changes read back", arguments: [("SampleModel2_V1.sqlite", 5_468), ("SampleModel2_V2.sqlite", 126)])
    func appleWrittenHistory(store: String, changes: Int) throws {
        let model = try CompiledModelTests.sampleModel2(store)
        for entity in model.entities { entity.managedObjectClassName = "NSManagedObject" }
        let copy = try CompiledModelFixtures.copy(CompiledModelTests.sampleModel2.appendingPathComponent(store))
        defer { copy.cleanUp() }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: copy.url, options: [NSPersistentHistoryTrackingKey: true, NSReadOnlyPersistentStoreOption: true])
        let context = NSManagedObjectContext(.privateQueue)
        context.persistentStoreCoordinator = coordinator
        let transactions = try context.performAndWait { try history(context) } as! [NSPersistentHistoryTransaction]
        #expect(transactions.count == 1)
        let t = try #require(transactions.first)
        #expect(t.transactionNumber == 1 && t.bundleID == "com.apple.dt.xctest.tool" && t.processID == "xctest")
        #expect(t.author == nil && t.contextName == nil)
        #expect(abs(t.timestamp.timeIntervalSinceReferenceDate - (store.hasSuffix("V1.sqlite") ? 737057647.288022 : 737057651.681977)) < 0.001)
        #expect(t.changes?.count == changes)
        #expect(t.changes?.allSatisfy { $0.changeType == .insert && $0.transaction === t } == true)
        let pages = t.changes?.filter { $0.changedObjectID.entity.name == "Page" }.count ?? 0
        #expect(pages == (store.hasSuffix("V1.sqlite") ? 4_970 : 119))
        #expect(coordinator.currentPersistentHistoryToken(fromStores: nil) == t.token)
    }

    @Test("Saves record one transaction each: author, context name, inserts, updated properties, deletes with tombstones")
    func savesAreRecorded() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try self.container(store)
        let context = container.newBackgroundContext()
        context.name = "editor"
        context.transactionAuthor = "ada"
        try context.performAndWait { () throws in
            let folder = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context)
            folder.setValue("Inbox", forKey: "name")
            let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
            note.setValue("Hello", forKey: "title")
            note.setValue(folder, forKey: "folder")
            try context.save()
            note.setValue("World", forKey: "body")
            try context.save()
            context.delete(note)
            try context.save()
        }
        let transactions = try context.performAndWait { try history(context) } as! [NSPersistentHistoryTransaction]
        #expect(transactions.map(\.transactionNumber) == [1, 2, 3])
        #expect(transactions.allSatisfy { $0.author == "ada" && $0.contextName == "editor" && $0.processID == ProcessInfo.processInfo.processName })
        #expect(transactions[0].changes!.map { "\($0.changeType) \($0.changedObjectID.entity.name!)" }.sorted() == ["insert Folder", "insert Note"])
        let update = try #require(transactions[1].changes?.first)
        #expect(update.changeType == .update && update.updatedProperties?.map(\.name) == ["body"])
        let deletion = try #require(transactions[2].changes?.first { $0.changedObjectID.entity.name == "Note" })
        #expect(deletion.changeType == .delete && deletion.tombstone?["title"] as? String == "Hello")
        #expect(transactions[2].changes!.contains { $0.changeType == .update && $0.updatedProperties?.map(\.name) == ["notes"] })
        var rows: [String] = []
        try container.persistentStoreCoordinator.sqlite.read { db in
            try db.query("SELECT Z_ENT, ZCHANGETYPE, ZENTITY, hex(ZCOLUMNS), ZTOMBSTONE0 FROM ACHANGE WHERE ZTRANSACTIONID = 2") { row in
                rows.append((0..<5).map { "\(row.dynamicValue(Int32($0)))" }.joined(separator: " "))
            }
        }
        #expect(rows == ["int(16001) int(1) int(2) string(\"02\") null"])  // Note is entity 2 (Folder 1)
    }

    @Test("Tokens: the current one, fetching after it, secure coding, another store's token, expired tokens")
    func tokens() throws {
        let store = TemporaryStore(), other = TemporaryStore()
        defer { store.cleanUp(); other.cleanUp() }
        let container = try self.container(store), otherContainer = try self.container(other)
        let context = container.viewContext
        func note(_ title: String) throws {
            NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue(title, forKey: "title")
            try context.save()
        }
        #expect(container.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil)?.transactionNumber == 0)
        try note("a")
        let token = try #require(container.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil))
        try note("b")
        try note("c")
        let later = try history(context, after: token) as! [NSPersistentHistoryTransaction]
        #expect(later.map(\.transactionNumber) == [2, 3])
        let archived = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: archived))
        #expect(decoded == token)
        let foreign = try #require(otherContainer.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil))
        #expect(throws: (any Error).self) { try history(context, after: foreign) }
        let deletion = NSPersistentHistoryChangeRequest.deleteHistory(before: later[0].token)
        deletion.resultType = .count
        #expect(((try context.execute(deletion) as! NSPersistentHistoryResult).result as? NSNumber)?.intValue == 2)
        do {
            _ = try history(context, after: token)
            Issue.record("a token whose following history was deleted must be expired")
        } catch {
            #expect((error as NSError).code == NSPersistentHistoryTokenExpiredError)
        }
        #expect((try history(context, after: later[0].token) as! [NSPersistentHistoryTransaction]).map(\.transactionNumber) == [3])
    }

    @Test("Batch requests are recorded, with the context's author")
    func batchRequestsAreRecorded() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try self.container(store)
        let context = container.viewContext
        context.transactionAuthor = "importer"
        _ = try context.execute(NSBatchInsertRequest(entityName: "Note", objects: [["title": "x"], ["title": "y"]]))
        let update = NSBatchUpdateRequest(entityName: "Note")
        update.propertiesToUpdate = ["body": "b"]
        _ = try context.execute(update)
        _ = try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Note")))
        let transactions = try history(context) as! [NSPersistentHistoryTransaction]
        #expect(transactions.map { $0.changes!.map { "\($0.changeType)" } } == [["insert", "insert"], ["update", "update"], ["delete", "delete"]])
        #expect(transactions.allSatisfy { $0.author == "importer" })
        #expect(transactions[1].changes!.allSatisfy { $0.updatedProperties?.map(\.name) == ["body"] })
        #expect(transactions[2].changes!.compactMap { $0.tombstone?["title"] as? String }.sorted() == ["x", "y"])
    }

    @Test("A transaction's objectIDNotification merges into a context, and its controller reports the changes")
    func mergeFromHistory() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try self.container(store)
        let view = container.viewContext
        let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: view, sectionNameKeyPath: nil, cacheName: nil)
        let recorder = ChangeRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        let token = container.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil)
        _ = try view.execute(NSBatchInsertRequest(entityName: "Note", objects: [["title": "b"], ["title": "a"]]))
        for transaction in try history(view, after: token) as! [NSPersistentHistoryTransaction] {
            view.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
        }
        #expect(controller.fetchedObjects?.map { $0.value(forKey: "title") as! String } == ["a", "b"])
        #expect(recorder.changes.map(\.type) == [.insert, .insert])
    }

    @Test("Fetch requests over transactions and changes filter the history; every result type")
    func filtersAndResultTypes() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try self.container(store)
        let context = container.viewContext
        for (author, entity) in [("ada", "Note"), ("bo", "Folder"), ("ada", "Folder")] {
            context.transactionAuthor = author
            NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            try context.save()
        }
        let byAuthor = try #require(NSPersistentHistoryTransaction.fetchRequest)
        byAuthor.predicate = NSPredicate(format: "author == %@", "ada")
        let ada = (try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(withFetch: byAuthor)) as! NSPersistentHistoryResult).result as! [NSPersistentHistoryTransaction]
        #expect(ada.map(\.transactionNumber) == [1, 3])
        let byEntity = try #require(NSPersistentHistoryChange.fetchRequest)
        byEntity.predicate = NSPredicate(format: "changedEntity == 'Folder' AND changeType == %d", NSPersistentHistoryChangeType.insert.rawValue)
        let folders = (try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(withFetch: byEntity)) as! NSPersistentHistoryResult).result as! [NSPersistentHistoryTransaction]
        #expect(folders.map(\.transactionNumber) == [2, 3])
        #expect(NSPersistentHistoryTransaction.entityDescription?.name == "Transaction" && NSPersistentHistoryChange.entityDescription(with: context)?.name == "Change")
        #expect((try history(context, after: nil, .count) as? NSNumber)?.intValue == 3)
        #expect((try history(context, after: nil, .statusOnly) as? NSNumber)?.boolValue == true)
        #expect((try history(context, after: nil, .objectIDs) as? [NSManagedObjectID])?.map { $0.entity.name! } == ["Note", "Folder", "Folder"])
        #expect((try history(context, after: nil, .transactionsOnly) as? [NSPersistentHistoryTransaction])?.allSatisfy { $0.changes == nil } == true)
        let changes = try #require(try history(context, after: nil, .changesOnly) as? [NSPersistentHistoryChange])
        #expect(changes.map { $0.transaction?.transactionNumber } == [1, 2, 3])
        let since = NSPersistentHistoryChangeRequest.fetchHistory(after: Date.distantPast)
        #expect(((try context.execute(since) as! NSPersistentHistoryResult).result as! [NSPersistentHistoryTransaction]).count == 3)
        let afterFirst = NSPersistentHistoryChangeRequest.fetchHistory(after: ada[0])
        #expect(((try context.execute(afterFirst) as! NSPersistentHistoryResult).result as! [NSPersistentHistoryTransaction]).map(\.transactionNumber) == [2, 3])
        let dropBefore = NSPersistentHistoryChangeRequest.deleteHistory(before: ada[1])
        _ = try context.execute(dropBefore)
        #expect((try history(context) as! [NSPersistentHistoryTransaction]).map(\.transactionNumber) == [3])
        #expect(((try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: Date.distantFuture)) as! NSPersistentHistoryResult).result as? NSNumber)?.boolValue == true)
        #expect((try history(context) as! [NSPersistentHistoryTransaction]).isEmpty)
    }

    @Test("Without NSPersistentHistoryTrackingKey nothing is recorded and there is no token")
    func untracked() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try self.container(store, tracking: false)
        let context = container.viewContext
        NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
        try context.save()
        #expect(container.persistentStoreCoordinator.currentPersistentHistoryToken(fromStores: nil) == nil)
        #expect((try history(context) as! [NSPersistentHistoryTransaction]).isEmpty)
    }
}
