import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// A model class as Xcode generates one for a composite attribute (`@NSManaged public var colorScheme:
/// [String: Any]?` in Apple's WWDC23 sample), with `@Managed` for `@NSManaged`.
final class CompositePlace: NSManagedObject {}

extension CompositePlace {
    @Managed var name: String?
    @Managed var address: [String: Any]?
}

/// Composite attributes (`NSCompositeAttributeDescription`, issue 32 part A): declared in code or in a
/// model file, stored one column per element, read and written as dictionaries, reached by element key
/// paths in fetches and in memory, validated per element.
@Suite("Composite attributes")
struct CompositeAttributeTests {
    /// Place: `name`, and `address` {street, city (required), zip (Integer 32, default 1000), geo
    /// {latitude, longitude}}.
    static func model(cityRequired: Bool = true, addressRequired: Bool = false) -> NSManagedObjectModel {
        let geo = NSCompositeAttributeDescription()
        geo.name = "geo"
        geo.elements = [NSAttributeDescription(name: "latitude", type: .doubleAttributeType),
                        NSAttributeDescription(name: "longitude", type: .doubleAttributeType)]
        let address = NSCompositeAttributeDescription()
        address.name = "address"
        address.isOptional = !addressRequired
        address.elements = [
            NSAttributeDescription(name: "street", type: .stringAttributeType),
            NSAttributeDescription(name: "city", type: .stringAttributeType, optional: !cityRequired),
            NSAttributeDescription(name: "zip", type: .integer32AttributeType, defaultValue: 1000),
            geo,
        ]
        let place = NSEntityDescription(name: "Place", managedObjectClassName: NSStringFromClass(CompositePlace.self), properties: [
            NSAttributeDescription(name: "name", type: .stringAttributeType), address,
        ])
        return NSManagedObjectModel(entities: [place])
    }

    static func insert(_ context: NSManagedObjectContext, _ name: String, _ address: [String: Any]?) -> NSManagedObject {
        let place = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
        place.setValue(name, forKey: "name")
        place.setValue(address, forKey: "address")
        return place
    }

    static func names(_ objects: [NSManagedObject]) -> [String] { objects.compactMap { $0.value(forKey: "name") as? String } }

    /// Four places: Paris 75001, Lyon 69001, Paris 75002, Nice with no address.
    static func insertFour(_ context: NSManagedObjectContext) {
        _ = insert(context, "Louvre", ["street": "Rue de Rivoli", "city": "Paris", "zip": 75001, "geo": ["latitude": 48.86, "longitude": 2.34]])
        _ = insert(context, "Bellecour", ["city": "Lyon", "zip": 69001])
        _ = insert(context, "Bourse", ["street": "Rue Vivienne", "city": "Paris", "zip": 75002])
        _ = insert(context, "Promenade", nil)
    }

    // MARK: - Model

    @Test func aCompositeDescriptionHasTheCompositeTypeAndItsElements() {
        let composite = NSCompositeAttributeDescription()
        #expect(composite.attributeType == .compositeAttributeType)
        #expect(composite.type == .composite)
        #expect(NSAttributeType.compositeAttributeType.rawValue == 2100)
        #expect(NSAttributeDescription.AttributeType.composite.rawValue == .compositeAttributeType)
        #expect(composite.elements.isEmpty)
        #expect(composite.attributeValueClassName == "NSDictionary")
        let address = Self.model().entitiesByName["Place"]!.attributesByName["address"] as! NSCompositeAttributeDescription
        #expect(address.elements.map(\.name) == ["street", "city", "zip", "geo"])
        // The default is made of the elements' defaults.
        #expect(address.defaultValue as? [String: Int] == ["zip": 1000])
        #expect(NSCompositeAttributeDescription().defaultValue == nil)
    }

