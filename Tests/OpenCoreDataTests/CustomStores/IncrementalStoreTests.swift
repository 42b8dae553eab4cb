import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// An app's incremental store (`DictionaryIncrementalStore`, registered as its own type): fetches, faults,
/// relationships, saves, counts and a controller, all answered by the store's own methods.
@Suite("Incremental stores", .serialized)
struct IncrementalStoreTests {
    init() { NSPersistentStoreCoordinator.registerStoreClass(DictionaryIncrementalStore.self, forStoreType: DictionaryIncrementalStore.type) }

    /// A store at a URL of its own (its server starts empty).
    private func newURL() -> URL { URL(fileURLWithPath: "/incremental/\(UUID().uuidString)") }

    private func open(_ url: URL) throws -> (DictionaryIncrementalStore, NSManagedObjectContext) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ZooModel.make())
        let store = try coordinator.addPersistentStore(type: .init(rawValue: DictionaryIncrementalStore.type), at: url)
        let context = NSManagedObjectContext(.mainQueue)
        context.persistentStoreCoordinator = coordinator
        return (try #require(store as? DictionaryIncrementalStore), context)
    }

    /// A seeded store, saved, and a new coordinator's context on it.
    private func seeded() throws -> (URL, DictionaryIncrementalStore, NSManagedObjectContext) {
        let url = newURL()
        let (_, context) = try open(url)
        ZooModel.seed(context)
        try context.save()
        let (store, fresh) = try open(url)
        return (url, store, fresh)
    }

    private func describe(_ animal: Animal) -> String {
        "\(animal.commonName!) \(animal.classification?.family ?? "-") \(animal.zoos.map { $0.name! }.sorted())"
    }

    @Test func fetchesRunThroughExecuteWithThePredicateAndSorts() throws {
        let (_, store, context) = try seeded()
        #expect(store.metadata[NSStoreTypeKey] as? String == DictionaryIncrementalStore.type)
        let request = NSFetchRequest<Animal>(entityName: "Animal")
        request.predicate = NSPredicate(format: "habitat == %@", "Primate Exhibit")
        request.sortDescriptors = [NSSortDescriptor(key: "commonName", ascending: false)]
        let primates = try context.fetch(request)
        #expect(primates.map(\.commonName) == ["Mantled Howler", "Geoffroy’s Spider Monkey"])
        let asked = try #require(store.fetches.last)
        #expect(asked.entityName == "Animal" && asked.predicate?.predicateFormat == request.predicate?.predicateFormat)
        #expect(asked.sortDescriptors?.first?.key == "commonName" && asked.sortDescriptors?.first?.ascending == false)
        #expect(store.contexts.last.flatMap { $0 } === context, "the store is handed the fetching context")
        // Through a relationship, evaluated by the store on its records.
        let bats = try context.fetch(ZooModel.tableRequest().with(NSPredicate(format: "classification.order == 'Chiroptera'")))
        #expect(bats.map(\.commonName) == ["Pygmy Fruit-eating Bat"])
        // Limit and offset reach the store.
        let window = ZooModel.tableRequest()
        window.fetchOffset = 1
        window.fetchLimit = 2
        #expect(try context.fetch(window).count == 2)
        #expect(store.fetches.last?.fetchLimit == 2 && store.fetches.last?.fetchOffset == 1)
    }

    @Test func faultsFireThroughNewValuesForObject() throws {
        let (_, store, context) = try seeded()
        let request = NSFetchRequest<Zoo>(entityName: "Zoo")
        request.includesPropertyValues = false
        let zoos = try context.fetch(request)
        #expect(zoos.count == 3 && zoos.allSatisfy(\.isFault))
        #expect(store.nodeReads == 0)
        _ = zoos[0].name
        #expect(store.nodeReads == 1 && !zoos[0].isFault)
        _ = zoos[0].location
        #expect(store.nodeReads == 1, "a fired fault reads no node again")
        // Refreshing turns the object back into a fault: the next read asks the store again (no row cache).
        context.refresh(zoos[0], mergeChanges: false)
        _ = zoos[0].name
        #expect(store.nodeReads == 2)
        // The store changes a record behind the coordinator's back: another context's fault reads the change.
        let ref = store.referenceObject(for: zoos[1].objectID) as! String
        _ = zoos[1].name
        store.server.records[ref]!.values["name"] = "Changed Elsewhere"
        let other = NSManagedObjectContext(.privateQueue)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        let name = try other.performAndWait { (try other.existingObject(with: zoos[1].objectID) as! Zoo).name }
        #expect(name == "Changed Elsewhere")
    }

    @Test func aFaultFiredInsideAnotherContextsBlockHandsTheStoreItsOwnContext() throws {
        let (_, store, context) = try seeded()
        let request = ZooModel.tableRequest()
        request.fetchBatchSize = 3
        request.relationshipKeyPathsForPrefetching = ["zoos", "classification"]
        let animals = try context.fetch(request)
        #expect(animals.count > 3 && animals.allSatisfy(\.isFault))
        let other = NSManagedObjectContext(.privateQueue)
        other.persistentStoreCoordinator = context.persistentStoreCoordinator
        // The fault fires while another context runs a block: its batch's nodes, relationships and the
        // prefetched zoos are all read for the context that owns the objects.
        let before = store.readingContexts.count
        let zoos = other.performAndWait { animals[0].zoos.map { $0.name ?? "?" } }
        let handed = store.readingContexts.dropFirst(before)
        #expect(!zoos.isEmpty && store.nodeReads > 3)
        #expect(!handed.isEmpty && handed.allSatisfy { $0 === context }, "the store is handed the context that fired the fault, not the one performing")
    }

    @Test func relationshipsComeFromNewValueForRelationship() throws {
        let (_, store, context) = try seeded()
        let manatee = try #require(try context.fetch(NSFetchRequest<Animal>(entityName: "Animal").with(NSPredicate(format: "commonName == 'West Indian Manatee'"))).first)
        let before = store.relationshipReads
        #expect(manatee.classification?.family == "Trichechidae")
        #expect(manatee.zoos.map(\.name) == ["Lowry Park Zoo"])
        #expect(store.relationshipReads > before)
        let lowry = try #require(manatee.zoos.first)
        #expect(lowry.animals.map(\.commonName!).sorted() == ["Mantled Howler", "Pygmy Fruit-eating Bat", "West Indian Manatee"])
        #expect(lowry.animals.contains(manatee), "the to-many holds the very object fetched before (uniquing)")
    }

    @Test func oneObjectPerIDInAContext() throws {
        let (_, store, context) = try seeded()
        let first = try context.fetch(ZooModel.tableRequest())
        let again = try context.fetch(ZooModel.tableRequest())
        #expect(first.count == 4 && zip(first, again).allSatisfy { $0 === $1 })
        let id = first[0].objectID
        #expect(context.object(with: id) === first[0])
        #expect(store.referenceObject(for: id) as? String != nil)
        #expect(store.newObjectID(for: id.entity, referenceObject: store.referenceObject(for: id)) == id)
        #expect(id.uriRepresentation() == store.newObjectID(for: id.entity, referenceObject: store.referenceObject(for: id)).uriRepresentation())
    }

    /// Objects flagged with `detectConflicts(for:)` reach the store as the save's `lockedObjects`, not as
    /// updated objects when they did not change.
    @Test func objectsFlaggedForConflictDetectionAreTheSavesLockedObjects() throws {
        let (_, store, context) = try seeded()
        let animals = try context.fetch(ZooModel.tableRequest())
        let (flagged, changed) = (animals[0], animals[1])
        context.detectConflicts(for: flagged)
        changed.habitat = "Elsewhere"
        try context.save()
        let save = try #require(store.lastSave)
        #expect(save.lockedObjects == [flagged])
        #expect(save.updatedObjects == [changed])
    }

    @Test func insertsUpdatesAndDeletesReachTheStoreThroughExecute() throws {
        let (url, store, context) = try seeded()
        let animals = try context.fetch(ZooModel.tableRequest())
        let bat = try #require(animals.first { $0.commonName == "Pygmy Fruit-eating Bat" })
        let howler = try #require(animals.first { $0.commonName == "Mantled Howler" })
        bat.habitat = "Night House"
        context.delete(howler)
        let aardvark = Animal(context: context)
        aardvark.commonName = "Aardvark"
        aardvark.classification = bat.classification
        aardvark.zoos = [try #require(bat.zoos.first)]
        let savesBefore = store.saves
        try context.save()
        #expect(store.saves == savesBefore + 1)
        #expect(!aardvark.objectID.isTemporaryID && store.referenceObject(for: aardvark.objectID) is String)
        let saveRequest = try #require(store.contexts.last.flatMap { $0 })
        #expect(saveRequest === context)

        let (_, reopened) = try open(url)
        let read = try reopened.fetch(ZooModel.tableRequest())
        #expect(read.map(\.commonName!).sorted() == ["Aardvark", "Geoffroy’s Spider Monkey", "Pygmy Fruit-eating Bat", "West Indian Manatee"])
        #expect(read.first { $0.commonName == "Pygmy Fruit-eating Bat" }?.habitat == "Night House")
        let newcomer = try #require(read.first { $0.commonName == "Aardvark" })
        #expect(describe(newcomer) == "Aardvark Phyllostomidae [\"\(aardvark.zoos.first!.name!)\"]")
        // The inverse side was written too: the bats' classification lists the aardvark.
        #expect(newcomer.classification?.animals.map(\.commonName!).sorted() == ["Aardvark", "Pygmy Fruit-eating Bat"])
        // A second update of the same object: its version went on from the store's node.
        bat.habitat = "Cave"
        try context.save()
        #expect(store.server.records[store.referenceObject(for: bat.objectID) as! String]?.version == 3)
    }

    @Test func aFailedSaveLeavesTheContextAndTheStoreAsTheyWere() throws {
        let (_, store, context) = try seeded()
        let records = store.server.records.mapValues(\.version)
        let zoo = try #require(try context.fetch(NSFetchRequest<Zoo>(entityName: "Zoo")).first)
        zoo.name = "Renamed"
        let inserted = Zoo(context: context)
        inserted.name = "New Zoo"
        store.server.failSaves = true
        defer { store.server.failSaves = false }
        #expect(throws: (any Error).self) { try context.save() }
        #expect(context.hasChanges && zoo.name == "Renamed" && zoo.isUpdated && inserted.isInserted)
        #expect(store.server.records.mapValues(\.version) == records, "no record was written")
        store.server.failSaves = false
        try context.save()
        #expect(!context.hasChanges && store.server.records.count == records.count + 1)
    }

    @Test func aRecordChangedInTheStoreIsAnOptimisticLockingConflict() throws {
        let (_, store, context) = try seeded()
        let zoo = try #require(try context.fetch(NSFetchRequest<Zoo>(entityName: "Zoo").with(NSPredicate(format: "name == 'San Diego Zoo'"))).first)
        let ref = store.referenceObject(for: zoo.objectID) as! String
        store.server.records[ref]!.values["location"] = "Elsewhere"
        store.server.records[ref]!.version += 1
        zoo.name = "Mine"
        context.mergePolicy = NSErrorMergePolicy
        #expect(throws: (any Error).self) { try context.save() }
        #expect(store.server.records[ref]?.values["name"] as? String == "San Diego Zoo")
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        try context.save()
        #expect(store.server.records[ref]?.values["name"] as? String == "Mine")
        #expect(store.server.records[ref]?.values["location"] as? String == "Elsewhere", "the store's change to another property stands")
    }

    @Test func countsAskTheStoreForACount() throws {
        let (_, store, context) = try seeded()
        let request = NSFetchRequest<Animal>(entityName: "Animal")
        request.predicate = NSPredicate(format: "ANY zoos.name == 'San Diego Zoo'")
        #expect(try context.count(for: request) == 3)
        #expect(store.fetches.last?.resultType == .countResultType)
        #expect(try context.count(for: NSFetchRequest<Zoo>(entityName: "Zoo")) == 3)
        // Pending changes count too.
        _ = Zoo(context: context)
        #expect(try context.count(for: NSFetchRequest<Zoo>(entityName: "Zoo")) == 4)
    }

    @Test func aControllerReportsAnInsert() throws {
        let (_, _, context) = try seeded()
        let controller = NSFetchedResultsController(fetchRequest: ZooModel.tableRequest(), managedObjectContext: context,
                                                    sectionNameKeyPath: nil, cacheName: nil)
        let delegate = Recorder()
        controller.delegate = delegate
        try controller.performFetch()
        #expect(controller.fetchedObjects?.count == 4)
        let animal = Animal(context: context)
        animal.commonName = "Aardvark"
        try context.save()
        #expect(delegate.inserts == [IndexPath(item: 0, section: 0)], "no classification sorts first")
        #expect(controller.fetchedObjects?.first === animal)
    }

    final class Recorder: NSFetchedResultsControllerDelegate {
        var inserts: [IndexPath] = []
        func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
                        at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) {
            if type == .insert, let newIndexPath { inserts.append(newIndexPath) }
        }
    }

    @Test func theCoordinatorExecutesFetchRequestsAndRefusesOthers() throws {
        let (_, store, context) = try seeded()
        let coordinator = try #require(context.persistentStoreCoordinator)
        let request = NSFetchRequest<NSManagedObjectID>(entityName: "Zoo")
        request.resultType = .managedObjectIDResultType
        let ids = try #require(try coordinator.execute(request, with: context) as? [Any])
        #expect(ids.count == 3 && ids.allSatisfy { $0 is NSManagedObjectID })
        #expect(store.fetches.last?.entityName == "Zoo")
        let save = NSSaveChangesRequest(insertedObjects: nil, updatedObjects: nil, deletedObjects: nil, lockedObjects: nil)
        #expect { try coordinator.execute(save, with: context) } throws: { ($0 as NSError).code == NSPersistentStoreUnsupportedRequestTypeError }
        // Dictionary fetches through a context are refused with the same code.
        let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Zoo")
        dictionaries.resultType = .dictionaryResultType
        #expect { try context.fetch(dictionaries) } throws: { ($0 as NSError).code == NSPersistentStoreUnsupportedRequestTypeError }
    }

    @Test func theBaseClassMethodsAskToBeOverridden() throws {
        let bare = NSIncrementalStore(persistentStoreCoordinator: nil, configurationName: nil, at: newURL())
        #expect(throws: (any Error).self) { try bare.loadMetadata() }
        #expect { try bare.execute(NSFetchRequest<Zoo>(entityName: "Zoo"), with: nil) } throws: {
            ($0 as NSError).code == NSPersistentStoreUnsupportedRequestTypeError
        }
        #expect(throws: (any Error).self) { try bare.obtainPermanentIDs(for: []) }
        let first = NSIncrementalStore.identifierForNewStore(at: newURL()) as? String
        #expect(first.flatMap(UUID.init(uuidString:)) != nil && first != NSIncrementalStore.identifierForNewStore(at: newURL()) as? String)
        // A class whose loadMetadata() is the base's is not added.
        NSPersistentStoreCoordinator.registerStoreClass(NSIncrementalStore.self, forStoreType: "BareIncremental")
        defer { NSPersistentStoreCoordinator.registerStoreClass(nil, forStoreType: "BareIncremental") }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ZooModel.make())
        #expect(throws: (any Error).self) { try coordinator.addPersistentStore(ofType: "BareIncremental", configurationName: nil, at: newURL()) }
        #expect(coordinator.persistentStores.isEmpty)
    }

    @Test func nodesHoldValuesAndVersions() throws {
        let (_, _, context) = try seeded()
        let zoo = try #require(try context.fetch(NSFetchRequest<Zoo>(entityName: "Zoo")).first)
        let name = try #require(zoo.entity.propertiesByName["name"])
        let node = NSIncrementalStoreNode(objectID: zoo.objectID, withValues: ["name": "A"], version: 4)
        #expect(node.objectID == zoo.objectID && node.version == 4 && node.value(for: name) as? String == "A")
        node.update(withValues: ["location": "B"], version: 5)
        #expect(node.version == 5 && node.value(for: name) == nil)
        #expect(node.value(for: try #require(zoo.entity.propertiesByName["location"])) as? String == "B")
    }
}

private extension NSFetchRequest {
    func with(_ predicate: NSPredicate) -> Self {
        self.predicate = predicate
        return self
    }
}
