import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Several stores holding one entity (issue 48, item 4): Core Data lets configurations overlap. A fetch
/// reads every store that holds its entity (or its `affectedStores`), an insert goes to the store
/// `assign(_:to:)` chose, else to the first store added that holds its entity; rows of two stores with
/// the same primary key are different objects.
@Suite struct OverlappingStoresTests {
    /// Company ↔ Employee, every entity in the default configuration.
    static func model() -> NSManagedObjectModel {
        let company = NSEntityDescription(name: "Company", properties: [
            NSAttributeDescription(name: "name", type: .stringAttributeType),
            NSRelationshipDescription(name: "employees", destination: "Employee", inverse: "company", toMany: true),
        ])
        let employee = NSEntityDescription(name: "Employee", properties: [
            NSAttributeDescription(name: "name", type: .stringAttributeType),
            NSAttributeDescription(name: "rank", type: .integer64AttributeType),
            NSRelationshipDescription(name: "company", destination: "Company", inverse: "employees"),
        ])
        return NSManagedObjectModel(entities: [company, employee])
    }

    /// A coordinator with two stores of the default configuration (SQLite files, or in memory).
    struct Stack {
        let directory = TemporaryStore()
        let coordinator: NSPersistentStoreCoordinator
        let first: NSPersistentStore
        let second: NSPersistentStore

        init(sqlite: Bool, configurations: (String?, String?) = (nil, nil)) throws {
            coordinator = try NSPersistentStoreCoordinator(validatingModel: OverlappingStoresTests.model())
            let type = sqlite ? NSSQLiteStoreType : NSInMemoryStoreType
            let dir = directory.directory
            first = try coordinator.addPersistentStore(ofType: type, configurationName: configurations.0,
                                                       at: sqlite ? dir.appendingPathComponent("A.sqlite") : nil)
            second = try coordinator.addPersistentStore(ofType: type, configurationName: configurations.1,
                                                        at: sqlite ? dir.appendingPathComponent("B.sqlite") : nil)
        }

        func context() -> NSManagedObjectContext {
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return context
        }

