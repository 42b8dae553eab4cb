import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Seed 003's Zootastic model (`ZooModel`): built in code, seeded, saved, reopened by a new coordinator,
/// with every relationship intact from both sides; and the edits `swift run zoo` makes, persisted.
@Suite("Zootastic model round trip")
struct ZooWalkthroughTests {
    /// The object graph by name, read from both ends of every relationship.
    struct Graph: Equatable, CustomStringConvertible {
        /// Animal name → family of its classification (nil if it has none).
        var classificationOfAnimal: [String: String?] = [:]
        /// Animal name → names of its zoos.
        var zoosOfAnimal: [String: Set<String>] = [:]
        /// Family → names of its animals.
        var animalsOfClassification: [String: Set<String>] = [:]
        /// Zoo name → names of its animals.
        var animalsOfZoo: [String: Set<String>] = [:]

        var description: String {
            "classification: \(classificationOfAnimal)\nzoos: \(zoosOfAnimal)\nclassification animals: \(animalsOfClassification)\nzoo animals: \(animalsOfZoo)"
        }

        /// The graph that `ZooModel.seed(_:)` makes, from its data tables.
        static var seeded: Graph {
            var graph = Graph()
            for c in ZooModel.classifications { graph.animalsOfClassification[c.family] = [] }
            for z in ZooModel.zoos { graph.animalsOfZoo[z.name] = [] }
            for a in ZooModel.animals {
                graph.classificationOfAnimal[a.commonName] = a.family
                graph.zoosOfAnimal[a.commonName] = Set(a.zoos)
                graph.animalsOfClassification[a.family, default: []].insert(a.commonName)
                for zoo in a.zoos { graph.animalsOfZoo[zoo, default: []].insert(a.commonName) }
            }
            return graph
        }

        /// Reads the graph from `context` by fetching every object of each entity.
        static func read(_ context: NSManagedObjectContext) throws -> Graph {
            var graph = Graph()
            for animal in try context.fetch(NSFetchRequest<Animal>(entityName: "Animal")) {
                let name = try #require(animal.commonName)
                graph.classificationOfAnimal[name] = .some(animal.classification?.family)
                graph.zoosOfAnimal[name] = Set(animal.zoos.compactMap(\.name))
            }
            for c in try context.fetch(NSFetchRequest<Classification>(entityName: "Classification")) {
                graph.animalsOfClassification[try #require(c.family)] = Set(c.animals.compactMap(\.commonName))
            }
            for zoo in try context.fetch(NSFetchRequest<Zoo>(entityName: "Zoo")) {
                graph.animalsOfZoo[try #require(zoo.name)] = Set(zoo.animals.compactMap(\.commonName))
            }
            return graph
        }

        /// The disagreements between the two ends of each relationship (empty when every inverse holds).
        var inverseProblems: [String] {
            var problems: [String] = []
            for (animal, family) in classificationOfAnimal {
                if let family, animalsOfClassification[family]?.contains(animal) != true {
                    problems.append("\(family).animals lacks \(animal)")
                }
            }
            for (family, animals) in animalsOfClassification {
                for animal in animals where classificationOfAnimal[animal] != .some(family) {
                    problems.append("\(animal).classification is not \(family)")
                }
            }
            for (animal, zoos) in zoosOfAnimal {
                for zoo in zoos where animalsOfZoo[zoo]?.contains(animal) != true { problems.append("\(zoo).animals lacks \(animal)") }
            }
            for (zoo, animals) in animalsOfZoo {
                for animal in animals where zoosOfAnimal[animal]?.contains(zoo) != true { problems.append("\(animal).zoos lacks \(zoo)") }
            }
            return problems.sorted()
        }
    }

    /// A fresh store holding the seeded and saved Zootastic data; returns the store (clean it up).
    static func seededStore() throws -> TemporaryStore {
        let store = TemporaryStore()
        let container = try store.container(ZooModel.make())
        ZooModel.seed(container.viewContext)
        try container.viewContext.save()
        return store
    }

    @Test func theModelResolvesDestinationsAndInversesWhenLoaded() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let model = try store.container(ZooModel.make()).managedObjectModel
        let animal = try #require(model.entitiesByName["Animal"])
        let classification = try #require(animal.relationshipsByName["classification"])
        #expect(!classification.isToMany)
        #expect(classification.destinationEntity?.name == "Classification")
        #expect(classification.inverseRelationship?.name == "animals")
        #expect(classification.deleteRule == .nullifyDeleteRule)
        let zoos = try #require(animal.relationshipsByName["zoos"])
        #expect(zoos.isToMany)
        #expect(!zoos.isOrdered)
        #expect(zoos.destinationEntity?.name == "Zoo")
        #expect(zoos.inverseRelationship?.name == "animals")
        #expect(zoos.inverseRelationship?.isToMany == true)
        #expect(zoos.deleteRule == .nullifyDeleteRule)
        let animalsOfClassification = try #require(model.entitiesByName["Classification"]?.relationshipsByName["animals"])
        #expect(animalsOfClassification.isToMany)
        #expect(animalsOfClassification.inverseRelationship === classification)
        #expect(classification.inverseRelationship === animalsOfClassification)
        // `properties` holds the attributes and the relationships.
        #expect(Set(animal.properties.map(\.name)) == ["commonName", "habitat", "classification", "zoos"])
    }

    @Test func seedingSetsEveryInverseInMemoryBeforeSaving() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(ZooModel.make()).viewContext
        let seeded = ZooModel.seed(context)
        let graph = try Graph.read(context)
        #expect(graph == Graph.seeded, "\(graph)")
        #expect(graph.inverseProblems.isEmpty, "\(graph.inverseProblems)")
        // The inverse holds the very objects of this context.
        let manatee = try #require(seeded.animals["West Indian Manatee"])
        #expect(seeded.classifications["Trichechidae"]?.animals == [manatee])
        #expect(seeded.zoos["Lowry Park Zoo"]?.animals.contains(manatee) == true)
    }

