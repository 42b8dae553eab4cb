import OpenCoreData

// Seed 003's sample app ("Zootastic"): animals, the classification each belongs to (to-one, with a
// to-many inverse) and the zoos that keep them (many-to-many). The classes are written as Xcode
// generates them, with `@Managed` for `@NSManaged` and `@ManagedAccessor` on the to-many accessors
// (docs/ModelClasses.md); the model file Tests/OpenCoreDataTests/Resources/Zoo.xcdatamodeld names them
// `representedClassName="Animal"` and so on, and finds them here.

/// Zootastic's `Animal`: a common name, the exhibit it lives in, its classification and its zoos.
open class Animal: NSManagedObject {
    /// The name the table shows, e.g. "West Indian Manatee".
    @Managed public var commonName: String?

    /// The exhibit the animal lives in; the table's detail text.
    @Managed public var habitat: String?

    /// The to-one relationship `classification` (inverse `Classification.animals`, nullify). Setting it
    /// moves the animal from the old classification's `animals` to the new one's at once, before any save.
    @Managed public var classification: Classification?

    /// The to-many relationship `zoos` (inverse `Zoo.animals`, nullify), read as a Swift set. Setting it
    /// replaces the whole set (Core Data's generated class declares it as `NSSet?`; this is the same
    /// value as a typed set).
    @Managed public var zoos: Set<Zoo>

    /// Mirrors the accessor Xcode generates for a to-many (`addToZoos(_:)`): the zoo's `animals` gains
    /// this animal too.
    @ManagedAccessor public func addToZoos(_ value: Zoo)

    /// Mirrors Xcode's generated `removeFromZoos(_:)`.
    @ManagedAccessor public func removeFromZoos(_ value: Zoo)

    /// Mirrors Xcode's generated `addToZoos(_ values: NSSet)`.
    @ManagedAccessor public func addToZoos(_ values: NSSet)

    /// Mirrors Xcode's generated `removeFromZoos(_ values: NSSet)`.
    @ManagedAccessor public func removeFromZoos(_ values: NSSet)
}

/// Zootastic's `Classification`: where an animal sits in the taxonomy. The table's sections are its
/// `order`.
open class Classification: NSManagedObject {
    /// The taxonomic class, e.g. "Mammalia" (the app calls the attribute `scientificClassification`).
    @Managed public var scientificClassification: String?

    /// The taxonomic order, e.g. "Primates": the table's section name (`classification.order`).
    @Managed public var order: String?

    /// The taxonomic family, e.g. "Atelidae".
    @Managed public var family: String?

    /// The to-many relationship `animals` (inverse `Animal.classification`, nullify).
    @Managed public var animals: Set<Animal>

    /// Mirrors Xcode's generated `addToAnimals(_:)`: the animal's `classification` becomes this one.
    @ManagedAccessor public func addToAnimals(_ value: Animal)

    /// Mirrors Xcode's generated `removeFromAnimals(_:)`: the animal's `classification` becomes nil.
    @ManagedAccessor public func removeFromAnimals(_ value: Animal)
    /// Mirrors Xcode's generated `addToAnimals(_ values: NSSet)`.
    @ManagedAccessor public func addToAnimals(_ values: NSSet)

    /// Mirrors Xcode's generated `removeFromAnimals(_ values: NSSet)`.
    @ManagedAccessor public func removeFromAnimals(_ values: NSSet)
}

/// Zootastic's `Zoo`: a name, where it is, and the animals it keeps.
open class Zoo: NSManagedObject {
    /// The zoo's name, e.g. "San Diego Zoo".
    @Managed public var name: String?

    /// Where the zoo is, e.g. "San Diego, CA".
    @Managed public var location: String?

    /// The to-many relationship `animals` (inverse `Animal.zoos`, nullify): the other side of the
    /// many-to-many.
    @Managed public var animals: Set<Animal>

    /// Mirrors Xcode's generated `addToAnimals(_:)`: the animal's `zoos` gains this zoo too.
    @ManagedAccessor public func addToAnimals(_ value: Animal)

    /// Mirrors Xcode's generated `removeFromAnimals(_:)`.
    @ManagedAccessor public func removeFromAnimals(_ value: Animal)
    /// Mirrors Xcode's generated `addToAnimals(_ values: NSSet)`.
    @ManagedAccessor public func addToAnimals(_ values: NSSet)

    /// Mirrors Xcode's generated `removeFromAnimals(_ values: NSSet)`.
    @ManagedAccessor public func removeFromAnimals(_ values: NSSet)
}

