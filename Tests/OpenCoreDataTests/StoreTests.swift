import Foundation
@_spi(StoreDiagnostics) import OpenCoreData
import OpenCoreDataTesting
import Testing

@Suite("Object store on SQLite files")
struct StoreTests {
    @Test func insertSaveAndFetchBackInANewContainer() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let container = try store.container()
            let context = container.viewContext
            insertProducts(context, count: 30)
            #expect(context.hasChanges)
            #expect(context.insertedObjects.count == 30)
            try context.save()
            #expect(!context.hasChanges)
            #expect(context.registeredObjects.allSatisfy { !$0.objectID.isTemporaryID })
        }
        let container = try store.container()
        let request = NSFetchRequest<Products>(entityName: "Products")
        let objects = try container.viewContext.fetch(request)
        #expect(objects.count == 30)
        #expect(objects.first?.isFault == true)  // returnsObjectsAsFaults: values came along, firing is free
        _ = objects.first?.name
        #expect(objects.first?.isFault == false)
        #expect(objects.allSatisfy { productNames.contains($0.name ?? "") && $0.price < 1000 })
    }

    @Test func uniquingOneObjectPerIDPerContext() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let context = container.viewContext
        insertProducts(context, count: 5)
        try context.save()
        let a = try context.fetch(NSFetchRequest<Products>(entityName: "Products"))
        let b = try context.fetch(NSFetchRequest<Products>(entityName: "Products"))
        #expect(zip(a, b).allSatisfy { $0 === $1 })
        #expect(context.object(with: a[0].objectID) === a[0])
        let other = container.newBackgroundContext()
        let c = try other.existingObject(with: a[0].objectID)
        #expect(c !== a[0])
        #expect(c.objectID == a[0].objectID)
        #expect((c as? Products)?.name == a[0].name)
    }

    @Test func sortPredicateLimitOffsetAndSubentities() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let context = container.viewContext
        insertProducts(context, count: 30)
        let favorite = NSEntityDescription.insertNewObject(forEntityName: "FavoriteProducts", into: context)
        favorite.setValue("Колбаса «Молочная»", forKey: "name")
        favorite.setValue(999, forKey: "price")
        try context.save()

        let all = NSFetchRequest<Products>(entityName: "Products")
        all.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: true)]
        let sorted = try context.fetch(all)
        #expect(sorted.count == 31)
        let keys = sorted.map { "\($0.name!)|\(String(format: "%04d", $0.price))" }
        #expect(keys == keys.sorted())

        let cheapest = NSFetchRequest<Products>(entityName: "Products")
        cheapest.sortDescriptors = [NSSortDescriptor(key: "price", ascending: true)]
        cheapest.fetchLimit = 12
        let twelve = try context.fetch(cheapest)
        #expect(twelve.count == 12)
        #expect(twelve.map(\.price) == Array(sorted.map(\.price).sorted().prefix(12)))
        cheapest.fetchOffset = 2
        let fourteen = NSFetchRequest<Products>(entityName: "Products")
        fourteen.sortDescriptors = cheapest.sortDescriptors
        fourteen.fetchLimit = 14
        #expect(try context.fetch(cheapest).map(\.objectID) == Array(try context.fetch(fourteen).map(\.objectID)[2..<14]))

        let milk = NSFetchRequest<Products>(entityName: "Products")
        milk.predicate = NSPredicate(format: "name == %@", "Колбаса «Молочная»")
        let milkAll = try context.fetch(milk)
        #expect(milkAll.contains { $0.price == 999 })
        milk.includesSubentities = false
        #expect(!(try context.fetch(milk)).contains { $0.price == 999 })
        #expect(try context.fetch(NSFetchRequest<FavoriteProducts>(entityName: "FavoriteProducts")).count == 1)

        let sausages = NSFetchRequest<Products>(entityName: "Products")
        sausages.predicate = NSPredicate(format: "name CONTAINS[cd] %@ AND price < %d", "колбаса", 500)
        let found = try context.fetch(sausages)
        #expect(found.allSatisfy { $0.name!.lowercased().contains("колбаса") && $0.price < 500 })
        #expect(found.count == sorted.filter { $0.name!.lowercased().contains("колбаса") && $0.price < 500 }.count)
        #expect(try context.count(for: sausages) == found.count)
    }

    @Test func resultTypesIDsDictionariesCount() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let context = container.viewContext
        insertProducts(context, count: 30)
        try context.save()

        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Products")
        ids.resultType = .managedObjectIDResultType
        #expect(try context.fetch(ids).count == 30)

        let names = NSFetchRequest<NSDictionary>(entityName: "Products")
        names.resultType = .dictionaryResultType
        names.propertiesToFetch = ["name"]
        names.returnsDistinctResults = true
        names.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let distinct = try context.fetch(names)
        #expect(distinct.allSatisfy { $0.count == 1 && $0["name"] is String })
        #expect(distinct.count == Set(try context.fetch(NSFetchRequest<Products>(entityName: "Products")).map(\.name)).count)

        let max = NSExpressionDescription()
        max.name = "maxPrice"
        max.expression = NSExpression(forFunction: "max:", arguments: [NSExpression(forKeyPath: "price")])
        max.expressionResultType = .integer32AttributeType
        let aggregate = NSFetchRequest<NSDictionary>(entityName: "Products")
        aggregate.resultType = .dictionaryResultType
        aggregate.propertiesToFetch = [max]
        let top = try context.fetch(aggregate)
        let prices = try context.fetch(NSFetchRequest<Products>(entityName: "Products")).map(\.price)
        #expect((top.first?["maxPrice"] as? NSNumber)?.int32Value == prices.max())

        let count = NSFetchRequest<NSNumber>(entityName: "Products")
        count.resultType = .countResultType
        #expect(try context.fetch(count).first?.intValue == 30)
        #expect(try context.count(for: NSFetchRequest<Products>(entityName: "Products")) == 30)

        let wrong = NSFetchRequest<NSDictionary>(entityName: "Products")
        #expect(throws: CoreDataError.self) { try context.fetch(wrong) }
    }

    @Test func pendingChangesAreIncludedInFetches() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let context = container.viewContext
        let saved = insertProducts(context, count: 10)
        for (i, p) in saved.enumerated() { p.price = Int32(i < 3 ? 10 + i : 500 + i) }
        try context.save()
        let cheap = NSFetchRequest<Products>(entityName: "Products")
        cheap.predicate = NSPredicate(format: "price < 100")
        cheap.sortDescriptors = [NSSortDescriptor(key: "price", ascending: true)]
        let before = try context.fetch(cheap)

        let fresh = Products(context: context)
        fresh.name = "Сыр"
        fresh.price = 1
        let expensive = saved.first { $0.price >= 100 }!
        expensive.price = 2
        let deletedOne = before.first
        if let deletedOne { context.delete(deletedOne) }

        let after = try context.fetch(cheap)
        #expect(after.first === fresh)
        #expect(after.contains { $0 === expensive })
        #expect(!after.contains { $0 === deletedOne })
        #expect(after.map(\.price) == after.map(\.price).sorted())
        #expect(try context.count(for: cheap) == after.count)
        let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Products")
        ids.resultType = .managedObjectIDResultType
        ids.predicate = cheap.predicate
        #expect(try context.fetch(ids).count == after.count)
        cheap.includesPendingChanges = false
        #expect(try context.fetch(cheap).map(\.objectID).contains(deletedOne!.objectID))
    }

    @Test func batchedFetchLoadsOneBatchPerQuery() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let writer = try store.container()
            insertProducts(writer.viewContext, count: 100)
            try writer.viewContext.save()
        }
        // A new coordinator: its row cache is cold, so every batch must come from the store.
        let container = try store.container()
        let context = container.newBackgroundContext()
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.sortDescriptors = [NSSortDescriptor(key: "price", ascending: true)]
        request.fetchBatchSize = 20
        let counter = try #require(container.persistentStoreCoordinator.persistentStores.first)
        let start = counter.queryCount
        let objects = try context.fetch(request)
        _ = objects[99].objectID  // waits for the last key
        // IDs only: whether a subentity matches, the count, the first batch's keys, then every key in the
        // background (ProgressiveBatchTests).
        #expect(counter.queryCount == start + 4, "the fetch reads IDs only")
        #expect(objects.count == 100)
        #expect(objects.allSatisfy { $0.isFault })
        _ = objects[0].price
        #expect(counter.queryCount == start + 5)
        for i in 1..<20 { _ = objects[i].name }
        #expect(counter.queryCount == start + 5, "the first batch came in one query")
        #expect(objects[20].isFault)
        _ = objects[45].name
        #expect(counter.queryCount == start + 6)
        #expect(objects[40..<60].allSatisfy { !$0.isFault })
        #expect(objects[60].isFault)
        #expect(objects.map(\.price) == objects.map(\.price).sorted())
    }

    /// Deleting a fault that was never read (from `object(with:)` or a batched fetch) deletes its row;
    /// the fault fires first, as in Core Data, so the save checks the version the row really has.
    @Test func deletingAnUnreadFaultDeletesTheRow() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let ids = try container.viewContext.performAndWait {
            let products = insertProducts(container.viewContext, count: 30)
            try container.viewContext.save()
            products[3].price += 1  // the row's version is now 2
            try container.viewContext.save()
            return products.map(\.objectID)
        }
        // A new coordinator: its row cache is cold, so the batched fetch's objects stay faults.
        let context = try store.container().newBackgroundContext()
        try context.performAndWait {
            let fault = context.object(with: ids[3])
            #expect(fault.isFault)
            context.delete(fault)
            let request = NSFetchRequest<Products>(entityName: "Products")
            request.fetchBatchSize = 5
            // (A fetch that includes pending changes reads every row's values: the delete above is one.)
            request.includesPendingChanges = false
            request.sortDescriptors = [NSSortDescriptor(key: "price", ascending: true)]
            let batched = try context.fetch(request)
            let last = try #require(batched.last)
            #expect(last.isFault)
            context.delete(last)
            try context.save()
            #expect(try context.count(for: NSFetchRequest<Products>(entityName: "Products")) == 28)
        }
    }

    @Test func anIDFromAnotherModelInstanceGivesThisModelsObject() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let first = try store.container()
        let id = try first.viewContext.performAndWait {
            let p = insertProducts(first.viewContext, count: 1)[0]
            try first.viewContext.save()
            return p.objectID
        }
        let second = try store.container()  // an equal model, another instance
        let context = second.viewContext
        let object = context.object(with: id)
        #expect(object.entity === second.managedObjectModel.entitiesByName["Products"])
        context.delete(object)
        #expect(try context.count(for: NSFetchRequest<Products>(entityName: "Products")) == 0)
    }

    @Test func unknownKeysNameTheEntityAndKey() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().viewContext
        let bad = NSFetchRequest<Products>(entityName: "Products")
        bad.predicate = NSPredicate(format: "prise < 5")
        #expect { try context.fetch(bad) } throws: { ($0 as? CoreDataError)?.message == "keypath prise not found in entity Products" }
        let badSort = NSFetchRequest<Products>(entityName: "Products")
        badSort.sortDescriptors = [NSSortDescriptor(key: "nam", ascending: true)]
        #expect { try context.fetch(badSort) } throws: { "\($0)".contains("keypath nam not found in entity Products") }
        let product = Products(context: context)
        #expect { try product.setValidatedValue(1, forKey: "cost") } throws: { "\($0)".contains("the entity Products is not key value coding-compliant for the key \"cost\"") }
        #expect(throws: CoreDataError.self) { try context.fetch(NSFetchRequest<Products>(entityName: "Nope")) }
    }

    @Test func failedSaveLeavesStoreAndContextAsTheyWere() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let context = container.viewContext
        let kept = insertProducts(context, count: 3)
        try context.save()
        kept[0].price = 7
        context.delete(kept[1])
        let good = Products(context: context)
        good.name = "Сыр"
        let bad = Products(context: context)  // no name: required
        bad.price = 5
        let wrongType = Products(context: context)
        wrongType.name = "Масло"
        wrongType.setValue("cheap", forKey: "price")
        do {
            try context.save()
            Issue.record("the save should fail")
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == NSValidationMultipleErrorsError)
            let details = error.userInfo[NSDetailedErrorsKey] as? [NSError] ?? []
            #expect(details.map(\.code).sorted() == [NSManagedObjectValidationError, NSValidationMissingMandatoryPropertyError].sorted())
            #expect(details.contains { $0.localizedDescription == "Products.name is a required value." })
            #expect(details.contains { $0.localizedDescription == "Products.price must be a Integer 32, not \"cheap\"." })
        }
        #expect(context.insertedObjects.count == 3)
        #expect(good.objectID.isTemporaryID)
        #expect(context.deletedObjects == [kept[1]])
        #expect(context.updatedObjects == [kept[0]])
        let other = container.newBackgroundContext()
        let rows = try other.fetch(NSFetchRequest<Products>(entityName: "Products"))
        #expect(rows.count == 3)
        #expect(rows.first { $0.objectID == kept[0].objectID }?.price != 7)
        // Fix the problems: the same context saves.
        context.delete(bad)
        wrongType.price = 3
        try context.save()
        #expect(try other.count(for: NSFetchRequest<Products>(entityName: "Products")) == 4)
    }

    @Test func rollbackAndReset() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().viewContext
        let saved = insertProducts(context, count: 2)
        try context.save()
        let before = saved[0].price
        saved[0].price = before &+ 1
        context.delete(saved[1])
        let added = Products(context: context)
        added.name = "x"
        #expect(saved[0].changedValues()["price"] as? Int == Int(before &+ 1))
        #expect(saved[0].committedValues(forKeys: ["price"])["price"] as? Int == Int(before))
        context.rollback()
        #expect(!context.hasChanges)
        #expect(saved[0].price == before)
        #expect(!saved[1].isDeleted)
        #expect(added.managedObjectContext == nil)
        #expect(try context.count(for: NSFetchRequest<Products>(entityName: "Products")) == 2)
        context.reset()
        #expect(context.registeredObjects.isEmpty)
        #expect(saved[0].managedObjectContext == nil)
    }

    @Test func notificationsCarryTheChangedObjects() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().viewContext
        let changeNotes = NotificationInbox(), saveNotes = NotificationInbox()
        let center = NotificationCenter.default
        let o1 = center.addObserver(forName: NSManagedObjectContext.didChangeObjectsNotification, object: context, queue: nil) { changeNotes.append($0) }
        let o2 = center.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { saveNotes.append($0) }
        func total(_ box: NotificationInbox, _ key: String) -> Int {
            box.notes.reduce(0) { $0 + ((($1.userInfo?[key] as? Set<NSManagedObject>)?.count) ?? 0) }
        }
        defer { center.removeObserver(o1); center.removeObserver(o2) }
        let products = insertProducts(context, count: 3)
        context.processPendingChanges()
        #expect(total(changeNotes, NSInsertedObjectsKey) == 3)
        try context.save()
        #expect(total(saveNotes, NSInsertedObjectsKey) == 3)
        products[0].price = products[0].price &+ 1
        context.delete(products[1])
        try context.save()
        #expect(total(changeNotes, NSUpdatedObjectsKey) == 1)
        #expect(total(changeNotes, NSDeletedObjectsKey) == 1)
        #expect(total(saveNotes, NSUpdatedObjectsKey) == 1)
        #expect(total(saveNotes, NSDeletedObjectsKey) == 1)
    }

    @Test func storeMadeWithAnotherModelIsRefused() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        _ = try store.container()
        let changed = makeProductsModel()
        changed.entitiesByName["Products"]!.properties += [NSAttributeDescription(name: "weight", type: .doubleAttributeType)]
        do {
            _ = try store.container(changed)
            Issue.record("expected an incompatible-model error")
        } catch let error as NSError {
            // A container migrates by default; a model built in code has no earlier version to find.
            #expect(error.code == NSMigrationMissingSourceModelError)
        }
    }

    @Test func invalidModelsAreErrorsAtLoad() {
        let a = NSEntityDescription(name: "A", properties: [NSAttributeDescription(name: "x", type: .stringAttributeType),
                                                           NSAttributeDescription(name: "x", type: .integer16AttributeType)])
        #expect { try NSPersistentStoreCoordinator(validatingModel: NSManagedObjectModel(entities: [a])) } throws: {
            "\($0)".contains("entity A has two properties named x")
        }
        let b1 = NSEntityDescription(name: "B"), b2 = NSEntityDescription(name: "B")
        #expect { try NSPersistentStoreCoordinator(validatingModel: NSManagedObjectModel(entities: [b1, b2])) } throws: {
            "\($0)".contains("duplicate entity name B")
        }
        let c = NSEntityDescription(name: "C"), d = NSEntityDescription(name: "D")
        let model = NSManagedObjectModel(entities: [c, d])
        c.subentities = [d]
        d.subentities = [c]
        #expect { try NSPersistentStoreCoordinator(validatingModel: model) } throws: { "\($0)".contains("inheritance cycle") }
    }

    @Test func inMemoryStoreBehavesLikeTheFileStore() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeProductsModel())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        insertProducts(context, count: 10)
        try context.save()
        let r = NSFetchRequest<Products>(entityName: "Products")
        r.predicate = NSPredicate(format: "price >= 0")
        #expect(try context.fetch(r).count == 10)
    }

    @Test func objectIDsAndURIs() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let context = container.viewContext
        let p = Products(context: context)
        p.name = "x"
        #expect(p.objectID.isTemporaryID)
        #expect(p.objectID.uriRepresentation().absoluteString.hasPrefix("x-coredata:///Products/t"))
        try context.obtainPermanentIDs(for: [p])
        #expect(!p.objectID.isTemporaryID)
        let id = p.objectID
        try context.save()
        #expect(p.objectID == id)
        let uri = id.uriRepresentation()
        #expect(uri.absoluteString.hasPrefix("x-coredata://") && uri.absoluteString.hasSuffix("/Products/p1"))
        #expect(container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: uri) == id)
    }
}
