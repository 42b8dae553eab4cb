import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Issue #35, item 3: the async context API as Apple declares it — `perform(schedule:_:)` and
/// `performBackgroundTask(_:)` rethrow and take non-`Sendable` blocks and results.
@Suite struct AsyncContextTests {
    /// Not `Sendable`: a value that belongs to the queue that made it.
    final class Summary {
        var names: [String] = []
    }

    struct Refused: Error {}

    @Test func aBlockThatDoesNotThrowNeedsNoTryAndItsResultNeedNotBeSendable() async throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        let saved: Int = try await container.performBackgroundTask { context in
            SeedModel.insertProducts(context, count: 5, seed: 3)
            try context.save()
            return 5
        }
        #expect(saved == 5)
        // No `try`: the block does not throw.
        let summary: Summary = await container.performBackgroundTask { context in
            let summary = Summary()
            let request = NSFetchRequest<Products>(entityName: "Products")
            request.sortDescriptors = [NSSortDescriptor(keyPath: \Products.name, ascending: true)]
            summary.names = ((try? context.fetch(request)) ?? []).compactMap(\.name)
            return summary
        }
        #expect(summary.names.count == 5 && summary.names == summary.names.sorted())
        let context = container.newBackgroundContext()
        let count: Int = await context.perform(schedule: .enqueued) {
            (try? context.count(for: NSFetchRequest<Products>(entityName: "Products"))) ?? -1
        }
        #expect(count == 5)
    }

    @Test func anErrorThrownInTheBlockIsTheCallsOwn() async {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        guard let container = try? store.container() else { Issue.record("no container"); return }
        await #expect(throws: Refused.self) {
            try await container.performBackgroundTask { (_: NSManagedObjectContext) throws(Refused) -> Int in throw Refused() }
        }
        let context = container.newBackgroundContext()
        await #expect(throws: Refused.self) {
            try await context.perform { () throws(Refused) in throw Refused() }
        }
    }
}
