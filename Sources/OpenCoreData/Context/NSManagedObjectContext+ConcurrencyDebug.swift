import Foundation
import Synchronization

/// Core Data's concurrency debug switch: `-com.apple.CoreData.ConcurrencyDebug 1` on the command line (as
/// Core Data's launch argument), `OPENCOREDATA_CONCURRENCY_DEBUG=1` in the environment, or
/// ``isEnabled`` set in code. See docs/Concurrency.md, "Queue checks".
///
/// Two levels of checks guard a context's entry points (`fetch(_:)`, `count(for:)`, `save()`,
/// `insert(_:)`, `delete(_:)`, `existingObject(with:)`, `object(with:)`, and `value(forKey:)`,
/// `setValue(_:forKey:)` and their validated forms on its objects):
///
/// - the **race check**, on in debug builds (`DEBUG` defined) and, in release builds, with this switch:
///   a call from a thread other than the one running a `perform` / `performAndWait` block on the
///   context's queue at that moment traps;
/// - the **strict check**, Core Data's rule, on with this switch: a call off the context's queue (off the
///   main thread for a main-queue context) and outside its `perform` / `performAndWait` traps.
///
/// `.confinementConcurrencyType` contexts are never checked. A violation traps with Core Data's
/// `+[NSManagedObjectContext __Multithreading_Violation_AllThatIsLeftToUsIsHonor__]` and the entry point.
public enum ConcurrencyDebug {
    private static let strict = Atomic<Bool>(debugSwitch("-com.apple.CoreData.ConcurrencyDebug", environment: "OPENCOREDATA_CONCURRENCY_DEBUG"))

    /// Whether the strict check (and, in release builds, the race check) is on. Set it in code, or see the
    /// type's comment.
    public static var isEnabled: Bool {
        get { strict.load(ordering: .relaxed) }
        set { strict.store(newValue, ordering: .relaxed) }
    }

    /// Whether entry points check their queue at all: always in debug builds, else one load of the switch.
    @inline(__always) static var checksQueues: Bool {
        #if DEBUG
        true
        #else
        isEnabled
        #endif
    }

    /// Core Data's report of a violation, naming the entry point and what was wrong.
    static func violation(_ entry: StaticString, _ reason: String) -> Never {
        fatalError("CoreData`+[NSManagedObjectContext __Multithreading_Violation_AllThatIsLeftToUsIsHonor__]: \(entry) called \(reason)")
    }
}

/// A token for the calling thread (its `pthread_t`); never 0 for a running thread.
@inline(__always) func currentThreadToken() -> UInt {
    #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
    #else
    UInt(pthread_self())
    #endif
}

extension NSManagedObjectContext {
    /// Runs `block` as the context's block in flight: the thread running it is recorded (atomically) for
    /// the race check, and restored afterwards, so nested `performAndWait` blocks keep it.
    @inline(__always) func runningOnQueue<T>(_ block: () throws -> T) rethrows -> T {
        guard concurrencyType != .confinementConcurrencyType else { return try PerformingContext.$current.withValue(self, operation: block) }
        let previous = blockThread.exchange(currentThreadToken(), ordering: .acquiringAndReleasing)
        defer { blockThread.store(previous, ordering: .releasing) }
        return try PerformingContext.$current.withValue(self, operation: block)
    }

    /// The queue check at a public entry point: one load of a static switch in release builds.
    @inline(__always) func checkQueue(_ entry: StaticString) {
        if ConcurrencyDebug.checksQueues { verifyQueue(entry) }
    }

    func verifyQueue(_ entry: StaticString) {
        guard concurrencyType != .confinementConcurrencyType else { return }
        let me = currentThreadToken()
        let running = blockThread.load(ordering: .acquiring)
        if running != 0, running != me {
            ConcurrencyDebug.violation(entry, "off the context's queue (another thread is running a perform block on the context)")
        }
        guard ConcurrencyDebug.isEnabled, running != me, !isOnQueue else { return }
        if concurrencyType == .mainQueueConcurrencyType {
            if !Thread.isMainThread {
                ConcurrencyDebug.violation(entry, "off the main thread, outside the main-queue context's perform or performAndWait (-com.apple.CoreData.ConcurrencyDebug 1)")
            }
        } else {
            ConcurrencyDebug.violation(entry, "off the context's queue, outside its perform or performAndWait (-com.apple.CoreData.ConcurrencyDebug 1)")
        }
    }
}

extension NSManagedObject {
    /// The queue check of the object's context at a value accessor; objects without a context are not checked.
    @inline(__always) func checkQueue(_ entry: StaticString) {
        if ConcurrencyDebug.checksQueues { managedObjectContext?.verifyQueue(entry) }
    }
}
