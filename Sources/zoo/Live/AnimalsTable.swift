import OpenCoreData
import DemoModels
import TerminalTable

/// The Zootastic store as a live table: animals in sections by `classification.order` (a key path
/// through a relationship), sorted by order, then common name; index titles the orders' first letters.
/// The `p` key moves an animal to the next classification (a row moving between sections).
struct AnimalsTable: LiveTableModel {
    /// Names for new and renamed animals.
    static let names = ["Aye-aye", "Bonobo", "Capybara", "Dugong", "Fennec Fox", "Gibbon", "Lemur", "Ocelot", "Pipistrelle", "Tapir"]

    var title: String { "Zootastic animals by order" }
    var secondValueChange: String { "next class" }
    var sectionNameKeyPath: String { "classification.order" }

    func fetchRequest() -> NSFetchRequest<Animal> { ZooModel.tableRequest() }

    func cell(_ animal: Animal) -> String { Self.cell(name: animal.commonName, habitat: animal.habitat) }

    /// A row: the common name and the habitat.
    static func cell(name: String?, habitat: String?) -> String { "\(name ?? "nil") — \(habitat ?? "nil")" }

    func insert(into context: NSManagedObjectContext, using random: inout SeededRandom) throws -> Animal {
        let classifications = try context.fetch(Self.classifications())
        let animal = Animal(context: context)
        animal.commonName = random.pick(Self.names)
        animal.habitat = random.pick(["forest", "river", "savanna", "coast"])
        animal.classification = classifications.isEmpty ? nil : random.pick(classifications)
        return animal
    }

    /// The next name of ``names``.
    func rename(_ animal: Animal, using random: inout SeededRandom) {
        let index = Self.names.firstIndex(of: animal.commonName ?? "") ?? -1
        animal.commonName = Self.names[(index + 1) % Self.names.count]
    }

    /// The next classification by family.
    func reprice(_ animal: Animal, using random: inout SeededRandom) {
        guard let context = animal.managedObjectContext,
              let classifications = try? context.fetch(Self.classifications()), !classifications.isEmpty else { return }
        let index = animal.classification.flatMap { classifications.firstIndex(of: $0) } ?? -1
        animal.classification = classifications[(index + 1) % classifications.count]
    }

    private static func classifications() -> NSFetchRequest<Classification> {
        let request = NSFetchRequest<Classification>(entityName: "Classification")
        request.sortDescriptors = [NSSortDescriptor(key: "family", ascending: true)]
        return request
    }
}
