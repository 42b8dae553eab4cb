import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// The model's references back to an entity (a property's `entity`, a subentity's `superentity`, a
/// relationship's `destinationEntity`, an index's `entity`) do not keep it alive and read `nil` once it is
/// gone, as weak references do; but the entity itself is never referenced weakly, so that the Swift
/// runtime keeps its reference count inline: every managed object and object ID retains its entity, and a
/// retain through a side table is an out-of-line atomic (about 8% of a plain fetch of 100,000 objects).
@Suite("Entities: back references without a side table")
struct EntityReferenceTests {
    /// Whether the runtime moved `object`'s reference count to a side table (64-bit Swift: the header's
    /// second word with its two top bits set, `UseSlowRC` and the side-table mark).
    static func hasSideTable(_ object: AnyObject) -> Bool {
        let bits = Unmanaged.passUnretained(object).toOpaque().load(fromByteOffset: 8, as: UInt64.self)
        return bits >> 62 == 0b11
    }

    @Test func theCheckSeesASideTable() {
        final class Probe {}
        let probe = Probe()
        #expect(!Self.hasSideTable(probe))
        weak let reference = probe
        #expect(reference != nil)
        #expect(Self.hasSideTable(probe))
    }

    @Test func entitiesOfLoadedModelsKeepTheirCountsInline() throws {
        for model in [SeedModel.make(), ZooModel.make(), LedgerModel.make()] {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                for entity in model.entities where !entity.isAbstract {
                    let object = NSEntityDescription.insertNewObject(forEntityName: entity.name!, into: context)
                    _ = object.objectID
                    _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity.name!))
                }
                context.processPendingChanges()
            }
            for entity in model.entities {
                #expect(!Self.hasSideTable(entity), "\(entity.name ?? "?") has a side table")
            }
        }
    }

    @Test func backReferencesReadNilOnceTheEntityIsGone() {
        let attribute = NSAttributeDescription(name: "name", type: .stringAttributeType)
        let relationship = NSRelationshipDescription()
        let child = NSEntityDescription(name: "Child")
        var parent: NSEntityDescription? = NSEntityDescription(name: "Parent", properties: [attribute], subentities: [child])
        relationship.destinationEntity = parent
        #expect(attribute.entity === parent && child.superentity === parent && relationship.destinationEntity === parent)
        parent = nil
        #expect(attribute.entity == nil)
        #expect(child.superentity == nil)
        #expect(relationship.destinationEntity == nil)
    }
}
