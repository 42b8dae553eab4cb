import Foundation

/// Mirrors `NSBatchUpdateRequestResultType`: what executing an ``NSBatchUpdateRequest`` returns.
public enum NSBatchUpdateRequestResultType: UInt, Sendable {
    /// Mirrors `statusOnlyResultType`: the result is `true` (an `NSNumber`).
    case statusOnlyResultType = 0
    /// Mirrors `updatedObjectIDsResultType`: the result is the updated objects' IDs, `[NSManagedObjectID]`.
    case updatedObjectIDsResultType = 1
    /// Mirrors `updatedObjectsCountResultType`: the result is how many objects were updated (an `NSNumber`).
    case updatedObjectsCountResultType = 2
}

/// Mirrors `NSBatchUpdateRequest`: sets attributes of every object of an entity matching a predicate in
/// the SQLite store, in one transaction, without loading objects. Run it with a context's
/// `execute(_:)` or a coordinator's `execute(_:with:)`.
///
/// As in Core Data, contexts are bypassed: objects they hold keep the values they had until they merge
/// the change (``NSManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)`` with the IDs the
/// request returns under `NSUpdatedObjectsKey`), and no validation rules run. Each updated row's version
/// is raised, so a context that saves an object it read before the update meets a merge conflict that
/// its merge policy settles. Unlike Core Data, whose row cache may keep serving the old values to faults
/// fired before such a merge, the coordinator forgets the updated rows, so a fault reads the new values.
/// `propertiesToUpdate` takes attributes only (by name or description); a relationship is an error.
open class NSBatchUpdateRequest: NSPersistentStoreRequest, @unchecked Sendable {
    private var givenEntity: NSEntityDescription?

    /// Mirrors `entityName`.
    open private(set) var entityName: String

    /// Mirrors `entity`. For a request made with ``init(entityName:)``, the model's entity once the
    /// request ran; before, an entity description carrying the name only.
    open var entity: NSEntityDescription {
        if let givenEntity { return givenEntity }
        let placeholder = NSEntityDescription()
        placeholder.name = entityName
        return placeholder
    }

    /// Mirrors `predicate`: the objects to update (`nil`: every object of the entity).
    open var predicate: NSPredicate?
    /// Mirrors `includesSubentities` (default true): whether objects of subentities are updated too.
    open var includesSubentities = true
    /// Mirrors `resultType` (default ``NSBatchUpdateRequestResultType/statusOnlyResultType``).
    open var resultType: NSBatchUpdateRequestResultType = .statusOnlyResultType
    /// Mirrors `propertiesToUpdate`: attribute names (or `NSAttributeDescription`s) and their new
    /// values, each a constant or an `NSExpression` computed for each row (`price * 2`,
    /// `NSExpression(forKeyPath: "name")`, to-one key paths included).
    open var propertiesToUpdate: [AnyHashable: Any]?

    /// Mirrors `requestType`: `.batchUpdateRequestType`.
    open override var requestType: NSPersistentStoreRequestType { .batchUpdateRequestType }

    /// Mirrors `init(entityName:)`.
    public init(entityName: String) {
        self.entityName = entityName
        super.init()
    }

    /// Mirrors `init(entity:)`.
    public init(entity: NSEntityDescription) {
        self.entityName = entity.name ?? ""
        self.givenEntity = entity
        super.init()
    }

    /// The model's entity this request updates, looked up by name in `model` when it was given by name.
    func resolvedEntity(in model: NSManagedObjectModel) throws -> NSEntityDescription {
        let entity = try BatchRequests.entity(givenEntity, named: entityName, in: model)
        givenEntity = entity
        return entity
    }
}

/// Mirrors `NSBatchUpdateResult`: what executing an ``NSBatchUpdateRequest`` returned.
open class NSBatchUpdateResult: NSPersistentStoreResult, @unchecked Sendable {
    /// Mirrors `result`: `true`, the updated objects' IDs, or their count (see ``resultType``).
    open private(set) var result: Any?
    /// Mirrors `resultType`.
    open private(set) var resultType: NSBatchUpdateRequestResultType

    init(result: Any?, resultType: NSBatchUpdateRequestResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}
