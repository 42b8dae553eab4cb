@_spi(StoreDiagnostics) import OpenCoreData
import OpenCoreDataTesting

// Figures 10-12 read seed 003's shape: animals, each with a classification (to-one), whose inverse is
// the classification's animals (to-many).

/// An animal: `commonName`, and its `classification`.
final class Animal: NSManagedObject {
    /// The animal's name, such as `Capuchin 417`.
    var commonName: String? {
        get { value(forKey: "commonName") as? String }
        set { setValue(newValue, forKey: "commonName") }
    }
    /// Its classification (to-one; inverse `animals`).
    var classification: Classification? {
        get { value(forKey: "classification") as? Classification }
        set { setValue(newValue, forKey: "classification") }
    }
}

/// A classification: `order`, `family`, and its `animals`.
final class Classification: NSManagedObject {
    /// The order, one of about twenty (`Primates`, …), which figure 10 sorts by.
    var order: String? {
        get { value(forKey: "order") as? String }
        set { setValue(newValue, forKey: "order") }
    }
    /// The family, `Family 17`.
    var family: String? {
        get { value(forKey: "family") as? String }
        set { setValue(newValue, forKey: "family") }
    }
}

/// The model of figures 10-12, built in code. Each container gets its own model instance.
func makeZooModel() -> NSManagedObjectModel {
    let string = { (name: String) in NSAttributeDescription(name: name, type: .stringAttributeType) }
    return NSManagedObjectModel(entities: [
        NSEntityDescription(name: "Animal", managedObjectClassName: NSStringFromClass(Animal.self), properties: [
            string("commonName"),
            NSRelationshipDescription(name: "classification", destination: "Classification", inverse: "animals"),
        ]),
        NSEntityDescription(name: "Classification", managedObjectClassName: NSStringFromClass(Classification.self), properties: [
            string("order"), string("family"),
            NSRelationshipDescription(name: "animals", destination: "Animal", inverse: "classification", toMany: true),
        ]),
    ])
}

/// Animals and classifications to write, made from a seed.
struct ZooData {
    /// Orders of mammals, which classifications take in turn.
    static let orders = ["Primates", "Carnivora", "Rodentia", "Artiodactyla", "Chiroptera", "Eulipotyphla", "Lagomorpha",
                         "Perissodactyla", "Cetacea", "Pilosa", "Cingulata", "Sirenia", "Proboscidea", "Hyracoidea",
                         "Tubulidentata", "Macroscelidea", "Afrosoricida", "Scandentia", "Dermoptera", "Pholidota"]
    static let names = ["Capuchin", "Gorilla", "Lemur", "Otter", "Lynx", "Beaver", "Bison", "Okapi", "Tapir", "Sloth"]

    /// Animal names, such as `Otter 4171`.
    let animalNames: [String]
    /// Each animal's classification, an index into `orderOfClassification`.
    let classificationOfAnimal: [Int]
    /// Each classification's order.
    let orderOfClassification: [String]

    /// `animals` animals in `classifications` classifications: at random when there are fewer
    /// classifications than animals, else one each (a permutation, so that keys do not run in step).
    init(animals: Int, classifications: Int, seed: UInt64) {
        var random = SeededRandom(seed: seed)
        animalNames = (0..<animals).map { _ in "\(Self.names[Int(random.next() % 10)]) \(random.next() % 10_000)" }
        if classifications >= animals {
            classificationOfAnimal = (0..<animals).map { ($0 * 7919) % classifications }
        } else {
            classificationOfAnimal = (0..<animals).map { _ in Int(random.next() % UInt64(classifications)) }
        }
        orderOfClassification = (0..<classifications).map { _ in Self.orders[Int(random.next() % UInt64(Self.orders.count))] }
    }

    /// Writes the data to a new store at `url` through the library, in one save.
    func write(to url: URL) throws {
        let store = try ZooStore(url: url)
        let context = store.newContext()
        let classifications = orderOfClassification.enumerated().map { i, order in
            let c = Classification(context: context)
            c.order = order
            c.family = "Family \(i)"
            return c
        }
        for (name, c) in zip(animalNames, classificationOfAnimal) {
            let animal = Animal(context: context)
            animal.commonName = name
            animal.classification = classifications[c]
        }
        try context.save()
    }
}

/// An OpenCoreData store of the zoo model on a file.
final class ZooStore {
    /// The container that opened it.
    let container: NSPersistentContainer

    /// Opens (or creates) the store at `url`.
    init(url: URL) throws {
        container = try openContainer(name: "Zoo", model: makeZooModel(), url: url)
    }

    /// A new main-queue context with no registered objects (the benchmark runs on the main thread).
    func newContext() -> NSManagedObjectContext { container.newMainQueueContext() }

    /// Queries the store has run so far.
    var queryCount: Int { container.persistentStoreCoordinator.persistentStores[0].queryCount }
}

/// The SQL the raw and GRDB variants run: what the library runs for the same request.
enum ZooSQL {
    /// Figure 10: every animal, sorted by its classification's order (a to-one key path), then name.
    static let sortedByOrder = "SELECT t0.ZCOMMONNAME, t0.ZCLASSIFICATION FROM ZANIMAL t0 LEFT OUTER JOIN ZCLASSIFICATION t1 ON t0.ZCLASSIFICATION = t1.Z_PK ORDER BY t1.ZORDER, t0.ZCOMMONNAME, t0.Z_PK"
    /// Figure 11: every animal in store order, then their classifications by key (one JSON array of keys).
    static let animals = "SELECT t0.ZCOMMONNAME, t0.ZCLASSIFICATION FROM ZANIMAL t0 ORDER BY t0.Z_PK"
    static let classificationsByKey = "SELECT t0.Z_PK, t0.ZORDER, t0.ZFAMILY FROM ZCLASSIFICATION t0 WHERE t0.Z_PK IN (SELECT value FROM json_each(?))"
    /// Figure 11's floor when the keys fill most of their range, as the library then reads them.
    static let classificationsInRange = "SELECT t0.Z_PK, t0.ZORDER, t0.ZFAMILY FROM ZCLASSIFICATION t0 WHERE t0.Z_PK BETWEEN ? AND ? ORDER BY t0.Z_PK"
    /// Figure 12: the classification keys, then the query one to-many fault runs.
    static let classificationKeys = "SELECT t0.Z_PK FROM ZCLASSIFICATION t0 ORDER BY t0.Z_PK"
    static let animalsOfClassification = "SELECT t0.Z_PK, t0.ZCLASSIFICATION FROM ZANIMAL t0 WHERE t0.ZCLASSIFICATION IN (?) ORDER BY t0.ZCLASSIFICATION, t0.Z_PK"
}
