// zoo-codegen: an app target built with the OpenCoreDataCodegen plugin, as a port from Xcode would be.
//
// Its Zootastic.xcdatamodeld (seed 003's Zoo, Classification and Animal, plus Bird, a subentity of Animal, and
// Keeper, an ordered to-many of Zoo, whose shiftStart is a date with "Use Scalar Type", so a TimeInterval)
// has codegen "class" for every entity but Classification, whose codegen is "category": the target has no
// class files but Classification's own, and the code below is Core Data code, unchanged — typed
// properties, `fetchRequest()`, Xcode's generated accessors.
//
//     swift run zoo-codegen            prints what it does; exits 1 if anything differs from Core Data
//
// OpenCoreDataGeneratorTests runs it (docs/ModelFiles.md, "Generated classes").

import Foundation
import OpenCoreData

nonisolated(unsafe) var failures = 0

/// Prints the check; counts it when it fails.
func check(_ condition: Bool, _ what: String) {
    print(condition ? "ok: \(what)" : "FAILED: \(what)")
    if !condition { failures += 1 }
}

/// A container on a new SQLite file, with the model shipped as the target's resource.
func makeContainer() throws -> (NSPersistentContainer, URL) {
    guard let model = NSManagedObjectModel.mergedModel(from: [Bundle.module]) else {
        throw CocoaError(.fileReadCorruptFile)
    }
    let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("zoo-codegen-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let container = NSPersistentContainer(name: "Zootastic", managedObjectModel: model)
    container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: folder.appendingPathComponent("Zootastic.sqlite"))]
    var loadError: Error?
    container.loadPersistentStores { _, error in loadError = error }
    if let loadError { throw loadError }
    return (container, folder)
}

/// Insert, save, fetch through `Animal.fetchRequest()` in another context, walk the relationships.
func zoosAndAnimals() throws {
    let (container, folder) = try makeContainer()
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
    check(flamingo.legs == 4, "a scalar attribute starts at the model's default (legs 4)")
    flamingo.addToZoos(NSSet(array: [tampa]))
    let stork = Bird(context: context)
    stork.commonName = "Stork"
    stork.wingspan = 2.1
    stork.legs = 2
    stork.addToZoos(sanDiego)
    try context.save()
    print("saved 2 zoos, 1 classification, 3 animals (one a Bird)")

    let other = container.newBackgroundContext()
    try other.performAndWait {
        let birds: NSFetchRequest<Bird> = Bird.fetchRequest()
        let fetchedBirds = try other.fetch(birds)
        check(fetchedBirds.map(\.commonName) == ["Stork"] && fetchedBirds.first?.wingspan == 2.1,
              "Bird.fetchRequest() fetches the Bird with its wingspan")
        let everyAnimal = try other.fetch(NSFetchRequest<Animal>(entityName: "Animal"))
        check(everyAnimal.count == 3 && everyAnimal.filter { $0 is Bird }.count == 1,
              "a fetch of Animal returns the subentity's object as a Bird")

        let request: NSFetchRequest<Animal> = Animal.fetchRequest()
        request.predicate = NSPredicate(format: "ANY zoos.name == %@", "Lowry Park Zoo")
        request.sortDescriptors = [NSSortDescriptor(key: "commonName", ascending: true)]
        let animals = try other.fetch(request)
        print("animals at Lowry Park Zoo: \(animals.compactMap(\.commonName).joined(separator: ", "))")
        check(animals.map(\.commonName) == ["Flamingo", "Gorilla"], "Animal.fetchRequest() with a predicate across a to-many, sorted")
        check(animals.map(\.legs) == [4, 2], "scalar Int16 values come back")
        guard animals.count == 2 else { return }
        let ape = animals[1]
        check(ape.classification?.family == "Hominidae", "a to-one walks to the category entity's class")
        check(ape.classification?.label == "Primates / Hominidae", "the app's own code in the category entity's class")
        check((ape.zoos as? Set<Zoo>)?.compactMap(\.name).sorted() == ["Lowry Park Zoo", "San Diego Zoo"], "a to-many is an NSSet of Zoos")
        check(ape.classification?.animals?.count == 1, "the inverse to-many")

        let zoos = try other.fetch(Zoo.fetchRequest())
        check(zoos.count == 2 && Set(zoos.map(\.id)).count == 2, "Zoo.fetchRequest() needs no type; Zoo is Identifiable")
    }

    gorilla.removeFromZoos(tampa)
    try context.save()
    check(tampa.animals?.count == 1, "removeFromZoos(_:) updates the inverse")
    let classifications = try context.fetch(Classification.fetchRequest())
    check(classifications.map(\.label) == ["Primates / Hominidae"], "Classification.fetchRequest() from the category's generated file")
}