    @Test func theTableHasOneColumnPerElementNamedAfterTheCompositeAndTheElement() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        _ = try store.container(Self.model())
        let sql = try SQLiteTestAccess.values("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'ZPLACE'", store.url)
        // Core Data's column order (docs/StoreFormat.md, "Layout": by storage class), each
        // leaf element a column of its own.
        #expect(sql == [[.string("CREATE TABLE ZPLACE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZADDRESS_ZIP INTEGER, ZADDRESS_GEO_LATITUDE FLOAT, ZADDRESS_GEO_LONGITUDE FLOAT, ZADDRESS_CITY VARCHAR, ZADDRESS_STREET VARCHAR, ZNAME VARCHAR )")]])
    }

    // MARK: - Values

    @Test func aCompositeReadsAndWritesAsADictionaryAndKeepsItAcrossAReopen() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = try store.container(Self.model()).viewContext
            let fresh = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
            // A new object has its elements' defaults.
            #expect(fresh.value(forKey: "address") as? [String: Int] == ["zip": 1000])
            context.delete(fresh)
            Self.insertFour(context)
            try context.save()
        }
        let context = try store.container(Self.model()).viewContext
        let request = NSFetchRequest<NSManagedObject>(entityName: "Place")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let places = try context.fetch(request)
        #expect(Self.names(places) == ["Bellecour", "Bourse", "Louvre", "Promenade"])
        let louvre = try #require(places.last { $0.value(forKey: "name") as? String == "Louvre" })
        let address = try #require(louvre.value(forKey: "address") as? [String: Any])
        #expect(address["street"] as? String == "Rue de Rivoli")
        #expect(address["city"] as? String == "Paris")
        #expect(address["zip"] as? Int == 75001)
        #expect((address["geo"] as? [String: Any])?["latitude"] as? Double == 48.86)
        #expect(louvre.value(forKeyPath: "address.geo.longitude") as? Double == 2.34)
        #expect(louvre.value(forKeyPath: "address.city") as? String == "Paris")
        // Elements left out are nil: not in the dictionary; a composite without any is nil.
        let bellecour = places[0].value(forKey: "address") as? [String: Any]
        #expect(bellecour?.keys.sorted() == ["city", "zip"])
        #expect(places[3].value(forKey: "address") == nil)
        #expect(places[3].value(forKeyPath: "address.city") == nil)
        // The row holds the elements in their columns.
        let rows = try SQLiteTestAccess.values("SELECT ZADDRESS_CITY, ZADDRESS_ZIP, ZADDRESS_GEO_LATITUDE FROM ZPLACE WHERE ZNAME = 'Louvre'", store.url)
        #expect(rows == [[.string("Paris"), .int(75001), .double(48.86)]])
    }

    @Test func aManagedPropertyOfTypeDictionaryReadsAndWritesTheComposite() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(Self.model()).viewContext
        let place = CompositePlace(context: context)
        place.name = "Opéra"
        place.address = ["city": "Paris", "street": "Place de l'Opéra"]
        #expect(place.address?["city"] as? String == "Paris")
        #expect(place.value(forKeyPath: "address.street") as? String == "Place de l'Opéra")
        try context.save()
        place.address = nil
        #expect(place.address == nil)
        #expect(place.changedValues()["address"] is NSNull)
        context.rollback()
        #expect(place.address?["zip"] == nil)
        #expect(place.address?["city"] as? String == "Paris")
    }

    @Test func changedValuesCommittedValuesAndUndoSeeTheCompositeWhole() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(Self.model()).viewContext
        let manager = UndoManager()
        context.undoManager = manager
        let place = Self.insert(context, "Louvre", ["city": "Paris", "zip": 75001])
        #expect((place.changedValues()["address"] as? [String: Any])?["city"] as? String == "Paris")
        #expect(place.changedValues()["address.city"] == nil)
        try context.save()
        #expect(place.changedValues().isEmpty)
        context.processPendingChanges()
        place.setValue(["city": "Lyon", "zip": 69001], forKey: "address")
        #expect(place.isUpdated)
        #expect((place.changedValues()["address"] as? [String: Any])?["city"] as? String == "Lyon")
        #expect((place.committedValues(forKeys: ["address"])["address"] as? [String: Any])?["city"] as? String == "Paris")
        context.processPendingChanges()
        context.undo()
        #expect(place.value(forKeyPath: "address.city") as? String == "Paris")
        #expect(place.value(forKeyPath: "address.zip") as? Int == 75001)
        #expect(!place.hasPersistentChangedValues)
        // A custom setter's primitive set between the change notifications is recorded, element by element.
        place.willChangeValue(forKey: "address")
        place.setPrimitiveValue(["city": "Nice", "zip": 75001], forKey: "address")
        place.didChangeValue(forKey: "address")
        #expect(place.isUpdated)
        #expect((place.changedValues()["address"] as? [String: Any])?["city"] as? String == "Nice")
        #expect(place.primitiveValue(forKey: "address") as? [String: Any] != nil)
    }

    // MARK: - Fetching

    @Test func elementKeyPathsFilterAndSortInSQLAndInMemoryAlike() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Self.model())
        let context = container.viewContext
        Self.insertFour(context)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Place")
        request.predicate = NSPredicate(format: "address.city == %@ AND address.zip >= %@", "Paris", 75000)
        request.sortDescriptors = [NSSortDescriptor(key: "address.zip", ascending: false)]
        // Unsaved: the context evaluates and sorts its inserted objects in memory.
        let inMemory = try context.fetch(request)
        #expect(Self.names(inMemory) == ["Bourse", "Louvre"])
        try context.save()
        context.reset()
        let sql = try container.persistentStoreCoordinator.sqlite.recordingSQL { _ = try context.fetch(request) }
        #expect(sql.contains { $0.contains("t0.ZADDRESS_CITY = ?") && $0.contains("ORDER BY t0.ZADDRESS_ZIP DESC") }, "\(sql)")
        #expect(Self.names(try context.fetch(request)) == ["Bourse", "Louvre"])
        // A nested element, a comparison the predicate evaluates in memory as well.
        let nested = NSPredicate(format: "address.geo.latitude > 48")
        request.predicate = nested
        let fetched = try context.fetch(request)
        #expect(Self.names(fetched) == ["Louvre"])
        let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Place"))
        #expect(Self.names(all.filter { nested.evaluate(with: $0) }) == ["Louvre"])
        // Counting and dictionary results reach elements too.
        let count = NSFetchRequest<NSManagedObject>(entityName: "Place")
        count.predicate = NSPredicate(format: "address.city == nil")
        #expect(try context.count(for: count) == 1)
        let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Place")
        dictionaries.resultType = .dictionaryResultType
        dictionaries.propertiesToFetch = ["address.city"]
        dictionaries.predicate = NSPredicate(format: "name == %@", "Bellecour")
        #expect(try context.fetch(dictionaries).first?["address.city"] as? String == "Lyon")
        // Without propertiesToFetch: every stored attribute, a composite's elements under their key paths.
        dictionaries.propertiesToFetch = nil
        let row = try #require(try context.fetch(dictionaries).first)
        #expect(row["name"] as? String == "Bellecour" && row["address.zip"] as? Int == 69001 && row["address"] == nil)
    }

    @Test func setValueForKeyPathSetsOneElementOrTheKeyOfARelatedObject() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(Self.model()).viewContext
        let place = Self.insert(context, "Louvre", ["city": "Paris", "zip": 75001])
        place.setValue(48.86, forKeyPath: "address.geo.latitude")
        place.setValue("Lutèce", forKeyPath: "address.city")
        let address = try #require(place.value(forKey: "address") as? [String: Any])
        #expect(address["city"] as? String == "Lutèce" && address["zip"] as? Int == 75001)
        #expect((address["geo"] as? [String: Any])?["latitude"] as? Double == 48.86)
        let zooStore = TemporaryStore()
        defer { zooStore.cleanUp() }
        let zoo = try zooStore.container(RelationshipModel.make()).viewContext
        let animal = zoo.make("Animal", ["commonName": "Okapi", "classification": zoo.make("Classification", ["family": "Giraffidae"])])
        animal.setValue("Giraffids", forKeyPath: "classification.family")
        #expect(animal.value(forKeyPath: "classification.family") as? String == "Giraffids")
        animal.setValue("Forest", forKeyPath: "habitat")
        #expect(animal.string("habitat") == "Forest")
    }

    @Test func aFetchedResultsControllerFollowsAnElementsChange() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(Self.model()).viewContext
        Self.insertFour(context)
        try context.save()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Place")
        request.predicate = NSPredicate(format: "address.city == %@", "Paris")
        request.sortDescriptors = [NSSortDescriptor(key: "address.zip", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        let recorder = ChangeRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        #expect(Self.names(controller.fetchedObjects ?? []) == ["Louvre", "Bourse"])
        let bellecour = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Place")).first { $0.value(forKey: "name") as? String == "Bellecour" })
        bellecour.setValue(["city": "Paris", "zip": 75000], forKey: "address")
        context.processPendingChanges()
        #expect(Self.names(controller.fetchedObjects ?? []) == ["Bellecour", "Louvre", "Bourse"])
        #expect(recorder.changes.map(\.type) == [.insert])
        // A change of an element the request does not read keeps the object in place.
        bellecour.setValue("Rue de la Bourse", forKeyPath: "address.street")
        context.processPendingChanges()
        #expect(recorder.changes.map(\.type) == [.insert, .update])
    }

    @Test func aKeyPathThatIsNoElementOrTheWholeCompositeIsAClearFetchError() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(Self.model()).viewContext
        for (format, reason) in [("address.country == 'FR'", "has no element country"),
                                 ("address == nil", "cannot be used whole here"),
                                 ("address.geo == nil", "has no element geo")] {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Place")
            request.predicate = NSPredicate(format: format)
            #expect { _ = try context.fetch(request) } throws: { error in
                "\(error)".contains(reason) && "\(error)".contains("keypath")
            }
        }
    }

    // MARK: - Validation and bad input

    @Test func aMissingRequiredElementFailsTheSaveAndLosesNothing() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(Self.model()).viewContext
        _ = Self.insert(context, "Nowhere", nil)  // an optional composite with no value: its elements are not checked
        try context.save()
        let place = Self.insert(context, "Louvre", ["street": "Rue de Rivoli"])
        #expect { try context.save() } throws: { error in
            let error = error as NSError
            return error.code == NSValidationMissingMandatoryPropertyError
                && error.userInfo[NSValidationKeyErrorKey] as? String == "address.city"
                && "\(error)".contains("Place.address.city is a required value")
        }
        #expect(place.isInserted)
        #expect(try SQLiteTestAccess.values("SELECT COUNT(*) FROM ZPLACE", store.url) == [[.int(1)]])
        var given: AnyObject? = ["street": "Rue de Rivoli"] as NSDictionary
        #expect(throws: (any Error).self) { try place.validateValue(&given, forKey: "address") }
        given = ["street": "Rue de Rivoli", "city": "Paris"] as NSDictionary
        try place.validateValue(&given, forKey: "address")
        place.setValue(["street": "Rue de Rivoli", "city": "Paris"], forKey: "address")
        try context.save()
    }

    @Test func aRequiredCompositeWithoutAValueFailsTheSave() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(Self.model(cityRequired: false, addressRequired: true)).viewContext
        _ = Self.insert(context, "Nowhere", nil)  // nil for the composite clears the zip default too
        #expect { try context.save() } throws: { error in
            (error as NSError).userInfo[NSValidationKeyErrorKey] as? String == "address"
        }
    }

    @Test func aValueThatIsNoDictionaryOfTheElementsIsRefusedAndChangesNothing() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(Self.model()).viewContext
        let place = Self.insert(context, "Louvre", ["city": "Paris"])
        #expect { try place.setValidatedValue(["city": "Lyon", "country": "FR"], forKey: "address") } throws: { error in
            "\(error)".contains("has no element \"country\"")
        }
        #expect { try place.setValidatedValue("Paris", forKey: "address") } throws: { error in
            "\(error)".contains("must be a dictionary")
        }
        #expect { try place.setValidatedValue(["geo": 3], forKey: "address") } throws: { error in
            "\(error)".contains("address.geo must be a dictionary")
        }
        #expect(place.value(forKeyPath: "address.city") as? String == "Paris")
    }

    @Test func badCompositeDeclarationsFailTheLoadWithAClearError() throws {
        func loadError(_ configure: (NSCompositeAttributeDescription) -> Void, others: [NSPropertyDescription] = []) -> String {
            let composite = NSCompositeAttributeDescription()
            composite.name = "address"
            configure(composite)
            let entity = NSEntityDescription(name: "Place", properties: [composite] + others)
            do {
                _ = try NSPersistentStoreCoordinator(validatingModel: NSManagedObjectModel(entities: [entity]))
                return "loaded"
            } catch {
                return "\(error)"
            }
        }
        #expect(loadError { _ in }.contains("composite attribute address has no elements"))
        #expect(loadError { $0.elements = [NSAttributeDescription(name: "city", type: .stringAttributeType),
                                           NSAttributeDescription(name: "city", type: .stringAttributeType)] }
            .contains("composite attribute address has two elements named city"))
        #expect(loadError { $0.elements = [NSAttributeDescription(name: "city", type: .stringAttributeType),
                                           NSAttributeDescription(name: "City", type: .stringAttributeType)] }
            .contains("differ only in case"))
        #expect(loadError { $0.elements = [NSAttributeDescription(name: "id", type: .objectIDAttributeType)] }
            .contains("element id is of type ObjectID, which a composite cannot hold"))
        #expect(loadError({ $0.elements = [NSAttributeDescription(name: "city", type: .stringAttributeType)] },
                          others: [NSAttributeDescription(name: "address_city", type: .stringAttributeType)])
            .contains("would both be stored in the SQLite column ZADDRESS_CITY"))
        #expect(loadError { composite in
            let inner = NSCompositeAttributeDescription()
            inner.name = "inner"
            composite.elements = [inner]
        }.contains("composite attribute address.inner has no elements"))
        let plain = NSAttributeDescription(name: "address", type: .compositeAttributeType)
        #expect { _ = try NSPersistentStoreCoordinator(validatingModel: NSManagedObjectModel(entities: [NSEntityDescription(name: "Place", properties: [plain])])) } throws: { error in
            "\(error)".contains("is not an NSCompositeAttributeDescription")
        }
    }

    @Test func theVersionHashFollowsTheElements() throws {
        let a = Self.model(), b = Self.model(cityRequired: false)
        let hashA = a.entitiesByName["Place"]!.versionHash, hashB = b.entitiesByName["Place"]!.versionHash
        #expect(hashA != hashB)
        #expect(hashA == Self.model().entitiesByName["Place"]!.versionHash)
        #expect(a.versionHash != b.versionHash)
        // A store whose columns were made for other elements is refused, untouched.
        let store = TemporaryStore()
        defer { store.cleanUp() }
        _ = try store.container(a)
        #expect(throws: (any Error).self) { _ = try store.container(b) }
        _ = try store.container(Self.model())
    }

    @Test func elementsOfEveryStoredTypeRoundTrip() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        func model() -> NSManagedObjectModel {
            let details = NSCompositeAttributeDescription()
            details.name = "details"
            details.elements = [(NSAttributeType.booleanAttributeType, "flag"), (.decimalAttributeType, "price"), (.dateAttributeType, "since"),
                                (.binaryDataAttributeType, "blob"), (.UUIDAttributeType, "identifier"), (.URIAttributeType, "link"),
                                (.floatAttributeType, "ratio"), (.integer64AttributeType, "count"), (.transformableAttributeType, "tags")]
                .map { NSAttributeDescription(name: $0.1, type: $0.0) }
            return NSManagedObjectModel(entities: [NSEntityDescription(name: "Thing", properties: [details])])
        }
        let values: [String: Any] = [
            "flag": true, "price": Decimal(string: "19.99")!, "since": Date(timeIntervalSinceReferenceDate: 700_000_000),
            "blob": Data([1, 2, 3]), "identifier": UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
            "link": URL(string: "https://example.com/a")!, "ratio": 0.5, "count": Int64.max, "tags": NSArray(array: ["a", "b"]),
        ]
        do {
            let context = try store.container(model()).viewContext
            NSEntityDescription.insertNewObject(forEntityName: "Thing", into: context).setValue(values, forKey: "details")
            try context.save()
        }
        let context = try store.container(model()).viewContext
        let thing = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Thing")).first)
        let read = try #require(thing.value(forKey: "details") as? [String: Any])
        #expect(read["flag"] as? Bool == true)
        #expect((read["price"] as? NSDecimalNumber)?.decimalValue == Decimal(string: "19.99"))
        #expect(read["since"] as? Date == values["since"] as? Date)
        #expect(read["blob"] as? Data == Data([1, 2, 3]))
        #expect(read["identifier"] as? UUID == values["identifier"] as? UUID)
        #expect(read["link"] as? URL == values["link"] as? URL)
        #expect(read["ratio"] as? Double == 0.5)
        #expect(read["count"] as? Int64 == Int64.max)
        #expect((read["tags"] as? NSArray)?.map { $0 as? String } == ["a", "b"])
    }

    // MARK: - Model files

    /// A model file as Xcode 15 writes composites: the attribute names its `<composite>`, which the model
    /// defines after its entities.
    static let modelFile = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22158.8" systemVersion="23A5257q" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
        <entity name="Aircraft" representedClassName="Aircraft" syncable="YES" codeGenerationType="class">
            <attribute name="colorScheme" optional="YES" attributeType="Composite" composite="ColorScheme"/>
            <attribute name="tailNumber" optional="YES" attributeType="String"/>
        </entity>
        <composite name="ColorScheme">
            <attribute name="primary" optional="YES" attributeType="String"/>
            <attribute name="secondary" optional="YES" attributeType="String" defaultValueString="white"/>
            <attribute name="trim" optional="YES" attributeType="Composite" composite="Trim"/>
        </composite>
        <composite name="Trim">
            <attribute name="width" optional="YES" attributeType="Integer 16" defaultValueString="2" usesScalarValueType="YES"/>
        </composite>
    </model>
    """

    @Test func aModelFilesCompositesReadAndWriteBack() throws {
        let model = try NSManagedObjectModel(modelFileContents: Data(Self.modelFile.utf8))
        let scheme = try #require(model.entitiesByName["Aircraft"]?.attributesByName["colorScheme"] as? NSCompositeAttributeDescription)
        #expect(scheme.isOptional)
        #expect(scheme.elements.map(\.name) == ["primary", "secondary", "trim"])
        #expect(scheme.elements[1].defaultValue as? String == "white")
        let trim = try #require(scheme.elements[2] as? NSCompositeAttributeDescription)
        #expect(trim.elements.first?.attributeType == .integer16AttributeType)
        let written = try #require(String(data: try model.modelFileContents(), encoding: .utf8))
        #expect(written.contains(#"<attribute name="colorScheme" optional="YES" attributeType="Composite" composite="ColorScheme"/>"#))
        #expect(written.contains(#"<composite name="ColorScheme">"#) && written.contains(#"<composite name="Trim">"#))
        let again = try NSManagedObjectModel(modelFileContents: Data(written.utf8))
        #expect(again == model)
        // A composite made in code is named after its attribute.
        let fromCode = try #require(String(data: try Self.model().modelFileContents(), encoding: .utf8))
        #expect(fromCode.contains(#"composite="Address""#) && fromCode.contains(#"<composite name="Geo">"#))
        #expect(try NSManagedObjectModel(modelFileContents: Data(fromCode.utf8)) == Self.model())
    }

    @Test func aModelFilesBadCompositesAreErrorsWithTheirLine() {
        let cases: [(String, String)] = [
            (Self.modelFile.replacingOccurrences(of: #"composite="Trim""#, with: #"composite="Edge""#), "the composite Edge is not in the model"),
            (Self.modelFile.replacingOccurrences(of: #"<composite name="Trim">"#, with: #"<composite name="Trim"><attribute name="loop" attributeType="Composite" composite="ColorScheme"/>"#),
             "the composite ColorScheme contains itself"),
            (Self.modelFile.replacingOccurrences(of: #"<attribute name="width""#, with: #"<gadget/><attribute name="width""#), "unknown element <gadget> in <composite>"),
        ]
        for (text, reason) in cases {
            #expect { _ = try NSManagedObjectModel(modelFileContents: Data(text.utf8)) } throws: { error in
                (error as? ModelFileError)?.line != nil && "\(error)".contains(reason)
            }
        }
    }

    @Test func atomicStoresRefuseComposites() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        #expect { _ = try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: store.url, options: nil) } throws: { error in
            "\(error)".contains("cannot hold composite attributes (Place.address)")
        }
    }
}
