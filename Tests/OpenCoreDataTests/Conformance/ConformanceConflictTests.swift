import Foundation
import OpenCoreData
import Testing

/// Optimistic locking: two contexts change one object; the second save meets the first's change and
/// its merge policy decides (Core Data's documented outcome of each standard policy).
@Suite("Conformance: conflicts and merge policies")
struct ConformanceConflictTests {
    /// Policies and the title the store holds after the second context's save (the first saved "first",
    /// the second "second"); `nil`: the save throws `NSManagedObjectMergeError`.
    static let outcomes: [(policy: String, title: String?)] = [
        ("error", nil), ("rollback", "first"), ("overwrite", "second"), ("objectTrump", "second"), ("storeTrump", "first"),
    ]

    static func policy(_ name: String) -> NSMergePolicy {
        switch name {
        case "rollback": NSMergePolicy(merge: .rollbackMergePolicyType)
        case "overwrite": NSMergePolicy(merge: .overwriteMergePolicyType)
        case "objectTrump": NSMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
        case "storeTrump": NSMergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
        default: NSMergePolicy(merge: .errorMergePolicyType)
        }
    }

    /// Two contexts of one coordinator holding the same saved book; the first has renamed it and saved.
    static func conflict(_ place: StorePlace) throws -> (NSManagedObjectContext, NSManagedObject, NSPersistentStoreCoordinator) {
        let coordinator = try place.coordinator()
        let first = StorePlace.context(of: coordinator), second = StorePlace.context(of: coordinator)
        try ConformanceModel.seedAuthors(first)
        let book = try second.performAndWait { try #require(try second.fetch(ConformanceModel.request("Book", "title == 'Notes'")).first) }
        _ = second.performAndWait { book.value(forKey: "pages") }
        try first.performAndWait { () throws in
            let same = try #require(try first.fetch(ConformanceModel.request("Book", "title == 'Notes'")).first)
            same.setValue("first", forKey: "title")
            try first.save()
        }
        return (second, book, coordinator)
    }

    @Test(arguments: StoreUnderTest.with(.optimisticLocking), outcomes.map(\.policy))
    func theMergePolicyDecides(_ store: StoreUnderTest, policy: String) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let (second, book, coordinator) = try Self.conflict(place)
        let expected = Self.outcomes.first { $0.policy == policy }!.title
        second.performAndWait {
            second.mergePolicy = Self.policy(policy)
            book.setValue("second", forKey: "title")
            book.setValue(777, forKey: "pages")
            if expected == nil {
                let error = #expect(throws: CoreDataError.self) { try second.save() }
                #expect(error?.code == NSManagedObjectMergeError)
                #expect((error?.userInfo["conflictList"] as? [NSMergeConflict])?.first?.sourceObject === book)
            } else {
                #expect(throws: Never.self) { try second.save() }
            }
        }
        guard let expected else { return }
        let reader = StorePlace.context(of: coordinator)
        let stored = try reader.performAndWait { try reader.existingObject(with: book.objectID) }
        #expect(reader.performAndWait { stored.value(forKey: "title") as? String } == expected)
        let pages = reader.performAndWait { stored.value(forKey: "pages") as? Int }
        #expect(pages == (policy == "rollback" ? 100 : 777), "a property only the second context changed")
    }

    @Test(arguments: StoreUnderTest.with(.optimisticLocking))
    func savingAnObjectDeletedElsewhereIsAConflict(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let coordinator = try place.coordinator()
        let first = StorePlace.context(of: coordinator), second = StorePlace.context(of: coordinator)
        try ConformanceModel.seedAuthors(first)
        let book = try second.performAndWait { try #require(try second.fetch(ConformanceModel.request("Book", "title == 'Notes'")).first) }
        try first.performAndWait { () throws in
            try first.fetch(ConformanceModel.request("Book", "title == 'Notes'")).forEach(first.delete)
            try first.save()
        }
        second.performAndWait {
            book.setValue("edited", forKey: "title")
            let error = #expect(throws: CoreDataError.self) { try second.save() }
            #expect(error?.code == NSManagedObjectMergeError)
        }
    }

    @Test(arguments: StoreUnderTest.without(.optimisticLocking))
    func withoutOptimisticLockingTheLastSaveWins(_ store: StoreUnderTest) throws {
        let place = store.fresh()
        defer { place.cleanUp() }
        let (second, book, coordinator) = try Self.conflict(place)
        try second.performAndWait { () throws in
            book.setValue("second", forKey: "title")
            try second.save()
        }
        let reader = StorePlace.context(of: coordinator)
        #expect(try reader.performAndWait { try ConformanceModel.values("Book", "title", in: reader) }.contains("second"))
    }
}
