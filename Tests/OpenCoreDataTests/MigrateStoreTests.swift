import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// `migratePersistentStore(_:to:options:type:)`: "Save As" of a store into a new SQLite file.
@Suite("Store management: migrating a store to a new file")
struct MigrateStoreTests {
    private func count(_ url: URL) throws -> Int {
        let container = NSPersistentContainer(name: "Check", managedObjectModel: makeProductsModel())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return try container.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Products"))
    }

    @Test func theNewFileTakesOverAndTheContextsObjectsGoOnWorking() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let context = container.viewContext
        let products = insertProducts(context, count: 4)
        try context.save()
        let coordinator = container.persistentStoreCoordinator
        let old = try #require(coordinator.persistentStores.first)
        let copy = store.directory.appendingPathComponent("Copy.sqlite")
        let new = try coordinator.migratePersistentStore(old, to: copy, options: nil, type: .sqlite)
        #expect(coordinator.persistentStores.count == 1 && coordinator.persistentStores.first === new && new.url == copy)
        #expect(new.identifier == old.identifier, "the contexts' object IDs name it")
        let oldBytes = try Data(contentsOf: store.url)
        products[0].setValue("renamed after the move", forKey: "name")
        Products(context: context).setValue("new after the move", forKey: "name")
        try context.save()
        #expect(try count(copy) == 5)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Products")
        request.predicate = NSPredicate(format: "name == %@", "renamed after the move")
        #expect(try context.count(for: request) == 1)
        #expect(try Data(contentsOf: store.url) == oldBytes, "the old file is left as it was")
        #expect(try count(store.url) == 4)
    }

    @Test func anInMemoryStoreIsSavedToAFile() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeProductsModel())
        let memory = try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
        let context = NSManagedObjectContext(.mainQueue)
        context.persistentStoreCoordinator = coordinator
        insertProducts(context, count: 3)
        try context.save()
        let file = directory.directory.appendingPathComponent("Saved.sqlite")
        _ = try coordinator.migratePersistentStore(memory, to: file, withType: NSSQLiteStoreType)
        #expect(try count(file) == 3)
        #expect(coordinator.persistentStores.first?.type == NSSQLiteStoreType)
    }

    @Test func anExistingFileOrAnotherTypeIsRefusedAndNothingChanges() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        insertProducts(container.viewContext, count: 2)
        try container.viewContext.save()
        let coordinator = container.persistentStoreCoordinator
        let old = try #require(coordinator.persistentStores.first)
        let occupied = store.directory.appendingPathComponent("Occupied.sqlite")
        let bytes = Data("someone else's file".utf8)
        try bytes.write(to: occupied)
        #expect { try coordinator.migratePersistentStore(old, to: occupied, type: .sqlite) } throws: { "\($0)".contains("A file exists at") }
        #expect(try Data(contentsOf: occupied) == bytes)
        #expect(throws: CoreDataError.self) {
            try coordinator.migratePersistentStore(old, to: store.directory.appendingPathComponent("B.store"), type: NSPersistentStore.StoreType(rawValue: NSBinaryStoreType))
        }
        #expect(coordinator.persistentStores.first === old)
        #expect(try container.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Products")) == 2)
    }
}
