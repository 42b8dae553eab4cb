import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// `NSAsynchronousFetchRequest` through `execute(_:)`, `NSFetchRequest.execute()`, and what
/// `execute(_:)` refuses.
@Suite("Asynchronous fetch")
struct AsynchronousFetchTests {
    /// What a completion block saw, handed back across queues.
    struct Outcome: Sendable {
        var count: Int?
        var onQueue = false
        var sameContext = false
        var errorCode: Int?
        var total: Int64 = 0
        var completed: Int64 = 0
        var returnedFirst = false
    }

    final class Flag: @unchecked Sendable { var value = false }

    /// Runs an asynchronous fetch of Products in `context` (on its queue) and waits for its completion.
    static func run(_ context: NSManagedObjectContext, predicate: NSPredicate? = nil, estimated: Int = 0,
                    cancel: ((NSAsynchronousFetchResult<Products>) -> Void)? = nil,
                    check: (@Sendable (NSAsynchronousFetchResult<Products>) -> Void)? = nil) async -> Outcome {
        nonisolated(unsafe) let cancel = cancel
        return await withCheckedContinuation { continuation in
            context.perform {
                let returned = Flag()
                let fetch = NSFetchRequest<Products>(entityName: "Products")
                fetch.predicate = predicate
                let request = NSAsynchronousFetchRequest(fetchRequest: fetch) { result in
                    var outcome = Outcome()
                    outcome.count = result.finalResult?.count
                    outcome.onQueue = context.isOnQueue || (context.concurrencyType == .mainQueueConcurrencyType && Thread.isMainThread)
                    outcome.sameContext = result.managedObjectContext === context
                        && (result.finalResult ?? []).allSatisfy { $0.managedObjectContext === context }
                    outcome.errorCode = (result.operationError as NSError?)?.code
                    outcome.total = result.progress?.totalUnitCount ?? -1
                    outcome.completed = result.progress?.completedUnitCount ?? -1
                    outcome.returnedFirst = returned.value
                    continuation.resume(returning: outcome)
                }
                request.estimatedResultCount = estimated
                let result = try! context.execute(request) as! NSAsynchronousFetchResult<Products>
                returned.value = true
                check?(result)
                cancel?(result)
            }
        }
    }

    static func container(_ store: TemporaryStore, products: Int) throws -> NSPersistentContainer {
        let container = try store.container()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            insertProducts(context, count: products)
            try context.save()
        }
        return container
    }

    @Test func aPrivateQueueContextGetsItsObjectsOnItsQueue() async throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try Self.container(store, products: 40)
        let outcome = await Self.run(container.newBackgroundContext())
        #expect(outcome.count == 40)
        #expect(outcome.onQueue && outcome.sameContext && outcome.returnedFirst)
        #expect(outcome.errorCode == nil)
        #expect(outcome.total == 40 && outcome.completed == 40)
    }

    @Test(.timeLimit(.minutes(1))) func aMainQueueContextGetsItsObjectsOnTheMainQueue() async throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try Self.container(store, products: 12)
        let outcome = await Self.run(container.viewContext, predicate: NSPredicate(format: "price < %d", 1000))
        #expect(outcome.count == 12 && outcome.onQueue && outcome.sameContext && outcome.returnedFirst)
    }

    @Test func cancellingEndsWithoutResults() async throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try Self.container(store, products: 10)
        let cancelled = await Self.run(container.newBackgroundContext(), cancel: { $0.cancel() })
        #expect(cancelled.count == nil && cancelled.errorCode == CocoaError.userCancelled.rawValue)
        let byProgress = await Self.run(container.newBackgroundContext(), cancel: { $0.progress?.cancel() })
        #expect(byProgress.count == nil && byProgress.errorCode == CocoaError.userCancelled.rawValue)
    }

    @Test func aFailingFetchReportsItsError() async throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try Self.container(store, products: 3)
        let outcome = await Self.run(container.newBackgroundContext(), predicate: NSPredicate(format: "noSuchKey == 1"))
        #expect(outcome.count == nil && outcome.errorCode == NSCoreDataError && outcome.onQueue)
    }

    @Test func theEstimatedCountIsTheProgressTotalUntilTheStoreAnswers() async throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try Self.container(store, products: 7)
        let outcome = await Self.run(container.newBackgroundContext(), estimated: 100) { result in
            #expect(result.progress?.totalUnitCount == 100)
            #expect(result.finalResult == nil && result.operationError == nil)
            #expect(result.fetchRequest.estimatedResultCount == 100)
        }
        #expect(outcome.count == 7 && outcome.total == 7 && outcome.completed == 7)
    }

    @Test func executeRunsAFetchRequestAndRefusesOthers() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try Self.container(store, products: 5)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let request = NSFetchRequest<Products>(entityName: "Products")
            let result = try #require(try context.execute(request) as? NSAsynchronousFetchResult<Products>)
            #expect(result.finalResult?.count == 5 && result.fetchRequest.fetchRequest === request)
            #expect(try request.execute().count == 5)
            let save = NSSaveChangesRequest(insertedObjects: nil, updatedObjects: nil, deletedObjects: nil, lockedObjects: nil)
            #expect { try context.execute(save) } throws: { ($0 as NSError).code == NSPersistentStoreUnsupportedRequestTypeError }
            #expect { try context.execute(NSPersistentStoreRequest()) } throws: {
                ($0 as NSError).code == NSPersistentStoreUnsupportedRequestTypeError && "\($0)".contains("NSPersistentStoreRequest")
            }
        }
        // Outside any perform block there is no context to execute in.
        #expect { try NSFetchRequest<Products>(entityName: "Products").execute() } throws: { ($0 as NSError).code == NSCoreDataError }
    }
}
