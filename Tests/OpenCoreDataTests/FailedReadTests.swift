import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Issue #47, item 5: a read of the store that fails never becomes data. Where the API throws, it
/// throws the store's error; where it cannot (a property's getter, a to-many's members, a merge,
/// `refresh(_:mergeChanges:)`, an index of a batched fetch's array), the process stops with the store's
/// error and the object's ID, as Core Data raises (checked in a child process: Swift Testing exit tests).
/// No failure shows as nil, an empty set or a deleted object. Reads fail for real: another connection
/// holds the file's lock past the store's busy timeout, or the file is cut short under an open store.
@Suite("Failed reads")
struct FailedReadTests {
    // MARK: - Fixtures

    /// A container on `file` in rollback-journal mode (where another connection's exclusive lock keeps
    /// readers out) with a busy timeout of 50 ms.
    static func container(_ file: TemporaryStore, _ model: NSManagedObjectModel = makeProductsModel()) throws -> NSPersistentContainer {
        let description = NSPersistentStoreDescription(url: file.url)
        description.timeout = 0.05
        description.setValue("DELETE" as NSString, forPragmaNamed: "journal_mode")
        let container = NSPersistentContainer(name: "Test", managedObjectModel: model)
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    /// Three saved products (`product-0`…) and a context whose faults read the store, not the row cache
    /// (`stalenessInterval` 0); the products' IDs.
    static func products() throws -> (TemporaryStore, NSPersistentContainer, NSManagedObjectContext, [NSManagedObjectID]) {
        let file = TemporaryStore()
        let container = try container(file)
        let writer = container.newBackgroundContext()
        let ids = try writer.performAndWait {
            let products = (0..<3).map { i in
                let p = Products(context: writer)
                p.name = "product-\(i)"
                p.price = Int32(i)
                return p
            }
            try writer.save()
            return products.map(\.objectID)
        }
        let context = container.viewContext
        context.stalenessInterval = 0
        return (file, container, context, ids)
    }

    /// The zoo, saved; a context (as ``products()``'s) and the Atelidae classification, loaded there
    /// with its `animals` still a fault.
    static func zoo(denyingDelete: Bool = false) throws -> (TemporaryStore, NSPersistentContainer, NSManagedObjectContext, Classification) {
        let file = TemporaryStore()
        let model = ZooModel.make()
        if denyingDelete { model.entitiesByName["Classification"]!.relationshipsByName["animals"]!.deleteRule = .denyDeleteRule }
        let container = try container(file, model)
        let writer = container.newBackgroundContext()
        try writer.performAndWait {
            ZooModel.seed(writer)
            try writer.save()
        }
        let context = container.viewContext
        context.stalenessInterval = 0
        let request = NSFetchRequest<Classification>(entityName: "Classification")
        request.predicate = NSPredicate(format: "family == %@", "Atelidae")
        request.returnsObjectsAsFaults = false
        let atelidae = try #require(try context.fetch(request).first)
        #expect(atelidae.hasFault(forRelationshipNamed: "animals"))
        return (file, container, context, atelidae)
    }

    static func stderr(_ result: ExitTest.Result?) -> String {
        String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    }

    // MARK: - Faults

    @Test func aFaultWhoseReadFailsStopsWithTheStoresErrorAndItsID() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (file, _, context, ids) = try Self.products()
            let product = try #require(context.object(with: ids[1]) as? Products)
            let lock = try FileLock(file.url)
            print(product.name ?? "nil")  // stops here
            try lock.release()
        }
        let text = Self.stderr(result)
        #expect(text.contains("could not fulfill a fault"))
        #expect(text.contains("x-coredata://"))
        #expect(text.contains("/Products/p2"))
        #expect(text.contains("database is locked"))
    }

    @Test func existingObjectThrowsTheStoresErrorAndTheFaultStaysAFault() throws {
        let (file, _, context, ids) = try Self.products()
        defer { file.cleanUp() }
        let fault = context.object(with: ids[1])
        let lock = try FileLock(file.url)
        #expect { try context.existingObject(with: ids[1]) } throws: { error in
            (error as NSError).code == NSSQLiteError && "\(error)".contains("database is locked")
        }
        // Neither a deleted object nor a row that is gone: still a fault, which reads once the store answers.
        #expect(fault.isFault)
        #expect(!fault.isDeleted)
        #expect(context.deletedObjects.isEmpty)
        try lock.release()
        let product = try #require(try context.existingObject(with: ids[1]) as? Products)
        #expect(product === fault)
        #expect(product.name == "product-1")
    }

    /// A child context reads its faults through its parent: the parent's store error reaches the child,
    /// whose fault stays a fault (before: a row "gone", the object deleted).
    @Test func aChildReadingThroughItsFailingParentThrows() throws {
        let (file, _, parent, ids) = try Self.products()
        defer { file.cleanUp() }
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = parent
        _ = parent.object(with: ids[0])  // a fault in the parent, which reads the store
        let lock = try FileLock(file.url)
        try child.performAndWait {
            let fault = child.object(with: ids[0])
            #expect { try child.existingObject(with: ids[0]) } throws: { ($0 as NSError).code == NSSQLiteError }
            #expect(fault.isFault)
            #expect(!fault.isDeleted)
            try lock.release()
            #expect((try child.existingObject(with: ids[0]) as? Products)?.name == "product-0")
        }
    }

    @Test func aFetchOfALockedStoreThrows() throws {
        let (file, _, context, _) = try Self.products()
        defer { file.cleanUp() }
        let lock = try FileLock(file.url)
        let request = NSFetchRequest<Products>(entityName: "Products")
        #expect { try context.fetch(request) } throws: { ($0 as NSError).code == NSSQLiteError }
        #expect { try context.count(for: request) } throws: { ($0 as NSError).code == NSSQLiteError }
        try lock.release()
        #expect(try context.fetch(request).count == 3)
    }

    /// A row that is really gone is not a failure: the object follows `shouldDeleteInaccessibleFaults`,
    /// as before.
    @Test func aRowThatIsGoneIsStillAnInaccessibleFault() throws {
        let (file, container, context, ids) = try Self.products()
        defer { file.cleanUp() }
        let kept = try #require(context.object(with: ids[0]) as? Products)
        let deleted = try #require(context.object(with: ids[1]) as? Products)
        let other = container.newBackgroundContext()
        try other.performAndWait {
            other.delete(try other.existingObject(with: ids[0]))
            other.delete(try other.existingObject(with: ids[1]))
            try other.save()
        }
        context.shouldDeleteInaccessibleFaults = false
        #expect(kept.name == nil)
        #expect(!kept.isDeleted)
        context.shouldDeleteInaccessibleFaults = true
        #expect(deleted.name == nil)
        #expect(deleted.isDeleted)
        #expect(context.deletedObjects.contains(deleted))
    }

    // MARK: - To-many relationships, merges, refreshes

    @Test func aToManyWhoseReadFailsStopsWithTheStoresErrorAndItsID() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try Self.readAnimalsOfLockedStore()
        }
        let text = Self.stderr(result)
        #expect(text.contains("reading animals of x-coredata://"))
        #expect(text.contains("/Classification/p"))
        #expect(text.contains("database is locked"))
    }

    /// Reads the animals of a classification while the store is locked.
    static func readAnimalsOfLockedStore() throws {
        let (file, container, context, atelidae) = try zoo()
        let lock = try FileLock(file.url)
        // The context is kept: an object whose context is gone has no relationships to read.
        withExtendedLifetime((container, context)) { print(atelidae.animals.count) }  // stops here
        try lock.release()
    }

    @Test func aToManyReadAfterAFailedOneIsWhole() throws {
        let (file, _, context, atelidae) = try Self.zoo()
        defer { file.cleanUp() }
        let lock = try FileLock(file.url)
        // A caller that throws hears the store's error; the relationship stays a fault, not an empty set.
        let slot = try #require(atelidae.layout.slotByName["animals"])
        #expect { try atelidae.loadedToManyOrThrow(slot) } throws: { ($0 as NSError).code == NSSQLiteError }
        #expect(atelidae.hasFault(forRelationshipNamed: "animals"))
        #expect(!atelidae.hasChanges)
        try lock.release()
        #expect(Set(atelidae.animals.compactMap(\.commonName)) == ["Mantled Howler", "Geoffroy’s Spider Monkey"])
        #expect(!context.hasChanges)
    }

    /// `save()` throws: a relationship it reads to validate a delete (delete rule deny) that the store
    /// cannot read is the store's error, not a validation error and not an empty relationship.
    @Test func aSaveWhoseValidationReadFailsThrowsTheStoresError() throws {
        let (file, _, context, atelidae) = try Self.zoo(denyingDelete: true)
        defer { file.cleanUp() }
        context.delete(atelidae)
        let lock = try FileLock(file.url)
        #expect { try context.save() } throws: { error in
            (error as NSError).code == NSSQLiteError && "\(error)".contains("FROM ZANIMAL")
        }
        try lock.release()
        #expect { try context.save() } throws: { ($0 as NSError).code == NSValidationRelationshipDeniedDeleteError }
    }

    @Test func aMergeWhoseReadFailsStopsWithTheStoresErrorAndAnID() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (file, _, context, ids) = try Self.products()
            _ = (context.object(with: ids[0]) as? Products)?.name
            let lock = try FileLock(file.url)
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectIDsKey: [ids[0]]], into: [context])
            try lock.release()
        }
        let text = Self.stderr(result)
        #expect(text.contains("reading the merged rows (1) of x-coredata://"))
        #expect(text.contains("/Products/p1"))
        #expect(text.contains("database is locked"))
    }

    @Test func aRefreshWhoseReadFailsStopsWithTheStoresErrorAndItsID() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (file, _, context, ids) = try Self.products()
            let product = try #require(context.object(with: ids[2]) as? Products)
            product.price = 99
            let lock = try FileLock(file.url)
            context.refresh(product, mergeChanges: true)
            try lock.release()
        }
        let text = Self.stderr(result)
        #expect(text.contains("reading the row to refresh of x-coredata://"))
        #expect(text.contains("/Products/p3"))
        #expect(text.contains("database is locked"))
    }

    // MARK: - The controller

    /// A tracking step whose read fails leaves the results short of that change; the context's next
    /// change fetches them again, the first change included, without `performFetch()`.
    @Test func theControllerRefetchesAtTheNextChangeAfterAFailedStep() throws {
        let (file, _, context, _) = try Self.zoo()
        defer { file.cleanUp() }
        let request = NSFetchRequest<Animal>(entityName: "Animal")
        request.predicate = NSPredicate(format: "classification.order == %@", "Primates")
        request.sortDescriptors = [NSSortDescriptor(key: "commonName", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                    sectionNameKeyPath: nil, cacheName: nil)
        let delegate = CountingDelegate()
        controller.delegate = delegate
        try controller.performFetch()
        #expect(controller.fetchedObjects?.compactMap(\.commonName) == ["Geoffroy’s Spider Monkey", "Mantled Howler"])
        let sirenia = try #require(try context.fetch(NSFetchRequest<Classification>(entityName: "Classification"))
            .first { $0.family == "Trichechidae" })
        _ = sirenia.order  // loaded; its animals still a fault
        let lock = try FileLock(file.url)
        // The manatee's classification now reads "Primates": finding the animals that read it needs the store.
        sirenia.order = "Primates"
        context.processPendingChanges()
        #expect(controller.fetchedObjects?.count == 2)
        #expect(delegate.changes == 0)
        try lock.release()
        // A change the controller would not re-evaluate the manatee for (its predicate does not read
        // `family`): the controller fetches again and sees both.
        sirenia.family = "Trichechidae (renamed)"
        context.processPendingChanges()
        #expect(controller.fetchedObjects?.compactMap(\.commonName) == ["Geoffroy’s Spider Monkey", "Mantled Howler", "West Indian Manatee"])
        #expect(controller.fetchedObjects == (try context.fetch(request)))
        #expect(delegate.changes == 1)
        // Tracked as usual from here on.
        sirenia.order = "Sirenia"
        context.processPendingChanges()
        #expect(controller.fetchedObjects?.count == 2)
    }

    // MARK: - A batched fetch's keys

    /// 3000 products in a store whose file is `emptySize` bytes before them.
    static func manyProducts() throws -> (TemporaryStore, NSPersistentContainer, emptySize: UInt64) {
        let file = TemporaryStore()
        let container = try container(file)
        let emptySize = try #require(try FileManager.default.attributesOfItem(atPath: file.url.path)[.size] as? NSNumber).uint64Value
        let writer = container.newBackgroundContext()
        try writer.performAndWait {
            for i in 0..<3000 {
                let p = Products(context: writer)
                p.name = "product-\(i)"
                p.price = Int32(i % 50)
            }
            try writer.save()
        }
        return (file, container, emptySize)
    }

    /// A batched fetch (store order, batches of 20) whose key reader meets the file cut back to its
    /// size before the products, after the first batch: the reader fails for real. Returns the fetch's
    /// objects, once the reader ended, and the file's bytes.
    static func fetchWithFailingKeyReader(_ file: TemporaryStore, _ container: NSPersistentContainer, emptySize: UInt64) throws -> ([Products], Data) {
        let whole = try Data(contentsOf: file.url)
        let sqlite = try container.persistentStoreCoordinator.sqlite
        let url = file.url
        sqlite.keyReaderGate = {
            guard let handle = try? FileHandle(forWritingTo: url) else { return }
            try? handle.truncate(atOffset: emptySize)
            try? handle.close()
        }
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.fetchBatchSize = 20
        let products = try container.viewContext.fetch(request)
        #expect(products.count == 3000)
        for _ in 0..<400 where !sqlite.keyReader.isIdle { Thread.sleep(forTimeInterval: 0.005) }
        sqlite.keyReaderGate = nil
        return (products, whole)
    }

    @Test func aKeyReaderThatFailsIsReadAgainAtOnce() throws {
        let (file, container, emptySize) = try Self.manyProducts()
        defer { file.cleanUp() }
        let other = container.newBackgroundContext()
        let expected = try other.performAndWait { try other.fetch(NSFetchRequest<Products>(entityName: "Products")).map(\.objectID) }
            .sorted { $0.primaryKey! < $1.primaryKey! }
        let (products, whole) = try Self.fetchWithFailingKeyReader(file, container, emptySize: emptySize)
        guard case .inBatch(let batch, _) = products[0].faultState else {
            Issue.record("the fetch did not make batch faults")
            return
        }
        #expect(batch.keys.deliveredCount < 3000, "the key reader did not fail")
        try whole.write(to: file.url)
        // The keys the reader did not deliver are read again on the store's readers, in the same order.
        #expect(products.map(\.objectID) == expected)
        #expect(products[2999].name == "product-2999")
    }

    @Test func aKeyReaderThatFailsTwiceStopsWithTheStoresError() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (file, container, emptySize) = try Self.manyProducts()
            let (products, _) = try Self.fetchWithFailingKeyReader(file, container, emptySize: emptySize)
            print(products[2999].objectID)  // stops here
        }
        let text = Self.stderr(result)
        #expect(text.contains("could not read the keys of a batched fetch (object at index 2999 of 3000"))
        #expect(text.contains("the key reader stopped after"))
        #expect(text.contains("reading them again failed: SQLite error"))
    }
}

/// Counts the batches a controller delivers.
final class CountingDelegate: NSFetchedResultsControllerDelegate {
    var changes = 0
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { changes += 1 }
}

/// Another connection's exclusive lock on a store file (rollback-journal mode), held until `release()`:
/// the store's reads wait out their busy timeout and fail with `SQLITE_BUSY`.
final class FileLock {
    private let db: SQLiteConnection

    init(_ url: URL) throws {
        db = try SQLiteConnection(path: url.path)
        try db.execute("BEGIN EXCLUSIVE")
    }

    func release() throws { try db.execute("ROLLBACK") }
}
