import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

@Suite("Relationships: delete rules and validation") struct DeleteRuleTests {
    private func context(_ store: TemporaryStore, _ model: NSManagedObjectModel = RelationshipModel.make()) throws -> NSManagedObjectContext {
        try store.container(model).viewContext
    }

    @Test func nullifyRemovesTheObjectFromItsInverses() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try context(store)
        let c = context.make("Classification", ["order": "Primates"])
        let zoo = context.make("Zoo", ["name": "Bronx"])
        let a = context.make("Animal", ["commonName": "Capuchin", "classification": c])
        let b = context.make("Animal", ["commonName": "Gorilla", "classification": c])
        a.mutableSetValue(forKey: "zoos").add(zoo)
        try context.save()
        context.delete(a)
        context.processPendingChanges()
        #expect(c.set("animals") == [b])
        #expect(zoo.set("animals").isEmpty)
        try context.save()
        // A new coordinator sees the same: no join rows, no foreign key to the deleted row.
        let reopened = try self.context(store)
        let zoos = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Zoo"))
        #expect(zoos[0].set("animals").isEmpty)
        let classifications = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Classification"))
        #expect(classifications[0].set("animals").map { $0.string("commonName") } == ["Gorilla"])
        // Deleting the classification nullifies the animal's to-one.
        let gorilla = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Animal"))[0]
        reopened.delete(classifications[0])
        try reopened.save()
        #expect(gorilla.value(forKey: "classification") == nil)
        let again = try self.context(store).fetch(NSFetchRequest<NSManagedObject>(entityName: "Animal"))[0]
        #expect(again.value(forKey: "classification") == nil)
    }

    @Test func anInsertDeletedAgainLeavesNoDanglingReference() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try context(store)
        let c = context.make("Classification", ["order": "Primates"])
        let zoo = context.make("Zoo", ["name": "Bronx"])
        let a = context.make("Animal", ["commonName": "Capuchin", "classification": c])
        a.mutableSetValue(forKey: "zoos").add(zoo)
        context.delete(a)
        try context.save()
        #expect(c.set("animals").isEmpty && zoo.set("animals").isEmpty)
        #expect(try self.context(store).count(for: NSFetchRequest<NSManagedObject>(entityName: "Animal")) == 0)
    }

    @Test func cascadeDeletesDestinationsRecursivelyOnce() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try context(store)
        let owner = context.make("Owner", ["name": "Ann"])
        for i in 0..<3 {
            let pet = context.make("Pet", ["name": "p\(i)", "owner": owner])
            for j in 0..<2 { context.make("Toy", ["name": "t\(i)\(j)", "pet": pet]) }
        }
        try context.save()
        context.delete(owner)
        try context.save()
        for entity in ["Owner", "Pet", "Toy"] {
            #expect(try self.context(store).count(for: NSFetchRequest<NSManagedObject>(entityName: entity)) == 0)
        }
    }

    @Test func denyMakesSaveThrowAndWritesNothing() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try context(store)
        let vault = context.make("Vault", ["name": "v"])
        context.make("Item", ["name": "gold", "vault": vault])
        try context.save()
        context.delete(vault)
        #expect { try context.save() } throws: { ($0 as NSError).code == NSValidationRelationshipDeniedDeleteError }
        #expect(try self.context(store).count(for: NSFetchRequest<NSManagedObject>(entityName: "Vault")) == 1)
        #expect(try self.context(store).count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) == 1)
        // Empty the relationship and the delete goes through.
        context.rollback()
        let item = vault.set("items").first!
        context.delete(item)
        context.delete(vault)
        try context.save()
        #expect(try self.context(store).count(for: NSFetchRequest<NSManagedObject>(entityName: "Vault")) == 0)
    }

    @Test func noActionLeavesTheInverseAlone() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try context(store)
        let keeper = context.make("Keeper", ["name": "k"])
        let tool = context.make("Tool", ["name": "rake", "keeper": keeper])
        try context.save()
        context.delete(keeper)
        try context.save()
        // The tool still names the deleted keeper (Core Data's no-action rule leaves it dangling).
        let reopened = try self.context(store)
        let tools = try reopened.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tool"))
        #expect(tools.count == 1)
        _ = tool
        let sqlite = try reopened.persistentStoreCoordinator!.sqlite
        var keeperColumn: Int64?
        try sqlite.read { db in try db.query("SELECT ZKEEPER FROM ZTOOL") { keeperColumn = $0.int64(0) } }
        #expect(keeperColumn != nil)
    }

    @Test func countsAndRequiredToOnesAreValidatedAtSave() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let model = RelationshipModel.make()
        let animals = model.entitiesByName["Classification"]!.relationshipsByName["animals"]!
        animals.minCount = 2
        animals.maxCount = 3
        let classification = model.entitiesByName["Animal"]!.relationshipsByName["classification"]!
        classification.isOptional = false
        let context = try context(store, model)
        let c = context.make("Classification", ["order": "Primates"])
        let a = context.make("Animal", ["commonName": "a", "classification": c])
        #expect { try context.save() } throws: { ($0 as NSError).code == NSValidationRelationshipLacksMinimumCountError }
        for i in 0..<3 { context.make("Animal", ["commonName": "b\(i)", "classification": c]) }
        #expect { try context.save() } throws: { ($0 as NSError).code == NSValidationRelationshipExceedsMaximumCountError }
        context.delete(a)
        try context.save()
        let orphan = context.make("Animal", ["commonName": "orphan"])
        #expect { try context.save() } throws: { ($0 as NSError).code == NSValidationMissingMandatoryPropertyError && "\($0)".contains("Animal.classification") }
        context.delete(orphan)
        try context.save()
    }

    @Test func modelErrorsNameEntityAndRelationship() throws {
        func load(_ entities: [NSEntityDescription]) throws {
            _ = try NSPersistentStoreCoordinator(validatingModel: NSManagedObjectModel(entities: entities))
        }
        let a = NSEntityDescription(name: "A", properties: [NSRelationshipDescription(name: "b", destination: "Nope", inverse: nil)])
        #expect { try load([a]) } throws: { "\($0)".contains("entity A: the destination entity Nope of relationship b is not in the model") }
        let x = NSEntityDescription(name: "X", properties: [NSRelationshipDescription(name: "y", destination: "Y", inverse: "missing")])
        let y = NSEntityDescription(name: "Y", properties: [NSRelationshipDescription(name: "x", destination: "X", inverse: "y")])
        #expect { try load([x, y]) } throws: { "\($0)".contains("the inverse missing of relationship y") }
        let p = NSEntityDescription(name: "P", properties: [NSRelationshipDescription(name: "q", destination: "Q", inverse: "r")])
        let q = NSEntityDescription(name: "Q", properties: [NSRelationshipDescription(name: "r", destination: "Q", inverse: nil)])
        #expect { try load([p, q]) } throws: { "\($0)".contains("relationship q names Q.r as its inverse") }
    }

    @Test func assigningAnObjectOfTheWrongEntityTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = TemporaryStore()
            let context = try store.container(RelationshipModel.make()).viewContext
            let animal = context.make("Animal")
            animal.setValue(context.make("Zoo"), forKey: "classification")
        }
    }
}
