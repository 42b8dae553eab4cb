import Foundation
import OpenCoreData
import OpenSwiftData
import Testing

/// Values beyond the store's own types, as SwiftData allows them: a `Codable` struct (a composite attribute, a
/// column per field), an enum (its raw value), arrays of values (transformable).
@Suite struct CodableValueTests {
    @Test func aStructAnEnumAndArraysAreStoredAndReadBack() throws {
        let url = temporaryStoreURL()
        do {
            let context = ModelContext(try ModelContainer(for: Landmark.self, configurations: ModelConfiguration(url: url)))
            let louvre = Landmark(name: "Louvre", coordinates: Coordinates(latitude: 48.86, longitude: 2.34, label: "Pyramid"),
                                  category: .museum, tags: ["art", "paris"])
            louvre.visits = [Date(timeIntervalSince1970: 10), Date(timeIntervalSince1970: 20)]
            context.insert(louvre)
            context.insert(Landmark(name: "Hyde Park", coordinates: Coordinates(latitude: 51.51, longitude: -0.17), category: .park, tags: []))
            try context.save()
            louvre.entrance = Coordinates(latitude: 48.861, longitude: 2.335, label: nil)
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Landmark.self, configurations: ModelConfiguration(url: url)))
        let all = try context.fetch(FetchDescriptor<Landmark>(sortBy: [SortDescriptor(\.name)]))
        #expect(all.map(\.name) == ["Hyde Park", "Louvre"])
        let louvre = all[1]
        #expect(louvre.coordinates == Coordinates(latitude: 48.86, longitude: 2.34, label: "Pyramid"))
        #expect(louvre.entrance == Coordinates(latitude: 48.861, longitude: 2.335, label: nil))
        #expect(all[0].entrance == nil && all[0].coordinates.label == nil)
        #expect(louvre.category == .museum && all[0].category == .park)
        #expect(louvre.tags == ["art", "paris"] && all[0].tags.isEmpty)
        #expect(louvre.visits == [Date(timeIntervalSince1970: 10), Date(timeIntervalSince1970: 20)])
    }

    @Test func theCompositeAndTheEnumAreCoreDataAttributes() throws {
        let container = try ModelContainer(for: Landmark.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let entity = try #require(container.managedObjectModel.entitiesByName["Landmark"])
        let composite = try #require(entity.attributesByName["coordinates"] as? NSCompositeAttributeDescription)
        #expect(composite.elements.map(\.name) == ["latitude", "longitude", "label"])
        #expect(composite.elements.map(\.attributeType) == [.doubleAttributeType, .doubleAttributeType, .stringAttributeType])
        #expect(composite.elements.map(\.isOptional) == [false, false, true])
        #expect(entity.attributesByName["entrance"]?.isOptional == true)
        #expect(entity.attributesByName["category"]?.attributeType == .stringAttributeType)
        #expect(entity.attributesByName["tags"]?.attributeType == .transformableAttributeType)
        let schemaComposite = try #require(container.schema.entitiesByName["Landmark"]?.attributesByName["coordinates"] as? Schema.CompositeAttribute)
        #expect(schemaComposite.properties.map(\.name) == ["latitude", "longitude", "label"])
        let decoded = try JSONDecoder().decode(Schema.CompositeAttribute.self, from: JSONEncoder().encode(schemaComposite))
        #expect(decoded.properties.map(\.name) == schemaComposite.properties.map(\.name))
        #expect(decoded.properties.map { "\($0.valueType)" } == ["Double", "Double", "Optional<String>"])
    }

    @Test func predicatesOnTheEnumAndTheCompositeRunWithTheSameMeaning() throws {
        let seed = UInt64.random(in: 0..<1_000_000)
        var random = SplitMix(seed)
        let context = ModelContext(try ModelContainer(for: Landmark.self, configurations: ModelConfiguration(url: temporaryStoreURL())))
        for i in 0..<30 {
            context.insert(Landmark(name: "L\(i)", coordinates: Coordinates(latitude: Double(random.next() % 180) - 90, longitude: 0),
                                    category: Category.allCases[Int(random.next() % 3)], tags: []))
        }
        try context.save()
        let all = try context.fetch(FetchDescriptor<Landmark>())
        let museum = Category.museum
        let museums = try context.fetch(FetchDescriptor<Landmark>(predicate: #Predicate { $0.category == museum }))
        #expect(Set(museums.map(\.name)) == Set(all.filter { $0.category == .museum }.map(\.name)), "seed \(seed)")
        let north = try context.fetch(FetchDescriptor<Landmark>(predicate: #Predicate { $0.coordinates.latitude > 0 }))
        #expect(Set(north.map(\.name)) == Set(all.filter { $0.coordinates.latitude > 0 }.map(\.name)), "seed \(seed)")
    }
}

extension CodableValueTests {
    @Test func aCapturedSetOfStringsStillFiltersInTheStore() throws {
        let context = ModelContext(try ModelContainer(for: Landmark.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        for name in ["A", "B", "C"] {
            context.insert(Landmark(name: name, coordinates: Coordinates(latitude: 0, longitude: 0), category: .park, tags: []))
        }
        let wanted: Set<String> = ["A", "C"]
        let found = try context.fetch(FetchDescriptor<Landmark>(predicate: #Predicate { wanted.contains($0.name) }, sortBy: [SortDescriptor(\.name)]))
        #expect(found.map(\.name) == ["A", "C"])
    }
}
