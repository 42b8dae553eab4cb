import Foundation
import OpenCoreData
import Testing

/// A target that uses the OpenCoreDataCodegen plugin, as an app ported from Xcode would: its
/// Zoo.xcdatamodeld (seed 003's Zoo, Classification and Animal, plus Bird, a subentity of Animal, and
/// Keeper, an ordered to-many of Zoo) has codegen "class" for every entity but Classification, whose
/// codegen is "category"; the target has no class files but Classification's own. The code below is Core
/// Data code, unchanged: typed properties, `fetchRequest()`, the generated accessors.
@Suite("A target using the OpenCoreDataCodegen plugin")
struct ZooCodegenTests {
    /// A container on a new SQLite file, with the model shipped as the target's resource.
    static func container() throws -> (NSPersistentContainer, URL) {
        let model = try #require(NSManagedObjectModel.mergedModel(from: [Bundle.module]))
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ocd-codegen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let container = NSPersistentContainer(name: "Zoo", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: folder.appendingPathComponent("Zoo.sqlite"))]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return (container, folder)
    }

    @Test func insertSaveFetchAndWalkWithGeneratedClasses() throws {
        let (container, folder) = try Self.container()
        defer { try? FileManager.default.removeItem(at: folder) }
        let context = container.viewContext

        let sanDiego = Zoo(context: context)
        sanDiego.name = "San Diego Zoo"
        sanDiego.location = "San Diego, CA"
        let tampa = Zoo(context: context)
        tampa.name = "Lowry Park Zoo"
        tampa.location = "Tampa, FL"
        let primates = Classification(context: context)
        primates.order = "Primates"
        primates.family = "Hominidae"
        let gorilla = Animal(context: context)
        gorilla.commonName = "Gorilla"
        gorilla.habitat = "Forest"
        gorilla.legs = 2
        gorilla.classification = primates
        gorilla.addToZoos(sanDiego)
        gorilla.addToZoos(tampa)
        let flamingo = Animal(context: context)
        flamingo.commonName = "Flamingo"
        #expect(flamingo.legs == 4, "the model's default")
        flamingo.addToZoos(NSSet(array: [tampa]))
        let stork = Bird(context: context)
        stork.commonName = "Stork"
        stork.wingspan = 2.1
        stork.legs = 2
        stork.addToZoos(sanDiego)
        try context.save()

        let other = container.newBackgroundContext()
        try other.performAndWait {
            let birds: NSFetchRequest<Bird> = Bird.fetchRequest()
            let stork = try #require(try other.fetch(birds).first)
            #expect(stork.wingspan == 2.1 && stork.commonName == "Stork")
            let everyAnimal = try other.fetch(NSFetchRequest<Animal>(entityName: "Animal"))
            #expect(everyAnimal.contains { $0 is Bird } && everyAnimal.count == 3, "a subentity's objects are of its generated class")

            let request: NSFetchRequest<Animal> = Animal.fetchRequest()
            request.predicate = NSPredicate(format: "ANY zoos.name == %@", "Lowry Park Zoo")
            request.sortDescriptors = [NSSortDescriptor(key: "commonName", ascending: true)]
            let animals = try other.fetch(request)
            #expect(animals.map(\.commonName) == ["Flamingo", "Gorilla"])
            #expect(animals.map(\.legs) == [4, 2])
            let ape = animals[1]
            #expect(ape.classification?.family == "Hominidae")
            #expect(ape.classification?.label == "Primates / Hominidae")
            #expect((ape.zoos as? Set<Zoo>)?.compactMap(\.name).sorted() == ["Lowry Park Zoo", "San Diego Zoo"])
            #expect(ape.classification?.animals?.count == 1)

            let zoos = try other.fetch(Zoo.fetchRequest())
            #expect(zoos.count == 2)
            let identifiers = Set(zoos.map(\.id))
            #expect(identifiers.count == 2, "Identifiable, as Xcode declares it")
        }

        gorilla.removeFromZoos(tampa)
        try context.save()
        #expect(tampa.animals?.count == 1)
        let classifications = try context.fetch(Classification.fetchRequest())
        #expect(classifications.map(\.label) == ["Primates / Hominidae"])
    }

    /// An ordered to-many through Xcode's ordered accessors: insert at an index and at an `NSIndexSet`,
    /// replace, remove at an index, add an `NSOrderedSet`; the order survives a save and a refetch.
    @Test func orderedAccessorsKeepTheOrder() throws {
        let (container, folder) = try Self.container()
        defer { try? FileManager.default.removeItem(at: folder) }
        let context = container.viewContext
        func keeper(_ name: String) -> Keeper {
            let keeper = Keeper(context: context)
            keeper.name = name
            keeper.since = Date(timeIntervalSinceReferenceDate: 0)
            return keeper
        }
        let zoo = Zoo(context: context)
        zoo.name = "San Diego Zoo"
        let ana = keeper("Ana"), ben = keeper("Ben"), cy = keeper("Cy"), dee = keeper("Dee"), eve = keeper("Eve")
        zoo.addToKeepers(ana)
        zoo.insertIntoKeepers(ben, at: 0)                                   // Ben, Ana
        zoo.insertIntoKeepers([cy, dee], at: NSIndexSet(indexesIn: NSRange(location: 1, length: 2)))  // Ben, Cy, Dee, Ana
        zoo.replaceKeepers(at: 3, with: eve)                                // Ben, Cy, Dee, Eve
        zoo.removeFromKeepers(at: 0)                                        // Cy, Dee, Eve
        zoo.addToKeepers(NSOrderedSet(array: [ana]))                        // Cy, Dee, Eve, Ana
        #expect(zoo.keepers?.array.compactMap { ($0 as? Keeper)?.name } == ["Cy", "Dee", "Eve", "Ana"])
        #expect(ben.zoo == nil && ana.zoo === zoo)
        try context.save()

        let other = container.newBackgroundContext()
        try other.performAndWait {
            let zoos = try other.fetch(Zoo.fetchRequest())
            #expect(zoos.first?.keepers?.array.compactMap { ($0 as? Keeper)?.name } == ["Cy", "Dee", "Eve", "Ana"])
            let keepers = try other.fetch(Keeper.fetchRequest())
            #expect(keepers.allSatisfy { $0.since == Date(timeIntervalSinceReferenceDate: 0) })
        }
    }
}