    @Test func aNewCoordinatorReadsEveryRelationshipFromBothSides() throws {
        let store = try Self.seededStore()
        defer { store.cleanUp() }
        let reopened = try store.container(ZooModel.make())
        let graph = try Graph.read(reopened.viewContext)
        #expect(graph == Graph.seeded, "\(graph)")
        #expect(graph.inverseProblems.isEmpty, "\(graph.inverseProblems)")
        // The objects reached through a relationship are the context's own (one object per ID).
        let context = reopened.viewContext
        for animal in try context.fetch(NSFetchRequest<Animal>(entityName: "Animal")) {
            let classification = try #require(animal.classification)
            #expect(classification.animals.contains { $0 === animal })
            for zoo in animal.zoos { #expect(zoo.animals.contains { $0 === animal }) }
        }
    }

    @Test func theWalkthroughsEditsSurviveReopening() throws {
        let store = try Self.seededStore()
        defer { store.cleanUp() }
        let container = try store.container(ZooModel.make())
        let context = container.viewContext
        let byFamily = Dictionary(uniqueKeysWithValues: try context.fetch(NSFetchRequest<Classification>(entityName: "Classification")).map { ($0.family!, $0) })
        let byZoo = Dictionary(uniqueKeysWithValues: try context.fetch(NSFetchRequest<Zoo>(entityName: "Zoo")).map { ($0.name!, $0) })
        let byAnimal = Dictionary(uniqueKeysWithValues: try context.fetch(NSFetchRequest<Animal>(entityName: "Animal")).map { ($0.commonName!, $0) })
        var expected = Graph.seeded

        // Add an animal, filed under the wrong classification, in one zoo (through mutableSetValue).
        let bat = Animal(context: context)
        bat.commonName = "Jamaican Fruit Bat"
        bat.habitat = "Primate Exhibit"
        bat.classification = byFamily["Atelidae"]
        bat.addToZoos(try #require(byZoo["Oklahoma City Zoo"]))
        try context.save()
        // Reclassify it: it leaves Atelidae's animals at once.
        bat.classification = byFamily["Phyllostomidae"]
        #expect(byFamily["Atelidae"]?.animals.contains(bat) == false)
        #expect(byFamily["Phyllostomidae"]?.animals.contains(bat) == true)
        // Move the howler from Lowry Park to Oklahoma City, from the zoos' side.
        let howler = try #require(byAnimal["Mantled Howler"])
        byZoo["Lowry Park Zoo"]?.removeFromAnimals(howler)
        byZoo["Oklahoma City Zoo"]?.addToAnimals(howler)
        #expect(howler.zoos.compactMap(\.name).sorted() == ["Oklahoma City Zoo", "San Diego Zoo"])
        // Delete the manatee: nullify takes it out of its classification and zoo.
        context.delete(try #require(byAnimal["West Indian Manatee"]))
        try context.save()

        expected.classificationOfAnimal["Jamaican Fruit Bat"] = "Phyllostomidae"
        expected.zoosOfAnimal["Jamaican Fruit Bat"] = ["Oklahoma City Zoo"]
        expected.animalsOfClassification["Phyllostomidae", default: []].insert("Jamaican Fruit Bat")
        expected.animalsOfZoo["Oklahoma City Zoo", default: []].formUnion(["Jamaican Fruit Bat", "Mantled Howler"])
        expected.zoosOfAnimal["Mantled Howler"] = ["San Diego Zoo", "Oklahoma City Zoo"]
        expected.animalsOfZoo["Lowry Park Zoo"]?.remove("Mantled Howler")
        expected.classificationOfAnimal["West Indian Manatee"] = nil
        expected.zoosOfAnimal["West Indian Manatee"] = nil
        expected.animalsOfClassification["Trichechidae"] = []
        expected.animalsOfZoo["Lowry Park Zoo"]?.remove("West Indian Manatee")

        let inMemory = try Graph.read(context)
        #expect(inMemory == expected, "\(inMemory)")
        let reopened = try Graph.read(try store.container(ZooModel.make()).viewContext)
        #expect(reopened == expected, "\(reopened)")
        #expect(reopened.inverseProblems.isEmpty, "\(reopened.inverseProblems)")
    }

    @Test func clearingAToOneAndEmptyingAToManySurviveReopening() throws {
        let store = try Self.seededStore()
        defer { store.cleanUp() }
        let context = try store.container(ZooModel.make()).viewContext
        let animals = try context.fetch(NSFetchRequest<Animal>(entityName: "Animal"))
        let monkey = try #require(animals.first { $0.commonName == "Geoffroy’s Spider Monkey" })
        let atelidae = try #require(monkey.classification)
        monkey.classification = nil
        #expect(!atelidae.animals.contains(monkey))
        let bat = try #require(animals.first { $0.commonName == "Pygmy Fruit-eating Bat" })
        let batZoos = bat.zoos
        bat.zoos = []
        for zoo in batZoos { #expect(!zoo.animals.contains(bat)) }
        try context.save()

        let reopened = try Graph.read(try store.container(ZooModel.make()).viewContext)
        #expect(reopened.classificationOfAnimal["Geoffroy’s Spider Monkey"] == .some(nil))
        #expect(reopened.animalsOfClassification["Atelidae"] == ["Mantled Howler"])
        #expect(reopened.zoosOfAnimal["Pygmy Fruit-eating Bat"] == [])
        #expect(reopened.animalsOfZoo["Oklahoma City Zoo"] == [])
        #expect(reopened.inverseProblems.isEmpty, "\(reopened.inverseProblems)")
    }
}
