import Foundation
import OpenCoreData

/// Mirrors SwiftData's `FetchResultsCollection`: the result of a batched fetch (``ModelContext/fetch(_:batchSize:)``),
/// a random-access collection whose elements are read from the store a batch at a time, as they are reached.
/// The identifiers are fetched at once; a batch's models are read together the first time one of them is
/// used. Like SwiftData's, it belongs to its context's actor.
public struct FetchResultsCollection<Element>: RandomAccessCollection {
    private let identifiers: [PersistentIdentifier]
    private let load: (ArraySlice<PersistentIdentifier>) -> [Element]
    private let batchSize: Int
    private let batches: BatchCache<Element>

    init(identifiers: [PersistentIdentifier], batchSize: Int, load: @escaping (ArraySlice<PersistentIdentifier>) -> [Element]) {
        (self.identifiers, self.batchSize, self.load) = (identifiers, Swift.max(batchSize, 1), load)
        batches = BatchCache()
    }

    /// The first position (`Collection`).
    public var startIndex: Int { 0 }
    /// One past the last position (`Collection`).
    public var endIndex: Int { identifiers.count }

    /// The element at `position`, reading its batch when no element of it was read yet.
    public subscript(position: Int) -> Element {
        let batch = position / batchSize
        if let models = batches.models[batch] { return models[position % batchSize] }
        let start = batch * batchSize
        let models = load(identifiers[start..<Swift.min(start + batchSize, identifiers.count)])
        batches.models[batch] = models
        return models[position % batchSize]
    }
}

/// The batches a collection has read (a class, so that reading through a `let` collection keeps them).
final class BatchCache<Element> {
    var models: [Int: [Element]] = [:]
}

extension ModelContext {
    /// Mirrors `fetch(_:batchSize:)`: the models `fetch(_:)` returns, read `batchSize` at a time as the
    /// collection is used. Throws `SwiftDataError.includePendingChangesWithBatchSize` when the descriptor
    /// includes pending changes and the context has some (their models have no stored row to batch).
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> FetchResultsCollection<T> {
        try checkBatching(descriptor)
        let identifiers = try fetchIdentifiers(descriptor)
        return FetchResultsCollection(identifiers: identifiers, batchSize: batchSize) { [self] batch in
            readBatch(Array(batch), as: T.self)
        }
    }

    /// Mirrors `fetchIdentifiers(_:batchSize:)`: the identifiers `fetchIdentifiers(_:)` returns, as a
    /// collection.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> FetchResultsCollection<PersistentIdentifier> {
        try checkBatching(descriptor)
        return FetchResultsCollection(identifiers: try fetchIdentifiers(descriptor), batchSize: batchSize) { Array($0) }
    }

    private func checkBatching<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws {
        if descriptor.includePendingChanges, hasChanges {
            throw SwiftDataError(.includePendingChangesWithBatchSize, "a batched fetch of \(T.self) cannot include the context's unsaved changes: save first, or set includePendingChanges to false")
        }
    }

    /// The models of `identifiers`, their rows read in one fetch.
    private func readBatch<T: PersistentModel>(_ identifiers: [PersistentIdentifier], as: T.Type) -> [T] {
        let objectIDs = identifiers.compactMap { objectID(of: $0) }
        let request = NSFetchRequest<NSManagedObject>(entityName: Schema.entityName(for: T.self))
        request.predicate = NSPredicate(format: "self IN %@", objectIDs)
        request.returnsObjectsAsFaults = false
        do { _ = try managedObjectContext.fetch(request) } catch {
            fatalError("A batch of \(T.self) could not be read from the store: \(error)")
        }
        return objectIDs.map { model(for: managedObjectContext.object(with: $0)) as! T }
    }
}
