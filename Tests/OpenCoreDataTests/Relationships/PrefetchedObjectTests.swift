import Foundation
import Observation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// A kind of breed, counting the `awakeFromFetch()` calls it receives.
final class PrefetchedKind: NSManagedObject {
    @Managed var name: String?
    @Managed var breeds: NSSet?
    var awakenings = 0
    override func awakeFromFetch() {
        super.awakeFromFetch()
        awakenings += 1
    }
}

/// A breed and its kind (to-one; inverse `breeds`).
final class PrefetchedBreed: NSManagedObject {
    @Managed var title: String?
    @Managed var kind: PrefetchedKind?
}

/// The objects a prefetched to-one brings into a context that held none are made bare, their values
/// the rows read (`FaultBatch.isLoaded`): they must be what Core Data's prefetched objects are, loaded
/// objects registered in the context, whatever is then done with them (reads, writes, saves, undo,
/// rollback, refresh, reset, merges, Observation).
@Suite("Relationships: prefetched objects") struct PrefetchedObjectTests {
    /// 100 breeds with a kind each (`kind 0` … `kind 99`) and 2 more of `kind 0`; opened again by a new
    /// container, so nothing is registered.
    struct Kennel {
        let store = TemporaryStore()
        let container: NSPersistentContainer
        var context: NSManagedObjectContext { container.viewContext }
        let sqlite: SQLiteStore

        static func model() -> NSManagedObjectModel {
            let string = { (name: String) in NSAttributeDescription(name: name, type: .stringAttributeType) }
            return NSManagedObjectModel(entities: [
                NSEntityDescription(name: "Breed", managedObjectClassName: NSStringFromClass(PrefetchedBreed.self), properties: [
                    string("title"), NSRelationshipDescription(name: "kind", destination: "Kind", inverse: "breeds"),
                ]),
                NSEntityDescription(name: "Kind", managedObjectClassName: NSStringFromClass(PrefetchedKind.self), properties: [
                    string("name"), NSRelationshipDescription(name: "breeds", destination: "Breed", inverse: "kind", toMany: true),
                ]),
            ])
        }

        init() throws {
            do {
                let context = try store.container(Self.model()).viewContext
                let kinds = (0..<100).map { i in context.make("Kind", ["name": "kind \(i)"]) }
                for i in 0..<102 { context.make("Breed", ["title": "breed \(i)", "kind": kinds[i < 100 ? 99 - i : 0]]) }
                try context.save()
            }
            container = try store.container(Self.model())
            sqlite = try container.persistentStoreCoordinator.sqlite
        }

        /// The breeds, by title, their kinds prefetched (into the view context unless told).
        func breeds(into context: NSManagedObjectContext? = nil) throws -> [PrefetchedBreed] {
            let request = NSFetchRequest<PrefetchedBreed>(entityName: "Breed")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            request.relationshipKeyPathsForPrefetching = ["kind"]
            return try (context ?? self.context).fetch(request)
        }

        /// The prefetched kind named `name`.
        func kind(_ name: String, in breeds: [PrefetchedBreed]) throws -> PrefetchedKind {
            try #require(breeds.lazy.compactMap(\.kind).first { $0.name == name })
        }

        /// The queries `body` runs.
        func queries(_ body: () throws -> Void) rethrows -> Int {
            let before = sqlite.queryCount
            try body()
            return sqlite.queryCount - before
        }

        /// The name of kind `name`'s row as the store has it, read by a new container.
        func storedName(of id: NSManagedObjectID) throws -> String? {
            let context = try store.container(Self.model()).viewContext
            return (try context.existingObject(with: id) as? PrefetchedKind)?.name
        }
    }

    @Test func theyAreLoadedRegisteredAndAwokenOnce() throws {
        let kennel = try Kennel()
        defer { kennel.store.cleanUp() }
        var breeds: [PrefetchedBreed] = []
        #expect(try kennel.queries { breeds = try kennel.breeds() } == 2)
        #expect(breeds.count == 102)
        let kinds = breeds.compactMap(\.kind)
        #expect(Set(kinds.map(ObjectIdentifier.init)).count == 100, "each kind is one object")
        #expect(kinds.allSatisfy { $0.isBare }, "made bare, with no state")
        #expect(kennel.context.registeredObjects.count == 202)
        let reads = kennel.queries {
            for (breed, kind) in zip(breeds, kinds) {
                #expect(!kind.isFault)
                #expect(kind.faultingState == 0)
                #expect(kind.awakenings == 1)
                #expect(kind.managedObjectContext === kennel.context)
                #expect(kennel.context.registeredObject(for: kind.objectID) === kind)
                #expect(!kind.objectID.isTemporaryID)
                let number = Int(breed.title!.dropFirst("breed ".count))!
                #expect(kind.name == "kind \(number < 100 ? 99 - number : 0)")
                #expect(kind.value(forKey: "name") as? String == kind.name)
                #expect(!kind.hasChanges && !kind.isUpdated && kind.changedValues().isEmpty)
                #expect(kind.committedValues(forKeys: ["name"])["name"] as? String == kind.name)
            }
        }
        #expect(reads == 0)
        // The inverse is still a to-many fault of each kind: reading it is one query.
        let kind = try kennel.kind("kind 0", in: breeds)
        var members = 0
        #expect(kennel.queries { members = kind.breeds?.count ?? 0 } == 1)
        #expect(members == 3)
    }

