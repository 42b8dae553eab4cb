import Foundation
@testable import OpenCoreData
import Testing
import OpenCoreDataTesting

/// Uniqueness constraints (issue 14): the unique index, the error of `NSErrorMergePolicy`, each standard
/// policy's merge, duplicates within one save, constraints on subentities, stores whose rows break a
/// constraint.
@Suite("Uniqueness constraints")
struct UniquenessConstraintTests {
    /// Person (email unique) ↔ Pet; Vehicle (root) with Car (plate unique among cars) and Bike.
    static func model() -> NSManagedObjectModel {
        let person = NSEntityDescription(name: "Person", properties: [
            NSAttributeDescription(name: "email", type: .stringAttributeType),
            NSAttributeDescription(name: "name", type: .stringAttributeType),
            NSAttributeDescription(name: "age", type: .integer64AttributeType),
            NSRelationshipDescription(name: "pets", destination: "Pet", inverse: "owner", toMany: true),
        ])
        person.uniquenessConstraints = [["email"]]
        let pet = NSEntityDescription(name: "Pet", properties: [
            NSAttributeDescription(name: "name", type: .stringAttributeType),
            NSRelationshipDescription(name: "owner", destination: "Person", inverse: "pets"),
        ])
        let car = NSEntityDescription(name: "Car")
        car.uniquenessConstraints = [["plate"]]
        let bike = NSEntityDescription(name: "Bike")
        let vehicle = NSEntityDescription(name: "Vehicle", properties: [NSAttributeDescription(name: "plate", type: .stringAttributeType)],
                                          subentities: [car, bike])
        return NSManagedObjectModel(entities: [person, pet, vehicle, car, bike])
    }

    @discardableResult
    func person(_ email: String?, _ name: String?, age: Int? = nil, in context: NSManagedObjectContext) -> NSManagedObject {
        let p = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
        p.setValue(email, forKey: "email")
        p.setValue(name, forKey: "name")
        if let age { p.setValue(age, forKey: "age") }
        return p
    }

