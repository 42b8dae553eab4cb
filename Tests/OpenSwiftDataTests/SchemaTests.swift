import Foundation
import OpenCoreData
import OpenSwiftData
@testable import trips
import Testing

/// Schema, its entities and properties, as Apple documents them; #Unique and #Index as Core Data
/// constraints and indexes.
@Suite struct SchemaTests {
    @Test func aSchemaHasAnEntityPerModelTypeItReaches() throws {
        let schema = Schema([Trip.self])
        #expect(schema.entities.map(\.name) == ["Trip", "BucketListItem", "LivingAccommodation"])
        #expect(Schema.entityName(for: Trip.self) == "Trip")
        let trip = try #require(schema.entity(for: Trip.self))
        #expect(trip.properties.map(\.name) == ["name", "destination", "startDate", "endDate", "bucketList", "livingAccommodation"])
        #expect(trip.attributes.count == 4 && trip.relationships.count == 2)
        #expect(trip.attributesByName["name"]?.valueType == String.self && trip.attributesByName["name"]?.isOptional == false)
        #expect(trip.relationshipsByName["livingAccommodation"]?.isToOneRelationship == true)
        #expect(trip.relationshipsByName["livingAccommodation"]?.isOptional == true)
        #expect(trip.relationshipsByName["bucketList"]?.destination == "BucketListItem")
        #expect(trip.storedPropertiesByName.count == 6 && trip.inheritedProperties.isEmpty && trip.superentity == nil)
        #expect(schema.version == Schema.Version(1, 0, 0) && Schema.Version(1, 2, 0) < Schema.Version(1, 10, 0))
        #expect(Schema(Trip.self) == schema)
        #expect(Schema().entities.isEmpty)
    }

    @Test func attributeOptionsBecomeTheCoreDataModelsFlags() throws {
        let container = try ModelContainer(for: Shelf.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let book = try #require(container.managedObjectModel.entitiesByName["Book"])
        #expect(book.uniquenessConstraints.map { $0.map { "\($0)" } } == [["isbn"]])
        #expect((book.propertiesByName["rating"] as? NSAttributeDescription)?.isOptional == true)
        let shelf = try #require(container.managedObjectModel.entitiesByName["Shelf"]?.relationshipsByName["books"])
        #expect(shelf.deleteRule == .denyDeleteRule && shelf.maxCount == 2 && shelf.isToMany)
        #expect(container.schema.entitiesByName["Book"]?.attributesByName["isbn"]?.isUnique == true)
    }

    @Test func uniqueAndIndexMacrosBecomeConstraintsAndIndexes() throws {
        let url = temporaryStoreURL()
        let container = try ModelContainer(for: Reader.self, configurations: ModelConfiguration(url: url))
        let entity = try #require(container.schema.entitiesByName["Reader"])
        #expect(entity.uniquenessConstraints == [["givenName", "familyName"], ["card"]])
        #expect(entity.indices == [["familyName"], ["familyName", "givenName"]])
        let description = try #require(container.managedObjectModel.entitiesByName["Reader"])
        #expect(description.indexes.map { $0.elements.map { $0.propertyName ?? "" } } == [["familyName"], ["familyName", "givenName"]])
        let context = ModelContext(container)
        context.insert(Reader(givenName: "Ada", familyName: "Lovelace", card: 1))
        try context.save()
        context.insert(Reader(givenName: "Ada", familyName: "Lovelace", card: 2))
        try context.save()
        let readers = try ModelContext(container).fetch(FetchDescriptor<Reader>())
        #expect(readers.map(\.card) == [2])
    }
}

extension SchemaTests {
    @Test func anEntityGivenSubentitiesIsTheirSuperentityInTheCoreDataModel() throws {
        let title = Schema.Attribute(name: "title", valueType: String.self)
        let pages = Schema.Attribute(name: "pages", valueType: Int.self)
        let book = Schema.Entity("Book", properties: pages)
        let item = Schema.Entity("Item", subentities: book, properties: title)
        #expect(book.superentity === item && book.superentityName == "Item" && item.subentities == [book])
        #expect(book.inheritedProperties.map(\.name) == ["title"])
        let container = try ModelContainer(for: Schema(item, book), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let model = container.managedObjectModel
        #expect(model.entitiesByName["Book"]?.superentity?.name == "Item")
        #expect(Set(model.entitiesByName["Book"]?.propertiesByName.keys.map { $0 } ?? []) == ["title", "pages"])
    }

    @Test func aCloudKitContainerIsRefusedAndAutomaticSyncsNothing() throws {
        let automatic = ModelConfiguration(isStoredInMemoryOnly: true)
        #expect(automatic.cloudKitDatabase == .automatic && automatic.cloudKitContainerIdentifier == nil)
        _ = try ModelContainer(for: Trip.self, configurations: automatic)
        let synced = ModelConfiguration(url: temporaryStoreURL(), cloudKitDatabase: .private("iCloud.com.example.trips"))
        #expect(synced.cloudKitContainerIdentifier == "iCloud.com.example.trips")
        #expect {
            try ModelContainer(for: Trip.self, configurations: synced)
        } throws: { error in
            (error as? SwiftDataError) == .loadIssueModelContainer && "\(error)".contains("iCloud.com.example.trips")
        }
        #expect(!FileManager.default.fileExists(atPath: synced.url.path))
    }
}

extension SchemaTests {
    @Test func uniqueAndIndexEncodeTheirPropertiesNames() throws {
        let unique = Schema.Unique<Reader>([\.givenName, \.familyName], [\.card])
        let json = String(decoding: try JSONEncoder().encode(unique), as: UTF8.self)
        #expect(json == #"{"constraints":[["givenName","familyName"],["card"]]}"#)
        #expect(try JSONDecoder().decode(Schema.Unique<Reader>.self, from: Data(json.utf8)) == unique)
        let index = Schema.Index<Reader>(.binary([\.familyName]), .rtree([\.card]))
        let decoded = try JSONDecoder().decode(Schema.Index<Reader>.self, from: JSONEncoder().encode(index))
        #expect(decoded == index)
        #expect(throws: SwiftDataError.unsupportedKeyPath) {
            try JSONDecoder().decode(Schema.Unique<Reader>.self, from: Data(#"{"constraints":[["nickname"]]}"#.utf8))
        }
    }
}
