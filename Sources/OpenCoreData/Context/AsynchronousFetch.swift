import Foundation

/// What the background step of an asynchronous fetch read from the store, handed to the fetch on the
/// context's queue (``FetchPlan/preloaded``).
final class PreloadedRows: @unchecked Sendable {
    enum Content {
        case rows([StoreRow], withValues: Bool)
        case keys(pks: [Int64], entityRuns: [EntityRun])
        case dictionaries([NSDictionary])
        case count(Int)
    }
    let content: Content
    init(_ content: Content) { self.content = content }

    /// The rows, if they were read with values or none are wanted.
    func rows(withValues: Bool) -> [StoreRow]? {
        guard case .rows(let rows, let read) = content, read || !withValues else { return nil }
        return rows
    }

    var keys: (pks: [Int64], entityRuns: [EntityRun])? {
        guard case .keys(let pks, let runs) = content else { return nil }
        return (pks, runs)
    }

    var count: Int {
        switch content {
        case .rows(let rows, _): rows.count
        case .keys(let pks, _): pks.count
        case .dictionaries(let d): d.count
        case .count: 1
        }
    }
}

/// One run of an `NSAsynchronousFetchRequest`: the store is read on a global queue (a reader connection
/// of the store, or the context's query generation), then the results are made in the context on its
/// queue and the completion block called there.
final class AsynchronousFetch<ResultType>: @unchecked Sendable {
    private let result: NSAsynchronousFetchResult<ResultType>
    private let context: NSManagedObjectContext
    private let request: NSFetchRequest<ResultType>
    private var reader: (() throws -> PreloadedRows?)?
    private var read: Result<PreloadedRows?, any Error> = .success(nil)

    init(_ result: NSAsynchronousFetchResult<ResultType>, context: NSManagedObjectContext) {
        self.result = result
        self.context = context
        self.request = result.fetchRequest.fetchRequest
    }

    /// Called on the context's queue (inside `execute(_:)`): prepares the store read, runs it in the
    /// background, then delivers on the context's queue.
    func start() {
        do { reader = try context.storeReader(for: request) } catch {
            read = .failure(error)
            context.perform { self.deliver() }
            return
        }
        DispatchQueue.global().async {
            if let reader = self.reader, !self.result.isCancelled { self.read = Result { try reader() } }
            self.context.perform { self.deliver() }
        }
    }

    /// On the context's queue: the results made from what was read, or the error, or the cancellation;
    /// then the completion block.
    private func deliver() {
        defer { result.fetchRequest.completionBlock?(result) }
        guard !result.isCancelled else {
            result.fail(CocoaError(.userCancelled))
            return
        }
        do {
            let results: [ResultType] = try context.fetch(request, preloaded: try read.get())
            if let progress = result.progress {
                progress.totalUnitCount = Int64(results.count)
                progress.completedUnitCount = Int64(results.count)
            }
            result.finish(with: results)
        } catch {
            result.fail(error)
        }
    }
}
