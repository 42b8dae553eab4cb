import Foundation

/// What batch requests share: finding their entity, checking values.
enum BatchRequests {
    /// The model's entity of a request: the one given (when it is the model's), else the one named.
    static func entity(_ given: NSEntityDescription?, named name: String, in model: NSManagedObjectModel) throws -> NSEntityDescription {
        if let given, given.layout != nil, given.managedObjectModel === model { return given }
        let wanted = given?.name ?? name
        guard !wanted.isEmpty, let entity = model.entitiesByName[wanted] else {
            throw CoreDataError(NSPersistentStoreOperationError,
                                wanted.isEmpty ? "The batch request names no entity." : "The batch request's entity \(wanted) is not in the coordinator's model.")
        }
        return entity
    }

    /// A value given for an attribute, in the attribute's own representation; an error naming the entity
    /// and key when it is of the wrong type.
    static func attributeValue(_ any: Any?, _ attribute: NSAttributeDescription, _ type: NSAttributeType? = nil, entityName: String) throws -> Value {
        let type = type ?? attribute.attributeType
        if type == .transformableAttributeType { return TransformableValue.slotValue(any) }
        let value = Value(any: any)
        if type.holdsOwnRepresentation(value) { return value }
        guard let coerced = type.coerce(value), !value.isNaN else {
            throw CoreDataError(NSManagedObjectValidationError,
                                "\(entityName).\(attribute.name) must be a \(type.name), not \(PredicatePrinter.format(ExpressionNode.constant(value))).",
                                userInfo: [NSValidationKeyErrorKey: attribute.name])
        }
        return coerced
    }

    /// The attribute an update or insert names by a key (a name or a property description).
    static func attribute(_ key: AnyHashable, of entity: NSEntityDescription) throws -> (slot: Int, attribute: NSAttributeDescription) {
        let name = (key.base as? String) ?? (key.base as? NSPropertyDescription)?.name ?? "\(key.base)"
        let entityName = entity.name ?? "?"
        guard let slot = entity.layout!.slotByName[name] else {
            throw CoreDataError(NSManagedObjectValidationError, "\(entityName) has no property \(name).", userInfo: [NSValidationKeyErrorKey: name])
        }
        guard let attribute = entity.layout!.attribute(slot), entity.layout!.columns[slot] != nil, !attribute.isTransient,
              attribute.attributeType != .compositeAttributeType else {
            throw CoreDataError(NSManagedObjectValidationError,
                                "\(entityName).\(name) is not a stored attribute: batch requests set stored attributes only (not relationships, transient or composite attributes).",
                                userInfo: [NSValidationKeyErrorKey: name])
        }
        return (slot, attribute)
    }
}

/// Batch requests, as `execute(_:)` and `execute(_:with:)` run them.
protocol BatchRequest: AnyObject {
    func run(on coordinator: NSPersistentStoreCoordinator, origin: HistoryOrigin) throws -> NSPersistentStoreResult
}

extension NSBatchUpdateRequest: ExecutableRequest, BatchRequest {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        try run(on: BatchRequests.coordinator(of: context), origin: context.historyOrigin)
    }
}

extension NSBatchDeleteRequest: ExecutableRequest, BatchRequest {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        try run(on: BatchRequests.coordinator(of: context), origin: context.historyOrigin)
    }
}

extension NSBatchInsertRequest: ExecutableRequest, BatchRequest {
    func execute(in context: NSManagedObjectContext) throws -> NSPersistentStoreResult {
        try run(on: BatchRequests.coordinator(of: context), origin: context.historyOrigin)
    }
}

extension NSManagedObjectContext {
    /// Who this context's writes are by, for persistent history.
    var historyOrigin: HistoryOrigin { HistoryOrigin(author: transactionAuthor, contextName: name) }
}

extension BatchRequests {
    static func coordinator(of context: NSManagedObjectContext) throws -> NSPersistentStoreCoordinator {
        guard let coordinator = context.persistentStoreCoordinator else {
            throw CoreDataError(NSPersistentStoreOperationError, "The context has no persistent store coordinator to run the batch request on.")
        }
        return coordinator
    }
}
