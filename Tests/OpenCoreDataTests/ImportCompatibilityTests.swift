import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Code written against Core Data's Swift API, with `import Foundation` beside `import OpenCoreData`,
/// must see our types in type positions and in calls (ARCHITECTURE.md, "Compatibility rule").
@Suite("Import compatibility")
struct ImportCompatibilityTests {
    var predicate: NSPredicate? = NSPredicate(format: "name == %@", "x")
    var sorts: [NSSortDescriptor] = [NSSortDescriptor(key: "name", ascending: true)]

    @Test func typePositionsAndCallsResolveToOurs() {
        let comparison: NSComparisonPredicate? = predicate as? NSComparisonPredicate
        let compound: NSCompoundPredicate = NSCompoundPredicate(andPredicateWithSubpredicates: [predicate!])
        let expression: NSExpression = NSExpression(forKeyPath: "name")
        let selector: Selector = "localizedStandardCompare:"
        let sorted = NSSortDescriptor(key: "name", ascending: true, selector: selector)
        #expect(comparison?.leftExpression == expression)
        #expect(compound.predicateFormat == "name == \"x\"")
        #expect(sorted.selector == Selector("localizedStandardCompare:"))
        #expect(sorts.count == 1)
        let names = ["a", "b"]
        #expect(NSPredicate(format: "name IN %@", names).evaluate(with: ["name": "b"]))
        #expect(NSPredicate(format: "date < %@", Date()).evaluate(with: ["date": Date.distantPast]))
    }

    /// A model written the way Apple's documentation builds one in code, relationships included.
    @Test func aModelBuiltAsCoreDataCodeBuildsIt() throws {
        let animal = NSEntityDescription()
        animal.name = "Animal"
        animal.managedObjectClassName = "NSManagedObject"
        let classification = NSEntityDescription()
        classification.name = "Classification"
        let name = NSAttributeDescription()
        name.name = "commonName"
        name.attributeType = .stringAttributeType
        name.isOptional = true
        let order = NSAttributeDescription()
        order.name = "order"
        order.attributeType = .stringAttributeType
        let toClassification = NSRelationshipDescription()
        toClassification.name = "classification"
        toClassification.destinationEntity = classification
        toClassification.minCount = 0
        toClassification.maxCount = 1
        toClassification.deleteRule = .nullifyDeleteRule
        let toAnimals = NSRelationshipDescription()
        toAnimals.name = "animals"
        toAnimals.destinationEntity = animal
        toAnimals.minCount = 0
        toAnimals.maxCount = 0
        toAnimals.deleteRule = .cascadeDeleteRule
        toClassification.inverseRelationship = toAnimals
        toAnimals.inverseRelationship = toClassification
        animal.properties = [name, toClassification]
        classification.properties = [order, toAnimals]
        let model = NSManagedObjectModel()
        model.entities = [animal, classification]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let primates = NSEntityDescription.insertNewObject(forEntityName: "Classification", into: context)
            primates.setValue("Primates", forKey: "order")
            let capuchin = NSEntityDescription.insertNewObject(forEntityName: "Animal", into: context)
            capuchin.setValue(primates, forKey: "classification")
            try context.save()
            let animals = primates.value(forKey: "animals") as? NSSet
            #expect(animals?.count == 1)
            #expect(classification.relationshipsByName["animals"]?.isToMany == true)
            #expect(animal.relationships(forDestination: classification).map(\.name) == ["classification"])
            context.delete(primates)
            try context.save()
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Animal")) == 0)
        }
    }
}
