import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)`: restoring a
/// backup, or installing a pre-populated store, over a store file.
@Suite("Store management: replacing a store's file")
struct ReplaceStoreTests {
    private func names(_ url: URL) throws -> [String] {
        let container = NSPersistentContainer(name: "Check", managedObjectModel: makeProductsModel())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        let request = NSFetchRequest<NSManagedObject>(entityName: "Products")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return try container.viewContext.fetch(request).map { $0.value(forKey: "name") as? String ?? "" }
    }

    @Test func theDestinationBecomesACopyOfTheSourceWhichStaysAsItWas() throws {
        let source = TemporaryStore(), destination = TemporaryStore()
        defer { source.cleanUp(); destination.cleanUp() }
        let live = try source.container()          // the source stays open, its last save in the WAL
        insertProducts(live.viewContext, count: 5, seed: 1)
        try live.viewContext.save()
        let expected = try names(source.url)
        let old = try destination.container()
        insertProducts(old.viewContext, count: 2, seed: 2)
        try old.viewContext.save()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeProductsModel())
        #expect(throws: CoreDataError.self, "added here: refused") {
            let added = try coordinator.addPersistentStore(type: .sqlite, at: destination.url)
            defer { try? coordinator.remove(added) }
            try coordinator.replacePersistentStore(at: destination.url, withPersistentStoreFrom: source.url, type: .sqlite)
        }
        #expect(try names(destination.url).count == 2, "the refused replacement changed nothing")
        try coordinator.replacePersistentStore(at: destination.url, withPersistentStoreFrom: source.url, type: .sqlite)
        #expect(try names(destination.url) == expected)
        #expect(try names(source.url) == expected)
        // A new file is made when there is none.
        let fresh = destination.directory.appendingPathComponent("Fresh.sqlite")
        try coordinator.replacePersistentStore(at: fresh, destinationOptions: nil, withPersistentStoreFrom: source.url,
                                               sourceOptions: nil, ofType: NSSQLiteStoreType)
        #expect(try names(fresh) == expected)
    }

    @Test func aSourceThatIsNoStoreLeavesTheDestinationUntouched() throws {
        let destination = TemporaryStore()
        defer { destination.cleanUp() }
        let container = try destination.container()
        insertProducts(container.viewContext, count: 3)
        try container.viewContext.save()
        let bytes = try Data(contentsOf: destination.url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeProductsModel())
        let text = destination.directory.appendingPathComponent("notes.txt")
        try Data("not a database".utf8).write(to: text)
        #expect { try coordinator.replacePersistentStore(at: destination.url, withPersistentStoreFrom: text, type: .sqlite) } throws: {
            "\($0)".contains("is not a SQLite store")
        }
        let missing = destination.directory.appendingPathComponent("missing.sqlite")
        #expect { try coordinator.replacePersistentStore(at: destination.url, withPersistentStoreFrom: missing, type: .sqlite) } throws: {
            "\($0)".contains("There is no store at")
        }
        #expect(throws: CoreDataError.self) {
            try coordinator.replacePersistentStore(at: destination.url, withPersistentStoreFrom: destination.url, type: .inMemory)
        }
        #expect(try Data(contentsOf: destination.url) == bytes)
    }
}
