import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Keeps the larger of two counters: the object's value or the store's, whichever is larger.
final class LargerCounterPolicy: NSMergePolicy, @unchecked Sendable {
    init() { super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType) }

    override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        let mine = list.map { ($0.sourceObject.value(forKey: "a") as? Int64) ?? 0 }
        try super.resolve(optimisticLockingConflicts: list)
        for (conflict, value) in zip(list, mine) {
            let theirs = (conflict.persistedSnapshot?["a"] as? Int64) ?? 0
            conflict.sourceObject.setValue(max(value, theirs), forKey: "a")
        }
    }
}

/// A policy that refuses every conflict with its own error.
final class RefusingPolicy: NSMergePolicy, @unchecked Sendable {
    struct Refused: Error {}
    init() { super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType) }
    override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
        try super.resolve(optimisticLockingConflicts: list)  // changes the objects …
        throw Refused()                                        // … which the failed save restores
    }
}

@Suite("Merge policies")
struct MergePolicyTests {
    // MARK: - The arithmetic, alone

    @Test func arithmeticOfTheStandardPolicies() {
        // Slots 0…3: changed by neither, by the object, by the store, by both.
        let read: [Value] = [.int(0), .int(0), .int(0), .int(0)]
        let object: [Value] = [.int(0), .int(1), .int(0), .int(1)]
        let store: [Value] = [.int(0), .int(0), .int(2), .int(2)]
        let slots = [0, 1, 2, 3]
        func merged(_ type: NSMergePolicyType) -> [Value] {
            MergeArithmetic.merged(type, object: object, read: read, store: store, slots: slots)
        }
        #expect(merged(.mergeByPropertyStoreTrumpMergePolicyType) == [.int(0), .int(1), .int(2), .int(2)])
        #expect(merged(.mergeByPropertyObjectTrumpMergePolicyType) == [.int(0), .int(1), .int(2), .int(1)])
        #expect(merged(.overwriteMergePolicyType) == object)
        #expect(merged(.rollbackMergePolicyType) == store)
        // Slots outside `slots` (transient) keep the object's values.
        #expect(MergeArithmetic.merged(.rollbackMergePolicyType, object: object, read: read, store: store, slots: [2]) == [.int(0), .int(1), .int(2), .int(1)])
        #expect(MergeArithmetic.rewritesDeletedRow(.overwriteMergePolicyType) && MergeArithmetic.rewritesDeletedRow(.mergeByPropertyObjectTrumpMergePolicyType))
        #expect(!MergeArithmetic.rewritesDeletedRow(.mergeByPropertyStoreTrumpMergePolicyType) && !MergeArithmetic.rewritesDeletedRow(.rollbackMergePolicyType))
        #expect(!MergeArithmetic.deletesChangedRow(.rollbackMergePolicyType) && MergeArithmetic.deletesChangedRow(.overwriteMergePolicyType))
    }

    // MARK: - Policies as objects

    /// Two contexts on one store, each with the counter row loaded.
    func twoContexts() throws -> (TemporaryStore, NSManagedObjectContext, NSManagedObjectContext, NSManagedObjectID) {
        let store = TemporaryStore()
        let container = try store.container(LedgerModel.make())
        let setup = container.newBackgroundContext()
        let id = try setup.performAndWait {
            let counter = NSEntityDescription.insertNewObject(forEntityName: "Counter", into: setup)
            try setup.save()
            return counter.objectID
        }
        return (store, container.newBackgroundContext(), container.newBackgroundContext(), id)
    }

    func counter(_ context: NSManagedObjectContext, _ id: NSManagedObjectID) throws -> NSManagedObject {
        try context.performAndWait { try context.existingObject(with: id) }
    }

    @Test(arguments: [(Int64(5), Int64(3), Int64(5)), (5, 7, 7)])
    func aCustomSubclassKeepsTheLargerCounter(mine: Int64, theirs: Int64, expected: Int64) throws {
        let (store, first, second, id) = try twoContexts()
        defer { store.cleanUp() }
        let a = try counter(first, id), b = try counter(second, id)
        try second.performAndWait {
            b.setValue(theirs, forKey: "a")
            b.setValue(Int64(1), forKey: "b")
            try second.save()
        }
        first.mergePolicy = LargerCounterPolicy()
        try first.performAndWait {
            a.setValue(mine, forKey: "a")
            try first.save()
            #expect(a.value(forKey: "a") as? Int64 == expected)
            #expect(a.value(forKey: "b") as? Int64 == 1, "the other column kept the store's change (object trump)")
            #expect(!first.hasChanges)
        }
        let reader = try store.container(LedgerModel.make()).newBackgroundContext()
        let stored = try counter(reader, id)
        #expect(reader.performAndWait { stored.value(forKey: "a") as? Int64 } == expected)
        #expect(reader.performAndWait { stored.value(forKey: "b") as? Int64 } == 1)
    }

    @Test func aPolicyThatThrowsLeavesStoreAndContextAsTheyWere() throws {
        let (store, first, second, id) = try twoContexts()
        defer { store.cleanUp() }
        let a = try counter(first, id), b = try counter(second, id)
        try second.performAndWait {
            b.setValue(Int64(9), forKey: "a")
            try second.save()
        }
        first.mergePolicy = RefusingPolicy()
        try first.performAndWait {
            a.setValue(Int64(4), forKey: "a")
            a.setValue(Int64(2), forKey: "b")
            #expect(throws: RefusingPolicy.Refused.self) { try first.save() }
            #expect(a.value(forKey: "a") as? Int64 == 4, "the object's values are restored")
            #expect(a.committedValues(forKeys: ["a"])["a"] as? Int64 == 0, "so is what it had read")
            #expect(first.hasChanges)
            // The default policy still reports the conflict afterwards: the object was not moved on.
            first.mergePolicy = NSErrorMergePolicy
            let error = try #require(throws: CoreDataError.self) { try first.save() }
            #expect(error.code == NSManagedObjectMergeError)
        }
        let reader = try store.container(LedgerModel.make()).newBackgroundContext()
        let stored = try counter(reader, id)
        #expect(reader.performAndWait { (stored.value(forKey: "a") as? Int64, stored.value(forKey: "b") as? Int64) } == (9, 0))
    }

    @Test func aSubclassThatDoesNotCallSuperOverwritesWithItsObjects() throws {
        final class Silent: NSMergePolicy, @unchecked Sendable {
            init() { super.init(merge: .errorMergePolicyType) }
            override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {}
        }
        let (store, first, second, id) = try twoContexts()
        defer { store.cleanUp() }
        let a = try counter(first, id), b = try counter(second, id)
        try second.performAndWait {
            b.setValue(Int64(9), forKey: "a")
            b.setValue(Int64(8), forKey: "b")
            try second.save()
        }
        first.mergePolicy = Silent()
        try first.performAndWait {
            a.setValue(Int64(4), forKey: "a")
            try first.save()
        }
        let reader = try store.container(LedgerModel.make()).newBackgroundContext()
        let stored = try counter(reader, id)
        #expect(reader.performAndWait { (stored.value(forKey: "a") as? Int64, stored.value(forKey: "b") as? Int64) } == (4, 0))
    }
}
