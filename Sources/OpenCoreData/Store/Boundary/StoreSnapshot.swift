import Foundation
import Synchronization

/// A query generation of a store (``SnapshotStore``): the store as it was at one moment, readable for as
/// long as the value lives. What ``NSQueryGenerationToken`` holds.
package protocol StoreSnapshot: AnyObject, Sendable {
    /// The identifier of the store it is a generation of.
    var storeIdentifier: String { get }
    /// Its number among the process's generations (for encoding its token).
    var number: Int { get }
}

/// The generations alive in this process, by store identifier and number, so that a decoded
/// ``NSQueryGenerationToken`` finds its generation again while it lives.
package enum LiveSnapshots {
    private static let counter = Atomic<Int>(0)
    private static let live = Mutex<[String: [Int: Weak]]>([:])
    private struct Weak { weak var snapshot: (any StoreSnapshot)? }

    /// A number for a new generation.
    static func nextNumber() -> Int { counter.add(1, ordering: .relaxed).newValue }

    /// Lists a new generation (its store calls this once it is made).
    static func add(_ snapshot: any StoreSnapshot) {
        live.withLock { $0[snapshot.storeIdentifier, default: [:]][snapshot.number] = Weak(snapshot: snapshot) }
    }

    /// Forgets a generation that ended.
    static func remove(_ storeIdentifier: String, _ number: Int) {
        live.withLock { _ = $0[storeIdentifier]?.removeValue(forKey: number) }
    }

    /// The live generation of that store and number, if it still exists.
    static func find(store identifier: String, number: Int) -> (any StoreSnapshot)? {
        live.withLock { $0[identifier]?[number]?.snapshot }
    }
}
