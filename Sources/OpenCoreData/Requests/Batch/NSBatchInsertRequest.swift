import Foundation

/// Mirrors `NSBatchInsertRequestResultType`: what executing an ``NSBatchInsertRequest`` returns.
public enum NSBatchInsertRequestResultType: UInt, Sendable {
    /// Mirrors `statusOnly`: the result is `true` (an `NSNumber`).
    case statusOnly = 0
    /// Mirrors `objectIDs`: the result is the IDs of the objects written, `[NSManagedObjectID]`, one per
    /// object given, in order (an object that updated a stored one under a uniqueness constraint names it).
    case objectIDs = 1
    /// Mirrors `count`: the result is how many objects were given and written (an `NSNumber`).
    case count = 2
}

/// Mirrors `NSBatchInsertRequest`: writes new objects of one entity into the SQLite store in one
/// transaction, from dictionaries of attribute values (an array, or a handler asked for one after
/// another) or from a handler that fills in a managed object, without a context.
///
/// Values are attributes only, by name; an unknown key, a relationship, a value of the wrong type or a
/// missing required value (one with no default) is an error that names the entity and the key, and
/// nothing is written. Attributes not given take their defaults. Under the entity's uniqueness
/// constraints the request upserts, as Core Data's batch insert does: an object whose constrained
/// values match a stored object (or an earlier object of the same request) updates that object's given
/// attributes instead of inserting. Validation predicates do not run, and contexts are bypassed: merge
/// the returned IDs (`NSInsertedObjectsKey`) with
/// ``NSManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``.
open class NSBatchInsertRequest: NSPersistentStoreRequest, @unchecked Sendable {
    /// Mirrors `entityName`.
    open private(set) var entityName: String
    /// Mirrors `entity`: the entity given, or the model's entity once the request ran.
    open private(set) var entity: NSEntityDescription?
    /// Mirrors `objectsToInsert`: dictionaries of attribute values, one per object.
    open var objectsToInsert: [[String: Any]]?
    /// Mirrors `dictionaryHandler`: called again and again with an empty dictionary to fill with one
    /// object's values; returning `true` ends the request (that call's dictionary is not inserted).
    open var dictionaryHandler: ((NSMutableDictionary) -> Bool)?
    /// Mirrors `managedObjectHandler`: called again and again with a new object of the entity, in no
    /// context, to set one object's attributes on; returning `true` ends the request (that call's object
    /// is not inserted).
    open var managedObjectHandler: ((NSManagedObject) -> Bool)?
    /// Mirrors `resultType` (default ``NSBatchInsertRequestResultType/statusOnly``).
    open var resultType: NSBatchInsertRequestResultType = .statusOnly

    /// Mirrors `requestType`: `.batchInsertRequestType`.
    open override var requestType: NSPersistentStoreRequestType { .batchInsertRequestType }

    /// Mirrors `init()`: a request with no entity yet (executing it throws until one is named).
    public convenience override init() {
        self.init(entityName: "", objects: [])
        objectsToInsert = nil
    }

    /// Mirrors `init(entityName:objects:)`.
    public init(entityName: String, objects: [[String: Any]]) {
        self.entityName = entityName
        self.objectsToInsert = objects
        super.init()
    }

    /// Mirrors `init(entity:objects:)`.
    public init(entity: NSEntityDescription, objects: [[String: Any]]) {
        self.entityName = entity.name ?? ""
        self.entity = entity
        self.objectsToInsert = objects
        super.init()
    }

    /// Mirrors `init(entity:dictionaryHandler:)`.
    public convenience init(entity: NSEntityDescription, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.init(entity: entity, objects: [])
        objectsToInsert = nil
        dictionaryHandler = handler
    }

    /// Mirrors `init(entityName:dictionaryHandler:)`.
    public convenience init(entityName: String, dictionaryHandler handler: @escaping (NSMutableDictionary) -> Bool) {
        self.init(entityName: entityName, objects: [])
        objectsToInsert = nil
        dictionaryHandler = handler
    }

    /// Mirrors `init(entity:managedObjectHandler:)`.
    public convenience init(entity: NSEntityDescription, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        self.init(entity: entity, objects: [])
        objectsToInsert = nil
        managedObjectHandler = handler
    }

    /// Mirrors `init(entityName:managedObjectHandler:)`.
    public convenience init(entityName: String, managedObjectHandler handler: @escaping (NSManagedObject) -> Bool) {
        self.init(entityName: entityName, objects: [])
        objectsToInsert = nil
        managedObjectHandler = handler
    }

    /// The model's entity this request inserts into.
    func resolvedEntity(in model: NSManagedObjectModel) throws -> NSEntityDescription {
        let resolved = try BatchRequests.entity(entity, named: entityName, in: model)
        entity = resolved
        return resolved
    }
}

/// Mirrors `NSBatchInsertResult`: what executing an ``NSBatchInsertRequest`` returned.
open class NSBatchInsertResult: NSPersistentStoreResult, @unchecked Sendable {
    /// Mirrors `result`: `true`, the objects' IDs, or their count (see ``resultType``).
    open private(set) var result: Any?
    /// Mirrors `resultType`.
    open private(set) var resultType: NSBatchInsertRequestResultType

    init(result: Any?, resultType: NSBatchInsertRequestResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}
