import Foundation
import OpenCoreData

extension ModelContext {
    /// Mirrors `fetch(_:)`: the models the descriptor describes, the context's unsaved changes included.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let plan = try FetchTranslation(descriptor, in: self)
        let objects = try managedObjectContext.fetch(plan.request)
        let models = objects.map { model(for: $0) as! T }
        return try plan.finishInMemory(models)
    }

    /// Mirrors `fetchCount(_:)`: how many models `fetch(_:)` would return.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        let plan = try FetchTranslation(descriptor, in: self)
        guard plan.isInMemory else { return try managedObjectContext.count(for: plan.request) }
        return try fetch(descriptor).count
    }

    /// Mirrors `fetchIdentifiers(_:)`: the identifiers of the models `fetch(_:)` would return, without
    /// making the models (when the store evaluates the whole descriptor).
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        let plan = try FetchTranslation(descriptor, in: self)
        guard plan.isInMemory else {
            let source = plan.request
            let request = NSFetchRequest<NSManagedObjectID>(entityName: Schema.entityName(for: T.self))
            request.resultType = .managedObjectIDResultType
            (request.predicate, request.sortDescriptors) = (source.predicate, source.sortDescriptors)
            (request.fetchLimit, request.fetchOffset) = (source.fetchLimit, source.fetchOffset)
            request.includesPendingChanges = source.includesPendingChanges
            return try managedObjectContext.fetch(request).map(PersistentIdentifier.init)
        }
        return try fetch(descriptor).map(\.persistentModelID)
    }

    /// Mirrors `enumerate(_:batchSize:allowEscapingMutations:block:)`: calls `block` with each model the
    /// descriptor returns, reading `batchSize` at a time (and, unless `allowEscapingMutations`, refusing a
    /// block that leaves unsaved changes behind, as SwiftData does).
    public func enumerate<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int = 5000,
                                              allowEscapingMutations: Bool = false, block: (T) throws -> Void) throws {
        let identifiers = try fetchIdentifiers(descriptor)
        let hadChanges = hasChanges
        var start = 0
        while start < identifiers.count {
            let batch = identifiers[start..<min(start + max(batchSize, 1), identifiers.count)]
            for identifier in batch { try block(model(for: identifier) as! T) }
            if !allowEscapingMutations, !hadChanges, hasChanges {
                throw SwiftDataError(.invalidTransactionFetchRequest, "enumerate's block left unsaved changes (pass allowEscapingMutations: true to keep them)")
            }
            start += batch.count
        }
    }
}
