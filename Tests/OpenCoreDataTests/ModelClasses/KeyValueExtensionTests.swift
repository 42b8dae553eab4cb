import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// App code in this module beside a class of another module (OpenCoreDataTesting's `Animal`, written as
/// Xcode generates classes), as a library's tests extend the classes its model's codegen makes.
extension Animal {
    @KeyValue var firstInitial: String? { commonName.map { String($0.prefix(1)) } }
}

/// Issue 48 item 9: a `@KeyValue` property declared in an extension, in another module than the class,
/// is found by key: `value(forKey:)`, a controller's `sectionNameKeyPath`, an in-memory sort. (The same
/// module's case, a class the codegen plugin generates, is checked by `swift run zoo-codegen`.)
@Suite("Model classes: @KeyValue in an extension of another module's class")
struct KeyValueExtensionTests {
    @Test func aControllerSectionsByIt() throws {
        let model = try #require(NSManagedObjectModel.mergedModel(from: [Bundle.module]))
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(model).viewContext
        for name in ["Gorilla", "Flamingo", "Giraffe", "Stork"] {
            (NSEntityDescription.insertNewObject(forEntityName: "Animal", into: context) as? Animal)?.commonName = name
        }
        try context.save()
        let request = NSFetchRequest<Animal>(entityName: "Animal")
        request.sortDescriptors = [NSSortDescriptor(key: "commonName", ascending: true)]
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                    sectionNameKeyPath: "firstInitial", cacheName: nil)
        try controller.performFetch()
        #expect(controller.sections?.map { "\($0.name): \($0.numberOfObjects)" } == ["F: 1", "G: 2", "S: 1"])
        let first = try #require(controller.fetchedObjects?.first)
        #expect(first.value(forKey: "firstInitial") as? String == "F")
        let byInitial = (controller.fetchedObjects ?? []).sorted(using: [NSSortDescriptor(key: "firstInitial", ascending: false)])
        #expect(byInitial.first?.commonName == "Stork")
    }
}