    @Test func aChangeIsRecordedSavedAndCommitted() throws {
        let kennel = try Kennel()
        defer { kennel.store.cleanUp() }
        let breeds = try kennel.breeds()
        let kind = try kennel.kind("kind 7", in: breeds)
        kind.name = "seven"
        #expect(kind.isUpdated)
        #expect(kind.changedValues()["name"] as? String == "seven")
        #expect(kind.committedValues(forKeys: ["name"])["name"] as? String == "kind 7")
        #expect(kennel.context.updatedObjects.contains(kind))
        let untouched = try kennel.kind("kind 8", in: breeds)
        #expect(untouched.isBare && !untouched.hasChanges)
        try kennel.context.save()
        #expect(!kind.hasChanges)
        #expect(kind.committedValues(forKeys: ["name"])["name"] as? String == "seven")
        #expect(try kennel.storedName(of: kind.objectID) == "seven")
        #expect(try kennel.storedName(of: untouched.objectID) == "kind 8")
    }

    @Test func rollbackRefreshAndResetTreatThemAsLoadedObjects() throws {
        let kennel = try Kennel()
        defer { kennel.store.cleanUp() }
        let breeds = try kennel.breeds()
        let kind = try kennel.kind("kind 3", in: breeds)
        kind.name = "three"
        kennel.context.rollback()
        #expect(kind.name == "kind 3")
        #expect(!kind.hasChanges)

        let other = try kennel.kind("kind 4", in: breeds)
        kennel.context.refresh(other, mergeChanges: false)
        #expect(other.isFault)
        var name: String?
        #expect(kennel.queries { name = other.name } == 1)
        #expect(name == "kind 4")
        #expect(other.awakenings == 2, "firing the fault again awakes it again")

        let untouched = try kennel.kind("kind 5", in: breeds)
        kennel.context.reset()
        #expect(untouched.managedObjectContext == nil)
        #expect(kind.managedObjectContext == nil)
        #expect(kennel.context.registeredObjects.isEmpty)
    }

    @Test func undoRestoresTheRowValue() throws {
        let kennel = try Kennel()
        defer { kennel.store.cleanUp() }
        let manager = UndoManager()
        kennel.context.undoManager = manager
        let kind = try kennel.kind("kind 9", in: try kennel.breeds())
        kind.name = "nine"
        kennel.context.processPendingChanges()
        kennel.context.undo()
        #expect(kind.name == "kind 9")
        #expect(!kind.hasChanges)
        kennel.context.redo()
        #expect(kind.name == "nine")
    }

    @Test func aMergedSaveUpdatesThem() throws {
        let kennel = try Kennel()
        defer { kennel.store.cleanUp() }
        let reader = kennel.container.newBackgroundContext()
        reader.automaticallyMergesChangesFromParent = true
        let kind = try reader.performAndWait { try kennel.kind("kind 11", in: try kennel.breeds(into: reader)) }
        let id = kind.objectID
        try kennel.context.performAndWait {
            (try kennel.context.existingObject(with: id) as! PrefetchedKind).name = "eleven"
            try kennel.context.save()
        }
        reader.performAndWait {
            #expect(kind.name == "eleven")
            #expect(!kind.hasChanges)
        }
    }

    @Test func observationSeesTheirChanges() throws {
        let kennel = try Kennel()
        defer { kennel.store.cleanUp() }
        let kind = try kennel.kind("kind 12", in: try kennel.breeds())
        let changes = PrefetchedObjectTests.Changes()
        withObservationTracking { _ = kind.name } onChange: { changes.count += 1 }
        kind.name = "twelve"
        #expect(changes.count == 1)
    }

    /// How many times an `onChange` ran.
    final class Changes: @unchecked Sendable {
        var count = 0
    }

    @Test func keysAreSortedAndUniqueByBitmapOrBySort() {
        var random = SystemRandomNumberGenerator()
        let shapes: [[Int64]] = [
            [], [5], [3, 3, 1],
            (0..<500).map { _ in Int64.random(in: 1...300, using: &random) },         // dense: a bitmap
            (0..<500).map { _ in Int64.random(in: -1_000...1_000, using: &random) },   // dense around 0
            (0..<500).map { _ in Int64.random(in: 1...1_000_000, using: &random) },    // sparse: sorted
            (0..<100).map { $0 % 2 == 0 ? Int64.min + Int64($0) : Int64.max - Int64($0) }, // a range that overflows
        ]
        for keys in shapes {
            #expect(NSManagedObjectContext.sortedUnique(keys) == Array(Set(keys)).sorted())
        }
    }
}
