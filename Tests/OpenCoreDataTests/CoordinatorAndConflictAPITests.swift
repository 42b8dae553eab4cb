import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Smaller members of the coordinator, the object ID and the merge types, under Apple's newer spellings.
@Suite("Coordinator, object ID and conflict members")
struct CoordinatorAndConflictAPITests {
    @Test func objectIDsKnowTheirStoreAndURIStringsFindThem() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let context = container.viewContext
        let coordinator = container.persistentStoreCoordinator
        coordinator.name = "Main"
        #expect(coordinator.name == "Main" && NSPersistentStoreCoordinator(managedObjectModel: SeedModel.make()).name == nil)
        let product = insertProducts(context, count: 1)[0]
        #expect(product.objectID.persistentStore == nil, "a temporary ID has no store")
        context.assign(product, to: coordinator.persistentStores[0])
        try context.save()
        #expect(product.objectID.persistentStore === coordinator.persistentStores[0])
        let uri = product.objectID.uriRepresentation().absoluteString
        #expect(coordinator.managedObjectID(for: uri) == product.objectID)
        #expect(coordinator.managedObjectID(for: "x-coredata://elsewhere/Products/p1") == nil)
        #expect(coordinator.managedObjectID(for: "not a uri ^") == nil)
    }

    @Test func registeredStoreTypesHoldTheClasses() {
        NSPersistentStoreCoordinator.registerStoreClass(JSONAtomicStore.self, forStoreType: JSONAtomicStore.type)
        let types = NSPersistentStoreCoordinator.registeredStoreTypes
        func storeClass(_ type: String) -> AnyClass? {
            guard let value = types[type] else { return nil }
            var bits: UInt64 = 0
            value.getValue(&bits)
            return UnsafeRawPointer(bitPattern: UInt(bits)).map { unsafeBitCast($0, to: AnyClass.self) }
        }
        #expect(storeClass(JSONAtomicStore.type) == JSONAtomicStore.self)
        #expect(storeClass(NSBinaryStoreType) != nil && storeClass(NSSQLiteStoreType) == NSPersistentStore.self)
        #expect(storeClass("Nope") == nil)
    }

    @Test func newerInitializerSpellingsBuildTheSameThings() throws {
        #expect(NSMergePolicy(mergeType: .rollbackMergePolicyType).mergeType == .rollbackMergePolicyType)
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().viewContext
        let product = insertProducts(context, count: 1)[0]
        let conflict = NSConstraintConflict(constraint: ["name"], databaseObject: nil, databaseSnapshot: nil,
                                            conflictingObjects: [product], conflictingSnapshots: [[:]])
        #expect(conflict.constraint == ["name"] && conflict.conflictingObjects == [product])
        #expect(conflict.constraintValues["name"] as? String == product.name)
    }

    /// An app's merge policy makes its own `NSMergeConflict` and lets the superclass resolve it: the
    /// persisted snapshot's values win where the object did not change them (store trump).
    @Test func aMergeConflictMadeByTheAppIsResolvedLikeOneASaveFound() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().viewContext
        let product = insertProducts(context, count: 1)[0]
        try context.save()
        let originalName = product.name
        product.price = 99
        let conflict = NSMergeConflict(source: product, newVersion: 2, oldVersion: 1, cachedSnapshot: nil,
                                       persistedSnapshot: ["name": "Renamed elsewhere", "price": product.price])
        #expect(conflict.persistedSnapshot?["name"] as? String == "Renamed elsewhere" && conflict.newVersionNumber == 2)
        #expect(conflict.cachedSnapshot?["name"] as? String == originalName)
        try NSMergePolicy(mergeType: .mergeByPropertyObjectTrumpMergePolicyType).resolve(optimisticLockingConflicts: [conflict])
        #expect(product.name == "Renamed elsewhere", "a value the object did not change takes the store's")
        #expect(product.price == 99, "the object's own change wins")
    }
}

/// `localizationDictionary` names entities, properties and warnings in validation messages.
@Suite("Model localization dictionary")
struct LocalizationDictionaryTests {
    @Test func validationMessagesUseTheLocalizedNames() throws {
        let age = NSAttributeDescription(name: "age", type: .integer64AttributeType)
        age.setValidationPredicates([NSPredicate(format: "SELF >= 0")], withValidationWarnings: ["tooYoung"])
        let model = NSManagedObjectModel(entities: [NSEntityDescription(name: "Person", properties: [age])])
        model.localizationDictionary = ["Entity/Person": "Personne", "Property/age/Entity/Person": "âge", "ErrorString/tooYoung": "trop jeune"]
        #expect(model.localizationDictionary?["Entity/Person"] == "Personne")
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(model).viewContext
        NSEntityDescription.insertNewObject(forEntityName: "Person", into: context).setValue(-1, forKey: "age")
        let error = #expect(throws: CoreDataError.self) { try context.save() }
        #expect(error?.message.contains("Personne.âge = -1") == true && error?.message.contains("(trop jeune)") == true,
                "\(String(describing: error?.message))")
    }
}
