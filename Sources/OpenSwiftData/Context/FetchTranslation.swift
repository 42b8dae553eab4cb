import Foundation
import OpenCoreData

/// A fetch descriptor as a Core Data fetch request, and what of it is left to do in memory: a predicate
/// that does not convert to Core Data's (a computed property, a method without a predicate operator) is
/// evaluated on the models, a sort by a key path the store does not know sorts the models; the offset
/// and limit then apply to the result.
struct FetchTranslation<T: PersistentModel> {
    let request: NSFetchRequest<NSManagedObject>
    private let memoryPredicate: Predicate<T>?
    private let memorySort: [SortDescriptor<T>]?
    private let offset: Int
    private let limit: Int?

    var isInMemory: Bool { memoryPredicate != nil || memorySort != nil }

    /// What a custom store asked to be done in memory (``DataStoreError/preferInMemoryFilter``, ``DataStoreError/preferInMemorySort``).
    struct InMemory: Equatable {
        var filter = false
        var sort = false
    }

    init(_ descriptor: FetchDescriptor<T>, in context: ModelContext, inMemory: InMemory = InMemory()) throws {
        let name = Schema.entityName(for: T.self)
        guard context.container.entitiesByName[name] != nil else {
            throw SwiftDataError(.unknownSchema, "\(T.self) is not in the container's schema (\(context.container.schema.entities.map(\.name).joined(separator: ", ")))")
        }
        request = NSFetchRequest<NSManagedObject>(entityName: name)
        request.includesPendingChanges = descriptor.includePendingChanges
        var memoryPredicate: Predicate<T>?
        if let predicate = descriptor.predicate, inMemory.filter {
            memoryPredicate = predicate
        } else if let predicate = descriptor.predicate {
            do {
                request.predicate = try NSPredicate.converting(predicate, keys: ModelKeys.key, constants: { Self.storedConstant($0, context) })
            } catch {
                ModelContext.logger.debug("FetchDescriptor<\(T.self)>: the predicate runs in memory: \(error)")
                memoryPredicate = predicate
            }
        }
        let sorts = descriptor.sortBy.map { sort in
            sort.keyPath.flatMap { try? ModelKeys.key($0) }.map { NSSortDescriptor(key: $0, ascending: sort.order == .forward) }
        }
        memorySort = inMemory.sort || sorts.contains { $0 == nil } ? descriptor.sortBy : nil
        if memorySort == nil { request.sortDescriptors = sorts.compactMap { $0 } }
        (self.memoryPredicate, offset, limit) = (memoryPredicate, descriptor.fetchOffset ?? 0, descriptor.fetchLimit)
        if !isInMemory {
            request.fetchOffset = offset
            request.fetchLimit = limit ?? 0
        }
        request.relationshipKeyPathsForPrefetching = descriptor.relationshipKeyPathsForPrefetching.compactMap { try? ModelKeys.key($0) }
    }

    /// The models of the request, filtered, sorted and cut as the descriptor says when the store could not.
    func finishInMemory(_ models: [T]) throws -> [T] {
        guard isInMemory else { return models }
        var result = models
        if let memoryPredicate { result = try result.filter { try memoryPredicate.evaluate($0) } }
        if let memorySort { result.sort(using: memorySort) }
        let end = limit.map { min(offset + $0, result.count) } ?? result.count
        return offset < end ? Array(result[offset..<end]) : []
    }

    /// A captured value as the store compares it: a model as its managed object, an identifier as its
    /// object ID, an enum as its raw value.
    private static func storedConstant(_ value: Any, _ context: ModelContext) -> Any {
        func object<M: PersistentModel>(_ model: M) -> Any { model.storage.object ?? NSNull() }
        if let model = value as? any PersistentModel { return object(model) }
        if let identifier = value as? PersistentIdentifier { return context.objectID(of: identifier) ?? NSNull() }
        if let array = value as? any ModelArray { return array.models.map { storedConstant($0, context) } }
        if let values = value as? [Any] { return values.map { storedConstant($0, context) } }
        if let representable = value as? any RawRepresentable, ValueKinds.rawValueType(type(of: value)) != nil { return representable.rawValue }
        return value
    }
}