    func people(_ context: NSManagedObjectContext) throws -> [(String?, String?, Int?)] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
        request.sortDescriptors = [NSSortDescriptor(key: "email", ascending: true), NSSortDescriptor(key: "name", ascending: true)]
        return try context.fetch(request).map { ($0.value(forKey: "email") as? String, $0.value(forKey: "name") as? String, $0.value(forKey: "age") as? Int) }
    }

    func petOwners(_ context: NSManagedObjectContext) throws -> [String: String?] {
        let pets = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Pet"))
        return Dictionary(uniqueKeysWithValues: pets.map { ($0.value(forKey: "name") as! String, ($0.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "email") as? String) })
    }

    /// A store holding ada@x (Ada, 36, with the pet Rex).
    func storeWithAda() throws -> (TemporaryStore, NSPersistentContainer) {
        let store = TemporaryStore()
        let container = try store.container(Self.model())
        let context = container.viewContext
        let ada = person("ada@x", "Ada", age: 36, in: context)
        let rex = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context)
        rex.setValue("Rex", forKey: "name")
        rex.setValue(ada, forKey: "owner")
        try context.save()
        return (store, container)
    }

    @Test func uniqueIndexSQL() throws {
        let (store, container) = try storeWithAda()
        defer { store.cleanUp() }
        _ = container
        let indexes = try SQLiteTestAccess.values("SELECT sql FROM sqlite_master WHERE type = 'index' AND name LIKE 'Z\\_%\\_UNIQUE\\_%' ESCAPE '\\' ORDER BY name", store.url)
        #expect(indexes == [
            [.string("CREATE UNIQUE INDEX Z_Car_UNIQUE_plate ON ZVEHICLE (ZPLATE COLLATE BINARY ASC) WHERE Z_ENT IN (5)")],
            [.string("CREATE UNIQUE INDEX Z_Person_UNIQUE_email ON ZPERSON (ZEMAIL COLLATE BINARY ASC)")],
        ])
    }

    @Test func errorPolicyFailsTheSaveAndChangesNothing() throws {
        let (store, container) = try storeWithAda()
        defer { store.cleanUp() }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let twin = person("ada@x", "Ada Lovelace", in: context)
            let other = person("bob@x", "Bob", in: context)
            var caught: NSError?
            do { try context.save() } catch { caught = error as NSError }
            let error = try #require(caught)
            #expect(error.domain == NSCocoaErrorDomain && error.code == NSManagedObjectConstraintMergeError && error.code == 133021)
            let list = try #require(error.userInfo["conflictList"] as? [NSConstraintConflict])
            #expect(list.count == 1)
            let conflict = list[0]
            #expect(conflict.constraint == ["email"])
            #expect(conflict.constraintValues["email"] as? String == "ada@x")
            #expect(conflict.conflictingObjects.count == 1 && conflict.conflictingObjects[0] === twin)
            #expect(conflict.conflictingSnapshots.count == 1 && conflict.conflictingSnapshots[0].isEmpty)
            #expect(conflict.databaseObject?.value(forKey: "name") as? String == "Ada")
            #expect(conflict.databaseSnapshot?["name"] as? String == "Ada")
            #expect(conflict.databaseSnapshot?["age"] as? Int == 36)
            // The context keeps its changes; the store has only Ada.
            #expect(twin.isInserted && other.isInserted && context.insertedObjects.count == 2)
            #expect(twin.objectID.isTemporaryID)
        }
        #expect(try people(container.newBackgroundContext()).map(\.0) == ["ada@x"])
        #expect(try SQLiteTestAccess.values("SELECT COUNT(*) FROM ZPERSON", store.url) == [[.int(1)]])
    }

    @Test func inContextDuplicatesAreAConflictWithoutDatabaseObject() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Self.model())
        let context = container.viewContext
        let a = person("x@x", "first", in: context)
        let b = person("x@x", "second", in: context)
        person(nil, "no email", in: context)
        person(nil, "no email either", in: context)  // NULLs never conflict, as in SQL
        var caught: NSError?
        do { try context.save() } catch { caught = error as NSError }
        let list = try #require(caught?.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])
        #expect(caught?.code == NSManagedObjectConstraintMergeError)
        #expect(list.count == 1 && list[0].databaseObject == nil && list[0].databaseSnapshot == nil)
        #expect(list[0].conflictingObjects.count == 2 && list[0].conflictingObjects[0] === a && list[0].conflictingObjects[1] === b)
        #expect(context.insertedObjects.count == 4)
        // Object trump: one object, the first inserted, with the later one's values.
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        try context.save()
        #expect(a.managedObjectContext === context && !a.objectID.isTemporaryID && b.managedObjectContext == nil)
        #expect(a.value(forKey: "name") as? String == "second")
        let fresh = container.newBackgroundContext()
        #expect(try fresh.performAndWait { try people(fresh) }.map { [$0.0 ?? "-", $0.1 ?? "-"] } == [["-", "no email"], ["-", "no email either"], ["x@x", "second"]])
    }

    /// Saves a second Ada (ada@x, "Ada L", no age, with the pet Fido) under `policy`; returns what a new
    /// context and a reopened store then see.
    func upsert(_ policy: NSMergePolicy) throws -> (people: [[String]], owners: [String: String?], reopened: [[String]], survivorHasAllPets: Bool) {
        let (store, container) = try storeWithAda()
        defer { store.cleanUp() }
        let context = container.newBackgroundContext()
        context.mergePolicy = policy
        try context.performAndWait {
            let twin = person("ada@x", "Ada L", in: context)
            let fido = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context)
            fido.setValue("Fido", forKey: "name")
            fido.setValue(twin, forKey: "owner")
            try context.save()
            #expect(twin.managedObjectContext == nil && twin.isDeleted)
            #expect(!context.hasChanges)
        }
        func rows(_ c: NSManagedObjectContext) throws -> [[String]] {
            try c.performAndWait { try people(c).map { [$0.0 ?? "-", $0.1 ?? "-", $0.2.map(String.init) ?? "-"] } }
        }
        let fresh = container.newBackgroundContext()
        let owners = try fresh.performAndWait { try petOwners(fresh) }
        let survivorPets = try fresh.performAndWait {
            let ada = try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).first
            return (ada?.value(forKey: "pets") as? Set<NSManagedObject>)?.count
        }
        let seen = try rows(fresh)
        let reopened = try store.container(Self.model())
        return (seen, owners, try rows(reopened.newBackgroundContext()), survivorPets == 2)
    }

    @Test func objectTrumpMergesTheNewValuesIntoTheRow() throws {
        let r = try upsert(NSMergeByPropertyObjectTrumpMergePolicy)
        #expect(r.people == [["ada@x", "Ada L", "36"]])  // the age the new object left unset stays
        #expect(r.reopened == r.people)
        #expect(r.owners == ["Rex": "ada@x", "Fido": "ada@x"] && r.survivorHasAllPets)
    }

    @Test func storeTrumpKeepsTheRowsValues() throws {
        let r = try upsert(NSMergeByPropertyStoreTrumpMergePolicy)
        #expect(r.people == [["ada@x", "Ada", "36"]])
        #expect(r.reopened == r.people)
        #expect(r.owners == ["Rex": "ada@x", "Fido": "ada@x"] && r.survivorHasAllPets)
    }

    @Test func overwriteWritesEveryNewValue() throws {
        let r = try upsert(NSOverwriteMergePolicy)
        #expect(r.people == [["ada@x", "Ada L", "-"]])
        #expect(r.reopened == r.people)
        #expect(r.owners == ["Rex": "ada@x", "Fido": "ada@x"] && r.survivorHasAllPets)
    }

    @Test func rollbackDiscardsTheNewValues() throws {
        let r = try upsert(NSRollbackMergePolicy)
        #expect(r.people == [["ada@x", "Ada", "36"]])
        #expect(r.reopened == r.people)
        #expect(r.owners == ["Rex": "ada@x", "Fido": "ada@x"] && r.survivorHasAllPets)
    }

    /// Merges as object trump does, then refuses: the save fails and the context is as before.
    final class MergeThenRefuse: NSMergePolicy, @unchecked Sendable {
        struct Refused: Error {}
        init() { super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType) }
        override func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
            try super.resolve(constraintConflicts: list)
            throw Refused()
        }
    }

    @Test func aResolutionThatThrowsLeavesTheContextAsItWas() throws {
        let (store, container) = try storeWithAda()
        defer { store.cleanUp() }
        let context = container.viewContext
        context.mergePolicy = MergeThenRefuse()
        let twin = person("ada@x", "Ada L", in: context)
        let fido = NSEntityDescription.insertNewObject(forEntityName: "Pet", into: context)
        fido.setValue("Fido", forKey: "name")
        fido.setValue(twin, forKey: "owner")
        #expect(throws: MergeThenRefuse.Refused.self) { try context.save() }
        #expect(twin.managedObjectContext === context && twin.isInserted && twin.objectID.isTemporaryID)
        #expect(fido.value(forKey: "owner") as? NSManagedObject === twin)
        #expect((twin.value(forKey: "pets") as? Set<NSManagedObject>)?.count == 1)
        #expect(context.insertedObjects.count == 2)
        let ada = context.registeredObjects.first { $0.entity.name == "Person" && $0 !== twin }
        #expect(ada?.value(forKey: "name") as? String == "Ada" && ada?.hasChanges == false)
        #expect(try people(container.newBackgroundContext()) .map(\.1) == ["Ada"])
        // Resolved for real this time.
        context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy
        try context.save()
        #expect(try people(container.newBackgroundContext()).map(\.1) == ["Ada L"])
        #expect(fido.value(forKey: "owner") as? NSManagedObject === ada)
    }

    @Test func movingAValueAwayAndTakingItInOneSaveIsNoConflict() throws {
        let (store, container) = try storeWithAda()
        defer { store.cleanUp() }
        let context = container.viewContext
        let ada = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))[0]
        ada.setValue("ada@y", forKey: "email")
        person("ada@x", "New", in: context)
        try context.save()
        #expect(try people(container.newBackgroundContext()).map(\.0) == ["ada@x", "ada@y"])
    }

    @Test func constraintOnASubentityCoversItsRowsOnly() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Self.model())
        let context = container.viewContext
        func insert(_ entity: String, _ plate: String) {
            NSEntityDescription.insertNewObject(forEntityName: entity, into: context).setValue(plate, forKey: "plate")
        }
        insert("Car", "AB-1")
        insert("Bike", "AB-1")
        insert("Bike", "AB-1")   // bikes are not constrained
        insert("Vehicle", "AB-1")
        try context.save()
        insert("Car", "AB-1")
        var caught: NSError?
        do { try context.save() } catch { caught = error as NSError }
        let list = try #require(caught?.userInfo["conflictList"] as? [NSConstraintConflict])
        #expect(list.count == 1 && list[0].databaseObject?.entity.name == "Car")
        #expect(try SQLiteTestAccess.values("SELECT COUNT(*) FROM ZVEHICLE", store.url) == [[.int(4)]])
    }

    /// A uniqueness constraint is part of its entity's version hash (as in Core Data): a store written
    /// without it is refused (by a container, which migrates, with NSMigrationMissingSourceModelError when
    /// there is no earlier model version to migrate from). A store with the
    /// constraint whose unique index is missing and whose rows break it (another program's doing) is not
    /// added either: the error names the entity and properties, and the rows are kept.
    @Test func aStoreWhoseRowsBreakANewConstraintIsNotAdded() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let model = Self.model()
        model.entitiesByName["Person"]!.uniquenessConstraints = []
        do {
            let container = try store.container(model)
            person("same@x", "one", in: container.viewContext)
            try container.viewContext.save()
        }
        var caught: NSError?
        do { _ = try store.container(Self.model()) } catch { caught = error as NSError }
        // (A container migrates by default: the model built in code has no earlier version to migrate from.)
        #expect(caught?.code == NSMigrationMissingSourceModelError)

        let other = TemporaryStore()
        defer { other.cleanUp() }
        do {
            let container = try other.container(Self.model())
            person("a@x", "one", in: container.viewContext)
            person("b@x", "two", in: container.viewContext)
            try container.viewContext.save()
        }
        let db = try SQLiteConnection(path: other.url.path)
        try db.execute("DROP INDEX Z_Person_UNIQUE_email")
        try db.execute("UPDATE ZPERSON SET ZEMAIL = 'same@x'")
        caught = nil
        do { _ = try other.container(Self.model()) } catch { caught = error as NSError }
        #expect(caught?.code == NSPersistentStoreOperationError)
        #expect((caught as? CoreDataError)?.message.contains("Person (email): 1 value is held by more than one row") == true)
        #expect(try SQLiteTestAccess.values("SELECT COUNT(*) FROM ZPERSON", other.url) == [[.int(2)]])
    }
}
