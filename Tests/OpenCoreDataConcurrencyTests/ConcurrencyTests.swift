import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Two background contexts write while the view context reads, many rounds, under each merge policy.
@Suite("Concurrent contexts")
struct ConcurrencyTests {
    static let counters = 8
    static let rounds = 60

    /// Increments `key` of random counters, one save per round; under the error policy a conflict is
    /// retried from fresh values. Returns the increments that were saved.
    static func writer(_ context: NSManagedObjectContext, key: String, seed: UInt64, retry: Bool) -> [Int: Int] {
        context.performAndWait {
            var rng = SeededRandom(seed: seed)
            var saved: [Int: Int] = [:]
            for _ in 0..<rounds {
                let slot = rng.int(0...(counters - 1))
                while true {
                    do {
                        let request = NSFetchRequest<NSManagedObject>(entityName: "Counter")
                        request.predicate = NSPredicate(format: "slot == %d", slot)
                        let counter = try context.fetch(request)[0]
                        counter.setValue(((counter.value(forKey: key) as? Int) ?? 0) + 1, forKey: key)
                        try context.save()
                        saved[slot, default: 0] += 1
                        break
                    } catch let error as NSError where error.code == NSManagedObjectMergeError && retry {
                        context.rollback()
                        context.refreshAllObjects()
                    } catch {
                        Issue.record("save failed: \(error)")
                        return saved
                    }
                }
            }
            return saved
        }
    }

    @Test(arguments: [NSMergePolicyType.errorMergePolicyType, .mergeByPropertyStoreTrumpMergePolicyType,
                      .mergeByPropertyObjectTrumpMergePolicyType, .overwriteMergePolicyType, .rollbackMergePolicyType])
    func writersAndAReader(_ policy: NSMergePolicyType) async throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(LedgerModel.make())
        let view = container.viewContext
        view.automaticallyMergesChangesFromParent = true
        try view.performAndWait {
            for slot in 0..<Self.counters {
                NSEntityDescription.insertNewObject(forEntityName: "Counter", into: view).setValue(slot, forKey: "slot")
            }
            try view.save()
            _ = try view.fetch(NSFetchRequest<NSManagedObject>(entityName: "Counter")).map { $0.value(forKey: "a") }
        }
        let a = container.newBackgroundContext(), b = container.newBackgroundContext()
        a.mergePolicy = NSMergePolicy(merge: policy)
        b.mergePolicy = NSMergePolicy(merge: policy)
        let retry = policy == .errorMergePolicyType
        async let savedA = Task.detached { Self.writer(a, key: "a", seed: 1, retry: retry) }.value
        async let savedB = Task.detached { Self.writer(b, key: "b", seed: 2, retry: retry) }.value
        async let reads = Task.detached { () -> Int in
            var n = 0
            for _ in 0..<40 {
                n += view.performAndWait { (try? view.count(for: NSFetchRequest<NSManagedObject>(entityName: "Counter"))) ?? 0 }
            }
            return n
        }.value
        let (incA, incB, readCount) = await (savedA, savedB, reads)
        #expect(readCount == 40 * Self.counters)

        let fresh = try store.container(LedgerModel.make()).viewContext
        let rows = try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "Counter"))
        var storeA: [Int: Int] = [:], storeB: [Int: Int] = [:]
        for row in rows {
            let slot = row.value(forKey: "slot") as! Int
            storeA[slot] = row.value(forKey: "a") as? Int
            storeB[slot] = row.value(forKey: "b") as? Int
        }
        for slot in 0..<Self.counters {
            switch policy {
            case .errorMergePolicyType, .mergeByPropertyStoreTrumpMergePolicyType, .mergeByPropertyObjectTrumpMergePolicyType:
                // No lost update: every saved increment of either writer is in the store.
                #expect(storeA[slot] == incA[slot, default: 0], "policy \(policy) slot \(slot) a")
                #expect(storeB[slot] == incB[slot, default: 0], "policy \(policy) slot \(slot) b")
            case .overwriteMergePolicyType, .rollbackMergePolicyType:
                // Documented last-writer-wins / discard semantics: never more than was saved.
                #expect(storeA[slot, default: 0] <= incA[slot, default: 0])
                #expect(storeB[slot, default: 0] <= incB[slot, default: 0])
            }
        }
        // The view context, after its queued merges, equals the store.
        view.performAndWait {
            for object in view.registeredObjects where !object.isFault {
                let slot = object.value(forKey: "slot") as! Int
                #expect(object.value(forKey: "a") as? Int == storeA[slot], "view a slot \(slot) policy \(policy)")
                #expect(object.value(forKey: "b") as? Int == storeB[slot], "view b slot \(slot) policy \(policy)")
            }
        }
    }
}
