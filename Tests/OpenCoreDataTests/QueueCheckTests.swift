import Dispatch
import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// The queue checks at a context's entry points (docs/Concurrency.md, "Queue checks"): the race check
/// (on in debug builds) and Core Data's strict rule (`-com.apple.CoreData.ConcurrencyDebug 1`). A
/// violation traps, so the checks that must trap run in a child process (Swift Testing exit tests); the
/// strict switch is process-wide, so it is only ever turned on in a child.
@Suite("Queue checks")
struct QueueCheckTests {
    static let violation = "CoreData`+[NSManagedObjectContext __Multithreading_Violation_AllThatIsLeftToUsIsHonor__]"

    /// A context of `type` on an in-memory store holding 3 products.
    static func context(_ type: NSManagedObjectContextConcurrencyType = .privateQueueConcurrencyType) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeProductsModel())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let context = NSManagedObjectContext(concurrencyType: type)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            insertProducts(context, count: 3)
            try context.save()
        }
        return context
    }

    static func request() -> NSFetchRequest<Products> { NSFetchRequest<Products>(entityName: "Products") }

    /// Starts a `perform` block on `context` and returns once it runs; it runs until `release` is signalled.
    static func holdQueue(_ context: NSManagedObjectContext, until release: DispatchSemaphore) {
        let started = DispatchSemaphore(value: 0)
        context.perform {
            started.signal()
            release.wait()
        }
        started.wait()
    }

    /// Runs `body` on a new thread (never the main thread) and waits for it.
    static func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        done.wait()
    }

    static func stderr(_ result: ExitTest.Result?) -> String {
        String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    }

    // MARK: - Race check (debug builds)

    @Test func fetchWhileAPerformBlockRunsOnAnotherThreadTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try Self.context()
            Self.holdQueue(context, until: DispatchSemaphore(value: 0))
            _ = try context.fetch(Self.request())
        }
        let message = Self.stderr(result)
        #expect(message.contains(Self.violation))
        #expect(message.contains("fetch(_:) called off the context's queue"))
    }

    @Test func valueAccessWhileAPerformBlockRunsOnAnotherThreadTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try Self.context()
            let product = try context.performAndWait { try context.fetch(Self.request())[0] }
            Self.holdQueue(context, until: DispatchSemaphore(value: 0))
            product.setValue("x", forKey: "name")
        }
        let message = Self.stderr(result)
        #expect(message.contains(Self.violation))
        #expect(message.contains("setValue(_:forKey:) called"))
    }

    @Test func saveWhileAPerformBlockRunsOnAnotherThreadTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try Self.context()
            Self.holdQueue(context, until: DispatchSemaphore(value: 0))
            try context.save()
        }
        #expect(Self.stderr(result).contains("save() called off the context's queue"))
    }

    /// Serialized use off the queue (as many tests do) is not a race: the race check lets it through.
    @Test func serializedOffQueueUseDoesNotTrap() throws {
        let context = try Self.context()
        let products = try context.fetch(Self.request())
        products[0].setValue("renamed", forKey: "name")
        #expect(products[0].value(forKey: "name") as? String == "renamed")
        context.performAndWait { _ = products[1].value(forKey: "name") }
        try context.save()
        #expect(try context.count(for: Self.request()) == 3)
        // Objects without a context are not checked.
        let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Products"])
        let loose = Products(entity: entity, insertInto: nil)
        loose.setValue("loose", forKey: "name")
        #expect(loose.value(forKey: "name") as? String == "loose")
    }

    /// Inside a perform block, nested performAndWait blocks and the async perform see their own thread.
    @Test func useInsidePerformDoesNotTrap() async throws {
        let context = try Self.context()
        let count = try context.performAndWait {
            try context.performAndWait {
                let product = try context.fetch(Self.request())[0]
                product.setValue("nested", forKey: "name")
                return try context.count(for: Self.request())
            }
        }
        #expect(count == 3)
        let name = try await context.perform {
            try context.performAndWait { try context.fetch(Self.request()) }.first?.value(forKey: "name") as? String
        }
        #expect(name != nil)
        Self.saveInPerform(context)
    }

    /// A save in a nested performAndWait inside a (non-async) perform block.
    static func saveInPerform(_ context: NSManagedObjectContext) {
        let done = DispatchSemaphore(value: 0)
        context.perform {
            context.performAndWait { _ = try? context.save() }
            done.signal()
        }
        done.wait()
    }

    // MARK: - Strict check (Core Data's rule, -com.apple.CoreData.ConcurrencyDebug 1)

    @Test func strictCheckCatchesAPlainOffQueueFetch() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            ConcurrencyDebug.isEnabled = true
            let context = try Self.context()
            _ = try context.fetch(Self.request())
        }
        let message = Self.stderr(result)
        #expect(message.contains(Self.violation))
        #expect(message.contains("fetch(_:) called off the context's queue, outside its perform or performAndWait"))
    }

    @Test func strictCheckCatchesAMainQueueContextOffTheMainThread() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            ConcurrencyDebug.isEnabled = true
            let context = try Self.context(.mainQueueConcurrencyType)
            let id = context.registeredObjects.first!.objectID
            Self.onAnotherThread { _ = context.object(with: id) }
        }
        #expect(Self.stderr(result).contains("object(with:) called off the main thread"))
    }

    @Test func strictCheckCatchesValueAccessOffQueue() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            ConcurrencyDebug.isEnabled = true
            let context = try Self.context()
            let product = try context.performAndWait { try context.fetch(Self.request())[0] }
            _ = product.value(forKey: "name")
        }
        #expect(Self.stderr(result).contains("value(forKey:) called off the context's queue"))
    }

    @Test func strictCheckAllowsCorrectUse() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            ConcurrencyDebug.isEnabled = true
            let context = try Self.context()
            try context.performAndWait {
                let products = try context.performAndWait { try context.fetch(Self.request()) }
                products[0].setValue("inside", forKey: "name")
                _ = try products[1].validatedValue(forKey: "name")
                context.delete(products[2])
                try context.save()
            }
            let name = try await context.perform {
                try context.fetch(Self.request()).first?.value(forKey: "name") as? String
            }
            precondition(name != nil)
            // A main-queue context in its own perform block (the main queue) and nested performAndWait.
            let view = try Self.context(.mainQueueConcurrencyType)
            Self.saveInPerform(view)
            // Confinement contexts are never checked.
            let confined = try Self.context(.confinementConcurrencyType)
            _ = try confined.count(for: Self.request())
        }
        #expect(!Self.stderr(result).contains(Self.violation))
    }
}
