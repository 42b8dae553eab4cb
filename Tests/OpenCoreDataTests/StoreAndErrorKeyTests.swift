import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Store-class API and the keys errors carry: `migrationManagerClass()`, `destroyPersistentStore` of
/// binary and XML stores, `NSValidationPredicateErrorKey`, `NSAffectedObjectsErrorKey`,
/// `NSAffectedStoresErrorKey`, and the merge policy singletons.
@Suite("Store classes and error keys")
struct StoreAndErrorKeyTests {
    @Test func theMigrationManagerClassIsNSMigrationManager() {
        #expect(ObjectIdentifier(NSPersistentStore.migrationManagerClass()) == ObjectIdentifier(NSMigrationManager.self))
        #expect(ObjectIdentifier(NSAtomicStore.migrationManagerClass()) == ObjectIdentifier(NSMigrationManager.self))
    }

    @Test(arguments: [NSPersistentStore.StoreType.binary, .xml])
    func destroyingABinaryOrXMLStoreRemovesItAndItsFile(_ type: NSPersistentStore.StoreType) throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let url = directory.directory.appendingPathComponent("Values.store")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BinaryStoreTests.model())
        try coordinator.addPersistentStore(type: type, at: url)
        let context = NSManagedObjectContext(.mainQueue)
        context.persistentStoreCoordinator = coordinator
        NSEntityDescription.insertNewObject(forEntityName: "V", into: context)
        try context.save()
        #expect(FileManager.default.fileExists(atPath: url.path))
        try coordinator.destroyPersistentStore(at: url, type: type)
        #expect(coordinator.persistentStores.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        // A file that does not exist is not an error.
        try coordinator.destroyPersistentStore(at: url, type: type)
    }

    @Test func destroyingAFileOfAnotherFormatAsABinaryStoreIsRefusedUnlessForced() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let url = directory.directory.appendingPathComponent("Other.store")
        try Data("not a property list".utf8).write(to: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BinaryStoreTests.model())
        #expect { try coordinator.destroyPersistentStore(at: url, type: .binary) } throws: { ($0 as NSError).code == NSPersistentStoreInvalidTypeError }
        #expect(FileManager.default.fileExists(atPath: url.path))
        try coordinator.destroyPersistentStore(at: url, type: .xml, options: [NSPersistentStoreForceDestroyOption: true])
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    static func validatedModel() -> NSManagedObjectModel {
        let count = NSAttributeDescription(name: "count", type: .integer64AttributeType)
        count.setValidationPredicates([NSPredicate(format: "SELF >= 0")], withValidationWarnings: ["negative"])
        return NSManagedObjectModel(entities: [NSEntityDescription(name: "Item", properties: [count])])
    }

    static func context(_ model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
        let context = NSManagedObjectContext(.mainQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test func aFailedValidationPredicateIsInItsError() throws {
        let context = try Self.context(Self.validatedModel())
        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
        item.setValue(-1, forKey: "count")
        let error = try #require(throws: NSError.self) { try context.save() }
        let predicate = try #require(error.userInfo[NSValidationPredicateErrorKey] as? NSPredicate)
        #expect(predicate.predicateFormat == "SELF >= 0")
        #expect(error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === item)
        #expect(error.userInfo[NSValidationValueErrorKey] as? Int == -1)
    }

    @Test func aMultipleValidationErrorListsTheObjectsThatFailed() throws {
        let context = try Self.context(Self.validatedModel())
        let items = (0..<3).map { _ in NSEntityDescription.insertNewObject(forEntityName: "Item", into: context) }
        items[0].setValue(-1, forKey: "count")
        items[1].setValue(5, forKey: "count")
        items[2].setValue(-2, forKey: "count")
        let error = try #require(throws: NSError.self) { try context.save() }
        #expect(error.code == NSValidationMultipleErrorsError)
        let affected = try #require(error.userInfo[NSAffectedObjectsErrorKey] as? [NSManagedObject])
        #expect(Set(affected.map(ObjectIdentifier.init)) == Set([items[0], items[2]].map(ObjectIdentifier.init)))
    }

    @Test func removingAStoreTheCoordinatorDoesNotHoldNamesTheStore() throws {
        let one = NSPersistentStoreCoordinator(managedObjectModel: Self.validatedModel())
        let other = NSPersistentStoreCoordinator(managedObjectModel: Self.validatedModel())
        let store = try other.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
        let error = try #require(throws: NSError.self) { try one.remove(store) }
        #expect(error.code == NSPersistentStoreOperationError)
        #expect((error.userInfo[NSAffectedStoresErrorKey] as? [NSPersistentStore])?.first === store)
    }

    @Test func theMergePolicySingletonsHaveTheirTypes() {
        #expect(NSMergePolicy.mergeByPropertyStoreTrump.mergeType == .mergeByPropertyStoreTrumpMergePolicyType)
        #expect(NSMergePolicy.mergeByPropertyObjectTrump.mergeType == .mergeByPropertyObjectTrumpMergePolicyType)
        #expect(NSMergePolicy.overwrite.mergeType == .overwriteMergePolicyType)
        #expect(NSMergePolicy.rollback.mergeType == .rollbackMergePolicyType)
        #expect(NSMergePolicy.error.mergeType == .errorMergePolicyType)
        #expect(NSMergePolicyType(rawValue: 1) == .mergeByPropertyStoreTrumpMergePolicyType)
    }
}
