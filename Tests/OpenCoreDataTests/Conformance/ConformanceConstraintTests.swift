import Foundation
import OpenCoreData
import Testing

/// Uniqueness constraints (`Tag.code`): a duplicate of a stored object is an error under
/// `NSErrorMergePolicy` and an update of the stored object under a merge-by-property policy.
@Suite("Conformance: uniqueness constraints")
struct ConformanceConstraintTests {
    /// A store holding the tag a/"old", and a new context of the same coordinator.
    static func storeWithTag(_ place: StorePlace) throws -> NSManagedObjectContext {
        let coordinator = try place.coordinator()
        let first = StorePlace.context(of: coordinator)
        try first.performAndWait { () throws in
            ConformanceModel.tag("a", "old", in: first)
            try first.save()
        }
        return StorePlace.context(of: coordinator)
    }

    @Test(arguments: StoreUnderTest.with(.uniquenessConstraints))
    func aDuplicateIsAnErrorUnderTheErrorPolicy(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let context = try Self.storeWithTag(place)
        try context.performAndWait { () throws in
            ConformanceModel.tag("a", "new", in: context)
            let error = #expect(throws: CoreDataError.self) { try context.save() }
            #expect(error?.code == NSManagedObjectConstraintMergeError)
            context.rollback()
            #expect(try ConformanceModel.values("Tag", "label", in: context) == ["old"])
        }
    }

    @Test(arguments: StoreUnderTest.with(.uniquenessConstraints))
    func aDuplicateUpdatesTheStoredObjectUnderObjectTrump(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let context = try Self.storeWithTag(place)
        try context.performAndWait { () throws in
            context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
            ConformanceModel.tag("a", "new", in: context)
            ConformanceModel.tag("b", "B", in: context)
            try context.save()
            context.reset()
            #expect(try ConformanceModel.values("Tag", "label", in: context) == ["B", "new"])
        }
    }

    @Test(arguments: StoreUnderTest.all)
    func duplicatesWithinOneSaveAreAnError(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let context = try place.context()
        try context.performAndWait { () throws in
            ConformanceModel.tag("a", "one", in: context)
            ConformanceModel.tag("a", "two", in: context)
            let error = #expect(throws: CoreDataError.self) { try context.save() }
            #expect(error?.code == NSManagedObjectConstraintMergeError)
            context.rollback()
            #expect(try context.count(for: ConformanceModel.request("Tag")) == 0)
        }
    }

    /// A store that does not declare the capability does not check its stored rows: the duplicate is
    /// stored beside the first (Core Data: uniqueness constraints are a SQLite store feature).
    @Test(arguments: StoreUnderTest.without(.uniquenessConstraints))
    func withoutTheCapabilityAStoredDuplicateIsKept(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let context = try Self.storeWithTag(place)
        try context.performAndWait { () throws in
            ConformanceModel.tag("a", "new", in: context)
            try context.save()
            context.reset()
            #expect(try ConformanceModel.values("Tag", "label", in: context) == ["new", "old"])
        }
    }
}