/// Seed 003's Zootastic model, built in code, and its data: shared by `swift run zoo` and the tests.
public enum ZooModel {
    /// The three entities as the app's model file declares them: every attribute and relationship
    /// optional, every delete rule nullify, `Animal.classification` to-one with the to-many inverse
    /// `Classification.animals`, and `Animal.zoos` / `Zoo.animals` many-to-many.
    public static func make() -> NSManagedObjectModel {
        let animal = NSEntityDescription(
            name: "Animal", managedObjectClassName: NSStringFromClass(Animal.self),
            properties: [
                NSAttributeDescription(name: "commonName", type: .stringAttributeType),
                NSAttributeDescription(name: "habitat", type: .stringAttributeType),
                NSRelationshipDescription(name: "classification", destination: "Classification", inverse: "animals",
                                          deleteRule: .nullifyDeleteRule, maxCount: 1),
                NSRelationshipDescription(name: "zoos", destination: "Zoo", inverse: "animals",
                                          toMany: true, deleteRule: .nullifyDeleteRule),
            ])
        let classification = NSEntityDescription(
            name: "Classification", managedObjectClassName: NSStringFromClass(Classification.self),
            properties: [
                NSAttributeDescription(name: "scientificClassification", type: .stringAttributeType),
                NSAttributeDescription(name: "order", type: .stringAttributeType),
                NSAttributeDescription(name: "family", type: .stringAttributeType),
                NSRelationshipDescription(name: "animals", destination: "Animal", inverse: "classification",
                                          toMany: true, deleteRule: .nullifyDeleteRule),
            ])
        let zoo = NSEntityDescription(
            name: "Zoo", managedObjectClassName: NSStringFromClass(Zoo.self),
            properties: [
                NSAttributeDescription(name: "name", type: .stringAttributeType),
                NSAttributeDescription(name: "location", type: .stringAttributeType),
                NSRelationshipDescription(name: "animals", destination: "Animal", inverse: "zoos",
                                          toMany: true, deleteRule: .nullifyDeleteRule),
            ])
        return NSManagedObjectModel(entities: [animal, classification, zoo])
    }

    /// The app's three zoos: name and location.
    public static let zoos: [(name: String, location: String)] = [
        ("San Diego Zoo", "San Diego, CA"),
        ("Lowry Park Zoo", "Tampa, FL"),
        ("Oklahoma City Zoo", "Oklahoma City, OK"),
    ]

    /// The app's three classifications: class, order and family (each family appears once).
    public static let classifications: [(scientificClassification: String, order: String, family: String)] = [
        ("Mammalia", "Sirenia", "Trichechidae"),
        ("Mammalia", "Primates", "Atelidae"),
        ("Mammalia", "Chiroptera", "Phyllostomidae"),
    ]

    /// The app's four animals: common name, habitat, the family of their classification and the names
    /// of their zoos (the app spells "Mamals"; corrected here).
    public static let animals: [(commonName: String, habitat: String, family: String, zoos: [String])] = [
        ("Pygmy Fruit-eating Bat", "Flying Mammals Exhibit", "Phyllostomidae", ["Lowry Park Zoo", "Oklahoma City Zoo", "San Diego Zoo"]),
        ("Mantled Howler", "Primate Exhibit", "Atelidae", ["San Diego Zoo", "Lowry Park Zoo"]),
        ("Geoffroy’s Spider Monkey", "Primate Exhibit", "Atelidae", ["San Diego Zoo"]),
        ("West Indian Manatee", "Aquatic Mammals Exhibit", "Trichechidae", ["Lowry Park Zoo"]),
    ]

    /// What `seed(_:)` inserted, by name: zoos by `name`, classifications by `family`, animals by
    /// `commonName`.
    public struct Seeded {
        /// The zoos, keyed by name.
        public let zoos: [String: Zoo]
        /// The classifications, keyed by family.
        public let classifications: [String: Classification]
        /// The animals, keyed by common name.
        public let animals: [String: Animal]
    }

    /// Inserts the app's zoos, classifications and animals into `context` (without saving), relating
    /// each animal to its classification and zoos as `animals` lists them. The same data every time.
    @discardableResult
    public static func seed(_ context: NSManagedObjectContext) -> Seeded {
        var zoosByName: [String: Zoo] = [:]
        for record in zoos {
            let zoo = Zoo(context: context)
            zoo.name = record.name
            zoo.location = record.location
            zoosByName[record.name] = zoo
        }
        var classificationsByFamily: [String: Classification] = [:]
        for record in classifications {
            let classification = Classification(context: context)
            classification.scientificClassification = record.scientificClassification
            classification.order = record.order
            classification.family = record.family
            classificationsByFamily[record.family] = classification
        }
        var animalsByName: [String: Animal] = [:]
        for record in animals {
            let animal = Animal(context: context)
            animal.commonName = record.commonName
            animal.habitat = record.habitat
            animal.classification = classificationsByFamily[record.family]
            animal.zoos = Set(record.zoos.compactMap { zoosByName[$0] })
            animalsByName[record.commonName] = animal
        }
        return Seeded(zoos: zoosByName, classifications: classificationsByFamily, animals: animalsByName)
    }

    /// The app's table request: every animal, sorted by `classification.order`, then `commonName`
    /// (pair it with `sectionNameKeyPath: "classification.order"`).
    public static func tableRequest() -> NSFetchRequest<Animal> {
        let request = NSFetchRequest<Animal>(entityName: "Animal")
        request.sortDescriptors = [
            NSSortDescriptor(key: "classification.order", ascending: true),
            NSSortDescriptor(key: "commonName", ascending: true),
        ]
        return request
    }

    /// The objects of a to-many value (`NSSet`, `NSOrderedSet` or a Swift set/array) that are `T`s.
    static func objects<T: NSManagedObject>(_ value: Any?) -> Set<T> {
        switch value {
        case let set as NSSet: return Set(set.allObjects.compactMap { $0 as? T })
        case let set as NSOrderedSet: return Set(set.array.compactMap { $0 as? T })
        case let set as Set<T>: return set
        case let array as [Any]: return Set(array.compactMap { $0 as? T })
        default: return []
        }
    }
}
