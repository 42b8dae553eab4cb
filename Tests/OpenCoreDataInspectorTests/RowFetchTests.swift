import Foundation
import OpenCoreData
import OpenCoreDataInspector
import OpenCoreDataTesting
import Testing

/// `--fetch ENTITY --where FORMAT --sort KEY`: objects fetched through the Core Data API from a store
/// this project wrote, printed as a table or as JSON.
@Suite struct RowFetchTests {
    /// A predicate through a to-one relationship, a descending sort: the table lists each object's ID,
    /// attributes, its to-one by ID and its to-many by count (seed 003's data: ZooModel).
    @Test func aTableOfTheObjectsFound() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let (store, model) = try ZooStore.make(in: folder)
        let result = try OCDStoreTool.run([store, "--model", model, "--fetch", "Animal",
                                           "--where", "classification.order == 'Primates' OR commonName BEGINSWITH 'W'",
                                           "--sort", "-commonName"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == """
            3 Animal objects (model version "Zoo"; where classification.order == "Primates" OR commonName BEGINSWITH "W"; sorted by commonName descending)
            objectID   commonName                habitat                  classification     zoos
            ---------  ------------------------  -----------------------  -----------------  ---------
            Animal/p4  West Indian Manatee       Aquatic Mammals Exhibit  Classification/p1  1 object
            Animal/p2  Mantled Howler            Primate Exhibit          Classification/p2  2 objects
            Animal/p3  Geoffroy’s Spider Monkey  Primate Exhibit          Classification/p2  1 object

            """)
    }

    /// `--json`: an array of objects, keys sorted, related objects by ID; `--sort` ascending and `--limit`.
    @Test func jsonWithASortAndALimit() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let (store, model) = try ZooStore.make(in: folder)
        let result = try OCDStoreTool.run([store, "--model", model, "--fetch", "Zoo", "--sort", "name", "--limit", "2", "--json"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == """
            [
              {
                "animals" : [
                  "Animal/p1",
                  "Animal/p2",
                  "Animal/p4"
                ],
                "location" : "Tampa, FL",
                "name" : "Lowry Park Zoo",
                "objectID" : "Zoo/p2"
              },
              {
                "animals" : [
                  "Animal/p1"
                ],
                "location" : "Oklahoma City, OK",
                "name" : "Oklahoma City Zoo",
                "objectID" : "Zoo/p3"
              }
            ]

            """)
        let decoded = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]]
        #expect(decoded?.count == 2)
    }

    /// Every attribute type as a cell: numbers as numbers, booleans, decimals as exact text, dates in ISO
    /// 8601, data by size in the table and base64 in JSON, UUIDs and URIs as text, nil as nil / null.
    @Test func everyAttributeType() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let (store, model) = try Self.valuesStore(in: folder)
        let options = FetchOptions(entity: "Values", sort: ["-count"])
        let table = try StoreInspector.run(store: store, model: model, fetch: options).text
        #expect(table == """
            2 Values objects (model version "Values"; sorted by count descending)
            objectID   amount  blob       count       flag   id                                    link                 ratio  small  text     when
            ---------  ------  ---------  ----------  -----  ------------------------------------  -------------------  -----  -----  -------  ------------------------
            Values/p1  12.5    <3 bytes>  9000000000  true   E621E1F8-C36C-495A-93FC-0C247A3E6E5F  https://example.org  0.25   -7     a\\tb\\nc  2024-03-15T09:30:00Z
            Values/p2  nil     nil        1           false  nil                                   nil                  nil    nil    nil      2001-01-01T00:00:00.500Z

            """)
        let json = try StoreInspector.run(store: store, model: model, fetch: options, json: true).text
        #expect(json.contains("""
                "amount" : "12.5",
                "blob" : "AQID",
                "count" : 9000000000,
                "flag" : true,
                "id" : "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
                "link" : "https://example.org",
                "objectID" : "Values/p1",
                "ratio" : 0.25,
                "small" : -7,
                "text" : "a\\tb\\nc",
                "when" : "2024-03-15T09:30:00Z"
            """))
        #expect(json.contains("\"amount\" : null,"))
        #expect(json.contains("\"when\" : \"2001-01-01T00:00:00.500Z\""))
    }

    /// The store opens through the library with the version that matches it: a model whose version does
    /// not match is refused by the coordinator (NSPersistentStoreIncompatibleVersionHashError, 134100),
    /// and the inspector says so and exits 1.
    @Test func aStoreTheModelDoesNotOpen() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let (store, _) = try ZooStore.make(in: folder)
        let changed = try ZooStore.changedModel(in: folder)
        let before = StoreBytes(store)
        let result = try OCDStoreTool.run([store, "--model", changed, "--fetch", "Animal"])
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.errors.hasPrefix("ocd-store: OpenCoreData cannot open the store \(store): "), "\(result.errors)")
        #expect(result.errors.hasSuffix("(Core Data error 134100)\n"))
        #expect(before.unchanged(store))
    }

    /// A store with one entity holding an attribute of each type, and its model folder.
    static func valuesStore(in folder: TemporaryFolder) throws -> (store: String, model: String) {
        func makeModel() -> NSManagedObjectModel {
            let types: [(String, NSAttributeType)] = [
                ("amount", .decimalAttributeType), ("blob", .binaryDataAttributeType), ("count", .integer64AttributeType),
                ("flag", .booleanAttributeType), ("id", .UUIDAttributeType), ("link", .URIAttributeType),
                ("ratio", .doubleAttributeType), ("small", .integer16AttributeType), ("text", .stringAttributeType),
                ("when", .dateAttributeType),
            ]
            let entity = NSEntityDescription(name: "Values", managedObjectClassName: "NSManagedObject",
                                             properties: types.map { NSAttributeDescription(name: $0.0, type: $0.1) })
            return NSManagedObjectModel(entities: [entity])
        }
        let store = folder.path("Values.sqlite"), model = folder.path("Values.xcdatamodeld")
        try makeModel().write(to: URL(fileURLWithPath: model))
        let container = NSPersistentContainer(name: "Values", managedObjectModel: makeModel())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: store))]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let full = NSEntityDescription.insertNewObject(forEntityName: "Values", into: context)
            full.setValue(NSDecimalNumber(string: "12.50"), forKey: "amount")
            full.setValue(Data([1, 2, 3]), forKey: "blob")
            full.setValue(9_000_000_000, forKey: "count")
            full.setValue(true, forKey: "flag")
            full.setValue(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), forKey: "id")
            full.setValue(URL(string: "https://example.org"), forKey: "link")
            full.setValue(0.25, forKey: "ratio")
            full.setValue(-7, forKey: "small")
            full.setValue("a\tb\nc", forKey: "text")
            full.setValue(ISO8601DateFormatter().date(from: "2024-03-15T09:30:00Z"), forKey: "when")
            try context.save()
            let sparse = NSEntityDescription.insertNewObject(forEntityName: "Values", into: context)
            sparse.setValue(1, forKey: "count")
            sparse.setValue(false, forKey: "flag")
            sparse.setValue(Date(timeIntervalSinceReferenceDate: 0.5), forKey: "when")
            try context.save()
        }
        for added in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.remove(added) }
        return (store, model)
    }
}
