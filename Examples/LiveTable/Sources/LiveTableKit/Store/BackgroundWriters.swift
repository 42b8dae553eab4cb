import Foundation
import OpenCoreData
import DemoModels

/// `--writers N`: N background writers that add, edit and delete products through the gate, each one
/// message every `interval`, until ``stop()``. Each writer edits and deletes only the rows it added itself,
/// so that a person's rows are theirs; a page can pause and resume them all (``setPaused(_:)``).
public final class BackgroundWriters: @unchecked Sendable {
    private let gate: WriteGate
    private let lock = NSLock()
    private var stopped = false, paused = false
    private var running = 0, started = 0

    /// Writers that submit through `gate`.
    public init(gate: WriteGate) { self.gate = gate }

    /// Starts `count` writers; `target` is the table size: together they keep about half as many rows of
    /// their own.
    public func start(count: Int, interval: Duration, target: Int, seed: UInt64 = 7) {
        let own = max(2, target / max(2 * count, 1))
        lock.withLock { started += count }
        for i in 0..<count {
            lock.withLock { running += 1 }
            Task.detached { [self] in
                var rng = SeededRandom(seed: seed &+ UInt64(i))
                let context = gate.store.container.newBackgroundContext()
                let owner = "writer \(i + 1)"
                while !isStopped {
                    if isPaused {
                        try? await Task.sleep(for: .milliseconds(50))
                        continue
                    }
                    let mine = gate.ownedIDs(owner)
                    let message = Self.randomMessage(ids: Self.ids(context).filter(mine.contains), target: own, rng: &rng)
                    _ = await gate.submit(message, owner: owner)
                    try? await Task.sleep(for: interval)
                }
                lock.withLock { running -= 1 }
            }
        }
    }

    /// How many writers were started.
    public var count: Int { lock.withLock { started } }

    /// Whether writers were started and are neither paused nor stopped.
    public var isRunning: Bool { lock.withLock { started > 0 && !paused && !stopped } }

    /// Pauses the writers (each finishes the message it is sending) or lets them go on.
    public func setPaused(_ pause: Bool) { lock.withLock { paused = pause } }

    private var isPaused: Bool { lock.withLock { paused } }

    /// Stops the writers and waits until none is running; returns the last commit.
    public func stop() async -> Int {
        lock.withLock { stopped = true }
        while lock.withLock({ running }) > 0 { try? await Task.sleep(for: .milliseconds(5)) }
        return gate.commit
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private static func ids(_ context: NSManagedObjectContext) -> [String] {
        context.performAndWait {
            let request = NSFetchRequest<NSManagedObjectID>(entityName: "Products")
            request.resultType = .managedObjectIDResultType
            return ((try? context.fetch(request)) ?? []).map { $0.uriRepresentation().absoluteString }
        }
    }

    /// A random add, edit or delete among `ids` that keeps them near `target` rows: a product of the catalog
    /// in its category, renamed within it; a rare category ("Новинки", new arrivals of any kind) makes
    /// sections appear and disappear.
    public static func randomMessage(ids: [String], target: Int, rng: inout SeededRandom) -> ClientMessage {
        let roll = rng.int(0...99)
        let addBelow = ids.count < target ? 30 : 15
        if ids.isEmpty || roll < addBelow {
            let (name, category) = LiveStore.product(&rng)
            return .add(.init(name: name, price: rng.int(0...999), category: rng.chance(0.05) ? "Новинки" : category), ref: nil)
        }
        let id = rng.pick(ids)
        if roll < addBelow + (ids.count > target ? 30 : 15) { return .delete(id: id, ref: nil) }
        switch rng.int(0...9) {
        case 0...7: return .edit(id: id, .init(price: rng.int(0...999)), ref: nil)
        default:
            let (name, category) = LiveStore.product(&rng)
            return .edit(id: id, .init(name: name, category: category), ref: nil)
        }
    }
}