        /// Saves employees named `names` (rank = position) into `store`, through a context of their own.
        func fill(_ store: NSPersistentStore, _ names: [String], company: String? = nil) throws {
            let context = context()
            let owner = company.map { name -> NSManagedObject in
                let c = NSEntityDescription.insertNewObject(forEntityName: "Company", into: context)
                c.setValue(name, forKey: "name")
                context.assign(c, to: store)
                return c
            }
            for (i, name) in names.enumerated() {
                let e = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: context)
                e.setValue(name, forKey: "name")
                e.setValue(Int64(i), forKey: "rank")
                e.setValue(owner, forKey: "company")
                context.assign(e, to: store)
            }
            try context.save()
        }
    }

    static func employees(sortedBy key: String = "name", _ configure: (NSFetchRequest<NSManagedObject>) -> Void = { _ in }) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
        configure(request)
        return request
    }

    static func names(_ objects: [NSManagedObject]) -> [String] { objects.map { $0.value(forKey: "name") as! String } }

    @Test(arguments: [true, false])
    func aFetchReadsBothStoresSortsAndLimitsAcrossThem(sqlite: Bool) throws {
        let stack = try Stack(sqlite: sqlite)
        defer { stack.directory.cleanUp() }
        try stack.fill(stack.first, ["b", "d", "f"])
        try stack.fill(stack.second, ["a", "c", "e"])
        let context = stack.context()
        let all = try context.fetch(Self.employees())
        #expect(Self.names(all) == ["a", "b", "c", "d", "e", "f"])
        // Same primary keys in both stores, six different objects and IDs.
        #expect(Set(all.map(\.objectID)).count == 6)
        #expect(Set(all.compactMap(\.objectID.primaryKey)) == [1, 2, 3])
        #expect(all.filter { $0.objectID.persistentStore === stack.second }.count == 3)
        let window = try context.fetch(Self.employees { $0.fetchOffset = 1; $0.fetchLimit = 3 })
        #expect(Self.names(window) == ["b", "c", "d"])
        let idRequest = NSFetchRequest<NSManagedObjectID>(entityName: "Employee")
        idRequest.resultType = .managedObjectIDResultType
        let ids = try context.fetch(idRequest)
        #expect(Set(ids) == Set(all.map(\.objectID)))
        #expect(try context.count(for: Self.employees()) == 6)
        #expect(try context.count(for: Self.employees { $0.predicate = NSPredicate(format: "rank == 0") }) == 2)
        #expect(try context.count(for: Self.employees { $0.fetchLimit = 4 }) == 4)
    }

    @Test func affectedStoresRestrictFetchesAndCounts() throws {
        let stack = try Stack(sqlite: true)
        defer { stack.directory.cleanUp() }
        try stack.fill(stack.first, ["b", "d"])
        try stack.fill(stack.second, ["a", "c", "e"])
        let context = stack.context()
        let second = Self.employees { $0.affectedStores = [stack.second] }
        #expect(Self.names(try context.fetch(second)) == ["a", "c", "e"])
        #expect(try context.count(for: second) == 3)
        let first = Self.employees { $0.affectedStores = [stack.first] }
        #expect(Self.names(try context.fetch(first)) == ["b", "d"])
        #expect(try context.count(for: first) == 2)
        // One store reached: dictionary results run there.
        let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Employee")
        dictionaries.resultType = .dictionaryResultType
        dictionaries.propertiesToFetch = ["name"]
        dictionaries.affectedStores = [stack.second]
        #expect(try context.fetch(dictionaries).count == 3)
        // Both reached: refused with a clear error, not a partial answer.
        dictionaries.affectedStores = nil
        #expect { try context.fetch(dictionaries) } throws: { ($0 as NSError).localizedDescription.contains("affectedStores") }
    }

    @Test func insertsGoToTheAssignedStoreElseTheFirstThatHoldsTheEntity() throws {
        let stack = try Stack(sqlite: true)
        defer { stack.directory.cleanUp() }
        let context = stack.context()
        let plain = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: context)
        plain.setValue("plain", forKey: "name")
        let assigned = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: context)
        assigned.setValue("assigned", forKey: "name")
        context.assign(assigned, to: stack.second)
        try context.save()
        #expect(plain.objectID.persistentStore === stack.first)
        #expect(assigned.objectID.persistentStore === stack.second)
        #expect(plain.objectID.primaryKey == 1 && assigned.objectID.primaryKey == 1)
        #expect(plain.objectID != assigned.objectID)
        // Saved and fetched again in another context: each from its own store, values intact.
        let reader = stack.context()
        let first = try reader.fetch(Self.employees { $0.affectedStores = [stack.first] })
        let second = try reader.fetch(Self.employees { $0.affectedStores = [stack.second] })
        #expect(Self.names(first) == ["plain"] && Self.names(second) == ["assigned"])
        #expect(try reader.existingObject(with: assigned.objectID).value(forKey: "name") as? String == "assigned")
        #expect(try reader.existingObject(with: plain.objectID).value(forKey: "name") as? String == "plain")
    }

    @Test func updatesAndDeletesTouchOnlyTheirOwnStore() throws {
        let stack = try Stack(sqlite: true)
        defer { stack.directory.cleanUp() }
        try stack.fill(stack.first, ["one"])
        try stack.fill(stack.second, ["two"])
        let context = stack.context()
        let objects = try context.fetch(Self.employees())
        let two = try #require(objects.first { $0.objectID.persistentStore === stack.second })
        two.setValue("TWO", forKey: "name")
        try context.save()
        #expect(Self.names(try stack.context().fetch(Self.employees())) == ["TWO", "one"])
        context.delete(two)
        try context.save()
        let left = try stack.context().fetch(Self.employees())
        #expect(Self.names(left) == ["one"])
        #expect(left.first?.objectID.persistentStore === stack.first)
    }

    @Test func relationshipsStayInTheirStore() throws {
        let stack = try Stack(sqlite: true)
        defer { stack.directory.cleanUp() }
        try stack.fill(stack.first, ["a1", "a2"], company: "A")
        try stack.fill(stack.second, ["b1"], company: "B")
        let context = stack.context()
        let companies = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Company"))
        #expect(companies.count == 2)
        for company in companies {
            let members = (company.value(forKey: "employees") as! Set<NSManagedObject>)
            let expected: Set<String> = company.value(forKey: "name") as? String == "A" ? ["a1", "a2"] : ["b1"]
            #expect(Set(members.map { $0.value(forKey: "name") as! String }) == expected)
            for member in members {
                #expect(member.objectID.persistentStore === company.objectID.persistentStore)
                #expect(member.value(forKey: "company") as? NSManagedObject === company)
            }
            // Both companies have Z_PK 1: a predicate naming one matches its own store's employees only,
            // in SQL as in memory.
            let request = Self.employees { $0.predicate = NSPredicate(format: "company == %@", company) }
            #expect(Set(Self.names(try context.fetch(request))) == expected)
            #expect(try context.count(for: request) == expected.count)
            let all = try context.fetch(Self.employees())
            #expect(Set(Self.names((all as NSArray).filtered(using: request.predicate!) as! [NSManagedObject])) == expected)
        }
    }

    /// A controller whose predicate reads a to-many relationship follows a merged save into the second
    /// store: the relationship is read in the row's own store (both companies have Z_PK 1).
    @Test func aControllerReadsRelationshipsInEachRowsStore() throws {
        let stack = try Stack(sqlite: true)
        defer { stack.directory.cleanUp() }
        try stack.fill(stack.first, ["a1", "a2"], company: "A")
        try stack.fill(stack.second, ["b1"], company: "B")
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = stack.coordinator
        let request = NSFetchRequest<NSManagedObject>(entityName: "Company")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        request.predicate = NSPredicate(format: "ANY employees.name == %@", "new")
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        let delegate = Tracking()
        try context.performAndWait { () throws in
            controller.delegate = delegate
            try controller.performFetch()
            #expect(controller.fetchedObjects?.isEmpty == true)
        }
        let writer = stack.context()
        let saves = NotificationInbox()
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: writer, queue: nil) { saves.append($0) }
        defer { NotificationCenter.default.removeObserver(observer) }
        try writer.performAndWait { () throws in
            let b = try #require(try writer.fetch(NSFetchRequest<NSManagedObject>(entityName: "Company")).first { $0.value(forKey: "name") as? String == "B" })
            let employee = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: writer)
            employee.setValue("new", forKey: "name")
            employee.setValue(b, forKey: "company")
            writer.assign(employee, to: stack.second)  // else the first store, and Core Data's cross-store error
            try writer.save()
            #expect(employee.objectID.persistentStore === stack.second)
        }
        // As an app forwarding Core Data's keys only: the rows are read from the store, their to-manys as faults.
        let saved = try #require(saves.notes.last)
        let note = Notification(name: saved.name, object: saved.object,
                                userInfo: saved.userInfo?.filter { ($0.key as? String)?.hasPrefix("OpenCoreData") != true })
        context.performAndWait {
            context.mergeChanges(fromContextDidSave: note)
            #expect(Self.names(controller.fetchedObjects ?? []) == ["B"])
        }
    }

    /// A conflict in the second store shows the store's row with its own store's references.
    @Test func aConflictInTheSecondStoreNamesItsOwnObjects() throws {
        let stack = try Stack(sqlite: true)
        defer { stack.directory.cleanUp() }
        try stack.fill(stack.first, ["a1"], company: "A")
        try stack.fill(stack.second, ["b1"], company: "B")
        let (one, two) = (stack.context(), stack.context())
        func b1(_ context: NSManagedObjectContext) throws -> NSManagedObject {
            try #require(try context.fetch(Self.employees()).first { $0.value(forKey: "name") as? String == "b1" })
        }
        let mine = try b1(two)
        _ = mine.value(forKey: "rank")
        let theirs = try b1(one)
        theirs.setValue(Int64(5), forKey: "rank")
        try one.save()
        mine.setValue("b1 renamed", forKey: "name")
        let error = #expect(throws: NSError.self) { try two.save() }
        let conflicts = try #require(error?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])
        let company = try #require(conflicts.first?.persistedSnapshot?["company"] as? NSManagedObject)
        #expect(company.objectID.persistentStore === stack.second)
        #expect(company.value(forKey: "name") as? String == "B")
    }

    @Test func aBatchDeleteHonoursAffectedStores() throws {
        let stack = try Stack(sqlite: true)
        defer { stack.directory.cleanUp() }
        try stack.fill(stack.first, ["a", "b"])
        try stack.fill(stack.second, ["c", "d"])
        let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Employee"))
        request.affectedStores = [stack.second]
        request.resultType = .resultTypeCount
        let result = try stack.context().execute(request) as? NSBatchDeleteResult
        #expect(result?.result as? Int == 2)
        #expect(Self.names(try stack.context().fetch(Self.employees())) == ["a", "b"])
        // Without affectedStores a batch request reaches every store that holds the entity: an update and a
        // delete run in each (IDs of both stores come back), an insert goes to the first, as an object's does.
        try stack.fill(stack.second, ["c", "d"])
        let update = NSBatchUpdateRequest(entityName: "Employee")
        update.propertiesToUpdate = ["rank": 7]
        update.resultType = .updatedObjectIDsResultType
        let updated = try #require(try stack.context().execute(update) as? NSBatchUpdateResult)
        let ids = try #require(updated.result as? [NSManagedObjectID])
        #expect(ids.count == 4)
        #expect(Set(ids.map { $0.persistentStore?.identifier }) == [stack.first.identifier, stack.second.identifier])
        let insert = NSBatchInsertRequest(entityName: "Employee", objects: [["name": "e", "rank": 1]])
        insert.resultType = .objectIDs
        let inserted = try #require((try stack.context().execute(insert) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])
        #expect(inserted.map { $0.persistentStore === stack.first } == [true])
        // A delete by IDs deletes each row in its own store, though two rows share a primary key.
        let byID = NSBatchDeleteRequest(objectIDs: [ids[0], ids[2]])
        byID.resultType = .resultTypeCount
        #expect((try stack.context().execute(byID) as? NSBatchDeleteResult)?.result as? Int == 2)
        #expect(try stack.context().count(for: Self.employees()) == 3)
        let all = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Employee"))
        all.resultType = .resultTypeCount
        #expect((try stack.context().execute(all) as? NSBatchDeleteResult)?.result as? Int == 3)
        #expect(try stack.context().count(for: Self.employees()) == 0)
    }

    /// A controller tracks changes once it has a delegate (as Core Data's: without one it does not track).
    final class Tracking: NSObject, NSFetchedResultsControllerDelegate {
        var changes = 0
        func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { changes += 1 }
    }

    @Test func aControllerShowsTheRowsOfBothStoresAndTracksChanges() throws {
        let stack = try Stack(sqlite: true)
        defer { stack.directory.cleanUp() }
        try stack.fill(stack.first, ["b"])
        try stack.fill(stack.second, ["a", "c"])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = stack.coordinator
        context.automaticallyMergesChangesFromParent = true
        let controller = NSFetchedResultsController(fetchRequest: Self.employees(), managedObjectContext: context,
                                                    sectionNameKeyPath: nil, cacheName: nil)
        let delegate = Tracking()
        try context.performAndWait { () throws in
            controller.delegate = delegate
            try controller.performFetch()
            #expect(Self.names(controller.fetchedObjects ?? []) == ["a", "b", "c"])
            // An insert into each store, before and after the save.
            let added = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: context)
            added.setValue("aa", forKey: "name")
            context.assign(added, to: stack.second)
            context.processPendingChanges()
            #expect(Self.names(controller.fetchedObjects ?? []) == ["a", "aa", "b", "c"])
            try context.save()
            #expect(added.objectID.persistentStore === stack.second)
            let other = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: context)
            other.setValue("bb", forKey: "name")
            try context.save()
            #expect(other.objectID.persistentStore === stack.first)
            #expect(Self.names(controller.fetchedObjects ?? []) == ["a", "aa", "b", "bb", "c"])
        }
        // Another context's save into the second store, merged: the same primary key as a row of the first
        // store, shown as its own row.
        try stack.fill(stack.second, ["ab"])
        context.performAndWait {}
        context.performAndWait {
            #expect(Self.names(controller.fetchedObjects ?? []) == ["a", "aa", "ab", "b", "bb", "c"])
            #expect(delegate.changes >= 3)
            // Deleting the second store's "a" leaves the first store's rows alone.
            let a = controller.fetchedObjects!.first { $0.value(forKey: "name") as? String == "a" }!
            context.delete(a)
            context.processPendingChanges()
            #expect(Self.names(controller.fetchedObjects ?? []) == ["aa", "ab", "b", "bb", "c"])
            context.rollback()
        }
        // A cache file would name rows of one store: a controller over both never reads one back.
        let cacheName = "overlap-\(UUID().uuidString)"
        for _ in 0..<2 {
            let cached = NSFetchedResultsController(fetchRequest: Self.employees(), managedObjectContext: context,
                                                    sectionNameKeyPath: nil, cacheName: cacheName)
            try context.performAndWait { try cached.performFetch() }
            #expect(Self.names(cached.fetchedObjects ?? []) == ["a", "aa", "ab", "b", "bb", "c"])
            #expect(Set(cached.fetchedObjects!.map { $0.objectID.persistentStore!.identifier }).count == 2)
        }
        NSFetchedResultsController<NSManagedObject>.deleteCache(withName: cacheName)
    }

    @Test func removingAndAddingStoresResetsTheStack() throws {
        let stack = try Stack(sqlite: false, configurations: ("PF_DEFAULT_CONFIGURATION_NAME", "Default"))
        defer { stack.directory.cleanUp() }
        try stack.fill(stack.first, ["old"])
        // The library's idiom: a new store is added, then the old one removed.
        let fresh = try stack.coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        try stack.coordinator.remove(stack.first)
        try stack.coordinator.remove(stack.second)
        #expect(try stack.context().count(for: Self.employees()) == 0)
        try stack.fill(fresh, ["new"])
        let context = stack.context()
        let fetched = try context.fetch(Self.employees())
        #expect(Self.names(fetched) == ["new"] && fetched.first?.objectID.persistentStore === fresh)
        // And the other order: removed first, then added.
        try stack.coordinator.remove(fresh)
        let again = try stack.coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: "Default", at: nil)
        #expect(again.keyTag == 0)
        try stack.fill(again, ["again"])
        #expect(Self.names(try stack.context().fetch(Self.employees())) == ["again"])
    }

    @Test func nilDefaultAndCoreDatasDefaultNameAreOneConfiguration() throws {
        let stack = try Stack(sqlite: true, configurations: (nil, "PF_DEFAULT_CONFIGURATION_NAME"))
        defer { stack.directory.cleanUp() }
        let third = try stack.coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: "Default", at: nil)
        for store in [stack.first, stack.second, third] {
            #expect(store.configurationName == "PF_DEFAULT_CONFIGURATION_NAME" || store.configurationName == "Default")
            #expect(stack.coordinator.storesHolding(store.persistentStoreCoordinator!.managedObjectModel.entitiesByName["Employee"]!.layout.rootEntityID).contains { $0 === store })
        }
        try stack.fill(third, ["three"])
        try stack.fill(stack.first, ["one"])
        try stack.fill(stack.second, ["two"])
        #expect(Self.names(try stack.context().fetch(Self.employees())) == ["one", "three", "two"])
        #expect(try stack.context().count(for: Self.employees()) == 3)
    }

    /// A fetch over two stores agrees with the same predicate, sort, offset and limit evaluated in
    /// memory over every row of both (ties broken as the fetch breaks them: store order, then key).
    @Test func randomFetchesOverTwoStoresMatchMemory() throws {
        let seed = UInt64.random(in: 0..<UInt64.max)
        print("OverlappingStoresTests.randomFetchesOverTwoStoresMatchMemory seed: \(seed)")
        var random = SeededRandom(seed: seed)
        let stack = try Stack(sqlite: true)
        defer { stack.directory.cleanUp() }
        var rows: [(store: Int, pk: Int64, name: String, rank: Int64)] = []
        for (s, store) in [stack.first, stack.second].enumerated() {
            let context = stack.context()
            for i in 0..<Int.random(in: 5...30, using: &random) {
                let e = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: context)
                let name = String(UnicodeScalar(UInt8.random(in: 97...102, using: &random))), rank = Int64.random(in: 0...9, using: &random)
                e.setValue(name, forKey: "name")
                e.setValue(rank, forKey: "rank")
                context.assign(e, to: store)
                rows.append((s, Int64(i + 1), name, rank))
            }
            try context.save()
        }
        for _ in 0..<40 {
            let bound = Int64.random(in: 0...9, using: &random)
            let key = Bool.random(using: &random) ? "name" : "rank"
            let ascending = Bool.random(using: &random)
            let offset = Int.random(in: 0...5, using: &random), limit = Int.random(in: 0...10, using: &random)
            let request = NSFetchRequest<NSManagedObject>(entityName: "Employee")
            request.predicate = NSPredicate(format: "rank >= %lld", bound)
            request.sortDescriptors = [NSSortDescriptor(key: key, ascending: ascending)]
            request.fetchOffset = offset
            request.fetchLimit = limit
            let fetched = try stack.context().fetch(request).map { ($0.objectID.persistentStore === stack.first ? 0 : 1, $0.objectID.primaryKey!) }
            var expected = rows.filter { $0.rank >= bound }.sorted { ($0.store, $0.pk) < ($1.store, $1.pk) }
            expected = expected.enumerated().sorted { a, b in
                let (x, y) = (a.element, b.element)
                if key == "name", x.name != y.name { return ascending ? x.name < y.name : x.name > y.name }
                if key == "rank", x.rank != y.rank { return ascending ? x.rank < y.rank : x.rank > y.rank }
                return a.offset < b.offset
            }.map(\.element)
            var window = Array(expected.dropFirst(offset))
            if limit > 0 { window = Array(window.prefix(limit)) }
            #expect(fetched.map { "\($0.0):\($0.1)" } == window.map { "\($0.store):\($0.pk)" },
                    "seed \(seed): rank >= \(bound) by \(key) \(ascending ? "asc" : "desc") offset \(offset) limit \(limit)")
        }
    }
}
