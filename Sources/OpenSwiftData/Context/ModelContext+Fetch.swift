import Foundation
import OpenCoreData

extension ModelContext {
    /// Mirrors `fetch(_:)`: the models the descriptor describes, the context's unsaved changes included.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        try planned(descriptor) { plan in try models(plan) }
    }

    /// Mirrors `fetchCount(_:)`: how many models `fetch(_:)` would return.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        try planned(descriptor) { plan in
            guard plan.isInMemory else { return try managedObjectContext.count(for: plan.request) }
            return try models(plan).count
        }
    }

    /// Mirrors `fetchIdentifiers(_:)`: the identifiers of the models `fetch(_:)` would return, without
    /// making the models (when the store evaluates the whole descriptor).
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        try planned(descriptor, identifiersOnly: true) { plan in
            guard plan.isInMemory else {
                let source = plan.request
                let request = NSFetchRequest<NSManagedObjectID>(entityName: Schema.entityName(for: T.self))
                request.resultType = .managedObjectIDResultType
                (request.predicate, request.sortDescriptors) = (source.predicate, source.sortDescriptors)
                (request.fetchLimit, request.fetchOffset) = (source.fetchLimit, source.fetchOffset)
                request.includesPendingChanges = source.includesPendingChanges
                return try managedObjectContext.fetch(request).map(PersistentIdentifier.init)
            }
            return try models(plan).map(\.persistentModelID)
        }
    }

    private func models<T: PersistentModel>(_ plan: FetchTranslation<T>) throws -> [T] {
        let objects = try managedObjectContext.fetch(plan.request)
        return try plan.finishInMemory(models(for: objects, as: T.self))
    }

    /// Runs `body` with the descriptor's plan. With custom stores in the container, the fetch carries the
    /// descriptor to them, and a store that prefers the filter or the sort done in memory
    /// (``DataStoreError/preferInMemoryFilter``, ``DataStoreError/preferInMemorySort``) is asked again
    /// without them, which the context then does.
    private func planned<T: PersistentModel, R>(_ descriptor: FetchDescriptor<T>, identifiersOnly: Bool = false,
                                                _ body: (FetchTranslation<T>) throws -> R) throws -> R {
        var inMemory = FetchTranslation<T>.InMemory()
        while true {
            let plan = try FetchTranslation(descriptor, in: self, inMemory: inMemory)
            guard !container.customStoreEntities.isEmpty, container.customStoreEntities.contains(Schema.entityName(for: T.self)) else { return try body(plan) }
            let scope = DescriptorFetch(descriptor: descriptor, identifiersOnly: identifiersOnly && !plan.isInMemory)
            do {
                return try BridgedFetchScope.$current.withValue(scope) { try body(plan) }
            } catch let error as DataStoreError where error == .preferInMemoryFilter && !inMemory.filter {
                inMemory.filter = true
            } catch let error as DataStoreError where error == .preferInMemorySort && !inMemory.sort {
                inMemory.sort = true
            }
        }
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
