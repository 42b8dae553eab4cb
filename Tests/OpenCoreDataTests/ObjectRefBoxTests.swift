import Foundation
import Testing
@testable import OpenCoreData
@testable import OpenCoreDataPredicates
import OpenCoreDataTesting

/// Issue 51, item 3: a to-one slot's reference is made without `AnyHashable`'s generic path; the value is
/// the one the generic path makes (equal, equally hashed, the same reference read back).
@Suite struct ObjectRefBoxTests {
    @Test func theFastPathIsTakenHere() {
        #expect(ObjectRefBox.isFast)
    }

    /// Values that are not references read as none.
    @Test func otherValuesAreNoReferences() {
        for value: Value in [.null, .int(3), .string("a"), .object(AnyHashable("text")), .object(AnyHashable(42)), ToManyFault.value] {
            #expect(value.objectRef == nil, "\(value)")
        }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func referencesAreTheGenericOnes(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        var mixed: Set<Value> = []
        for _ in 0..<2_000 {
            let key: ObjectKey = rng.chance(0.8)
                ? .permanent(root: rng.int(0...200), pk: Int64(rng.int(0...Int(Int32.max))) * Int64(rng.int(1...1000)))
                : .temporary(UInt64(rng.int(0...Int.max)))
            let ref = ObjectRef(key: key, entityID: rng.int(0...5000))
            let fast = ref.value, generic = Value.object(AnyHashable(ref))
            #expect(fast == generic, "seed \(seed): \(key)")
            #expect(fast.hashValue == generic.hashValue, "seed \(seed): \(key)")
            #expect(fast.objectRef?.key == key && fast.objectRef?.entityID == ref.entityID, "seed \(seed): \(key)")
            #expect(generic.objectRef?.key == key && generic.objectRef?.entityID == ref.entityID, "seed \(seed): \(key)")
            #expect(!fast.isToManyFault)
            // Either kind finds the other in a set.
            if rng.chance(0.5) { mixed.insert(fast); #expect(mixed.contains(generic)) } else { mixed.insert(generic); #expect(mixed.contains(fast)) }
        }
    }
}
