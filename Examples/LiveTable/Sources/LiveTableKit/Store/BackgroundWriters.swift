import Foundation
import OpenCoreData
import DemoModels

/// `--writers N`: N background writers that add, edit and delete products through the gate, each one
/// message every `interval` (a demonstration under load), until ``stop()``.
public final class BackgroundWriters: @unchecked Sendable {
    private let gate: WriteGate
    private let lock = NSLock()
    private var stopped = false
    private var running = 0

    /// Writers that submit through `gate`.
    public init(gate: WriteGate) { self.gate = gate }

    /// Starts `count` writers; `target` is the table size they keep near.
    public func start(count: Int, interval: Duration, target: Int, seed: UInt64 = 7) {
        for i in 0..<count {
            lock.withLock { running += 1 }
            Task.detached { [self] in
                var rng = SeededRandom(seed: seed &+ UInt64(i))
                let context = gate.store.container.newBackgroundContext()
                while !isStopped {
                    let message = Self.randomMessage(ids: Self.ids(context), target: target, rng: &rng)
                    _ = await gate.submit(message)
                    try? await Task.sleep(for: interval)
                }
                lock.withLock { running -= 1 }
            }
        }
    }

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

    /// A random add, edit or delete that keeps the table near `target` rows. A rare category ("Новинки")
    /// makes sections appear and disappear.
    public static func randomMessage(ids: [String], target: Int, rng: inout SeededRandom) -> ClientMessage {
        func category() -> String { rng.chance(0.05) ? "Новинки" : rng.pick(LiveStore.categories) }
        func name() -> String { "\(rng.pick(SeedModel.productNames)) \(rng.int(1...999))" }
        let roll = rng.int(0...99)
        let addBelow = ids.count < target ? 30 : 15
        if ids.isEmpty || roll < addBelow {
            return .add(.init(name: name(), price: rng.int(0...999), category: category()), ref: nil)
        }
        let id = rng.pick(ids)
        if roll < addBelow + (ids.count > target ? 30 : 15) { return .delete(id: id, ref: nil) }
        switch rng.int(0...9) {
        case 0...5: return .edit(id: id, .init(price: rng.int(0...999)), ref: nil)
        case 6...7: return .edit(id: id, .init(name: name()), ref: nil)
        default: return .edit(id: id, .init(category: category()), ref: nil)
        }
    }
}