/// An ordered to-many through Xcode's ordered accessors: insert at an index and at an `NSIndexSet`,
/// replace, remove at an index, add an `NSOrderedSet`; the order survives a save and a refetch.
func zooKeepers() throws {
    let (container, folder) = try makeContainer()
    defer { try? FileManager.default.removeItem(at: folder) }
    let context = container.viewContext
    func keeper(_ name: String) -> Keeper {
        let keeper = Keeper(context: context)
        keeper.name = name
        keeper.since = Date(timeIntervalSinceReferenceDate: 0)
        keeper.shiftStart = 8 * 3600 + 0.5  // a date with "Use Scalar Type": a TimeInterval since 2001
        return keeper
    }
    let zoo = Zoo(context: context)
    zoo.name = "San Diego Zoo"
    let ana = keeper("Ana"), ben = keeper("Ben"), cy = keeper("Cy"), dee = keeper("Dee"), eve = keeper("Eve")
    zoo.addToKeepers(ana)
    zoo.insertIntoKeepers(ben, at: 0)                                                              // Ben, Ana
    zoo.insertIntoKeepers([cy, dee], at: NSIndexSet(indexesIn: NSRange(location: 1, length: 2)))  // Ben, Cy, Dee, Ana
    zoo.replaceKeepers(at: 3, with: eve)                                                           // Ben, Cy, Dee, Eve
    zoo.removeFromKeepers(at: 0)                                                                   // Cy, Dee, Eve
    zoo.addToKeepers(NSOrderedSet(array: [ana]))                                                   // Cy, Dee, Eve, Ana
    let names = { (keepers: NSOrderedSet?) in keepers?.array.compactMap { ($0 as? Keeper)?.name } ?? [] }
    print("keepers: \(names(zoo.keepers).joined(separator: ", "))")
    check(names(zoo.keepers) == ["Cy", "Dee", "Eve", "Ana"], "the ordered accessors insert, replace, remove and add in order")
    check(ben.zoo == nil && ana.zoo === zoo, "the ordered accessors keep the inverse")
    try context.save()

    let other = container.newBackgroundContext()
    try other.performAndWait {
        let zoos = try other.fetch(Zoo.fetchRequest())
        check(names(zoos.first?.keepers) == ["Cy", "Dee", "Eve", "Ana"], "the order survives a save and a refetch")
        let keepers = try other.fetch(Keeper.fetchRequest())
        check(keepers.count == 5 && keepers.allSatisfy { $0.since == Date(timeIntervalSinceReferenceDate: 0) }, "Date? values come back")
        check(keepers.allSatisfy { $0.shiftStart == 8 * 3600 + 0.5 && $0.value(forKey: "shiftStart") as? Date == Date(timeIntervalSinceReferenceDate: 8 * 3600 + 0.5) },
              "a scalar date (TimeInterval) comes back as its seconds since 2001, stored as a date")
    }
}

/// A controller sectioned by a `@KeyValue` property declared in an extension of a generated class.
func sectionsByFirstInitial() throws {
    let (container, folder) = try makeContainer()
    defer { try? FileManager.default.removeItem(at: folder) }
    let context = container.viewContext
    for name in ["Gorilla", "Flamingo", "Giraffe", "Stork"] {
        Animal(context: context).commonName = name
    }
    try context.save()
    let request: NSFetchRequest<Animal> = Animal.fetchRequest()
    request.sortDescriptors = [NSSortDescriptor(key: "commonName", ascending: true)]
    let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                sectionNameKeyPath: "firstInitial", cacheName: nil)
    try controller.performFetch()
    let sections = controller.sections?.map { "\($0.name): \($0.numberOfObjects)" } ?? []
    print("sections by firstInitial: \(sections.joined(separator: ", "))")
    check(sections == ["F: 1", "G: 2", "S: 1"], "a controller sections by a @KeyValue property of an extension of a generated class")
    check(controller.fetchedObjects?.first?.value(forKey: "firstInitial") as? String == "F", "value(forKey:) reads it")
}

do {
    try zoosAndAnimals()
    try zooKeepers()
    try sectionsByFirstInitial()
} catch {
    print("FAILED: \(error)")
    failures += 1
}
print(failures == 0 ? "all checks passed" : "\(failures) checks failed")
exit(failures == 0 ? 0 : 1)
