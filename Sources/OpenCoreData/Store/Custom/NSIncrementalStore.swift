import Foundation

/// Mirrors Core Data's `NSIncrementalStore`: the base of stores that read and write their records one
/// request at a time (a web service, a database of another program), registered with
/// ``NSPersistentStoreCoordinator/registerStoreClass(_:type:)``. Subclasses override ``loadMetadata()``,
/// ``execute(_:with:)``, ``newValuesForObject(with:with:)``,
/// ``newValue(forRelationship:forObjectWith:with:)`` and ``obtainPermanentIDs(for:)``, as Core Data asks.
///
/// How the coordinator uses the store (`IncrementalStoreBackend`):
/// - A fetch of objects asks ``execute(_:with:)`` with an `NSFetchRequest` of the fetch's entity,
///   predicate, sort descriptors, `includesSubentities`, `fetchLimit` and `fetchOffset`, whose
///   `resultType` is `.managedObjectIDResultType`; the store answers with the IDs (or objects) that match,
///   in order. Objects are made and uniqued by the context. A count asks it with `.countResultType`.
///   When the context must judge unsaved changes in memory, the request it hands the store may have no
///   predicate, or a larger limit, than the app's. A fetch that includes property values
///   (`includesPropertyValues`, the default) reads each object's node (``newValuesForObject(with:with:)``)
///   as it fetches; otherwise a node is read when the object's fault fires.
/// - Values are never taken from the coordinator's row cache: every fault, refresh and merge asks the
///   store for a node, so the store is the one source of truth.
/// - A to-many relationship (and a to-one the node leaves out) is asked of
///   ``newValue(forRelationship:forObjectWith:with:)`` when it is first read.
/// - A save first gives the inserted objects their permanent IDs (``obtainPermanentIDs(for:)``), then
///   compares each updated and deleted object's version with its node's current version (optimistic
///   locking: a different version, or no node, is a conflict the context's merge policy resolves), then
///   hands an `NSSaveChangesRequest` to ``execute(_:with:)``. If that throws, the context keeps its
///   changes. After it, each updated object reads its node again for its new version; inserted objects
///   take version 1, as Core Data gives them, so a store should start new records' versions at 1.
/// - The `context` handed to the store is the context that fetches, fires the fault or saves; reads that
///   are not a context's own (a merge refreshing objects for another context's save) hand `nil` where
///   Core Data's signature allows it, and else a context of the coordinator made for the call.
///
/// Not done: dictionary-result fetches (`.dictionaryResultType` through `fetch(_:)`) throw
/// `NSPersistentStoreUnsupportedRequestTypeError`; ``managedObjectContextDidRegisterObjects(with:)`` and
/// ``managedObjectContextDidUnregisterObjects(with:)`` are never called (a store must not count on them);
/// query generations read the store's current state.
open class NSIncrementalStore: NSPersistentStore, @unchecked Sendable {
    /// Reference objects and the primary keys that stand for them in object IDs, and the entity number of
    /// each ID made.
    private let references = LockedValue((ReferenceObjects(), [ObjectKey: Int]()))

    /// Mirrors `init(persistentStoreCoordinator:configurationName:at:options:)`.
    public required init(persistentStoreCoordinator root: NSPersistentStoreCoordinator?, configurationName name: String?,
                         at url: URL, options: [AnyHashable: Any]? = nil) {
        super.init(persistentStoreCoordinator: root, configurationName: name, at: url, options: options)
    }

    /// Mirrors `loadMetadata()`: the store checks its URL and sets ``NSPersistentStore/metadata``, with
    /// `NSStoreTypeKey` (its type) and `NSStoreUUIDKey` (its identifier; for a new store,
    /// ``identifierForNewStore(at:)``). Subclasses must override it; the base throws, and the store is
    /// not added.
    open override func loadMetadata() throws {
        throw CoreDataError(NSPersistentStoreOperationError, "\(Swift.type(of: self)) does not override NSIncrementalStore.loadMetadata()")
    }

    /// Mirrors `execute(_:with:)`: answers a request. For an `NSFetchRequest`, by its `resultType`: an
    /// array of the matching managed objects (made with the context's `object(with:)`), object IDs, or
    /// dictionaries; for `.countResultType`, an array holding one `NSNumber`, the count. For an
    /// `NSSaveChangesRequest`, writes its inserted, updated and deleted objects and returns an empty array.
    /// Subclasses must override it; the base throws `NSPersistentStoreUnsupportedRequestTypeError`.
    open func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        throw CoreDataError(NSPersistentStoreUnsupportedRequestTypeError,
                            "\(Swift.type(of: self)) does not override NSIncrementalStore.execute(_:with:) (request type \(request.requestType))")
    }

    /// Mirrors `newValuesForObject(with:with:)`: a node with the values and version of the record `objectID`
    /// names (``referenceObject(for:)``). When there is no such record it throws a `CoreDataError` with the
    /// code `NSManagedObjectReferentialIntegrityError` (the object is then gone, as a deleted row is); any
    /// other error is a failed read: a save that needed the node fails, a fault that needed it cannot be
    /// fulfilled. Subclasses must override it.
    open func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws -> NSIncrementalStoreNode {
        throw CoreDataError(NSPersistentStoreOperationError, "\(Swift.type(of: self)) does not override NSIncrementalStore.newValuesForObject(with:with:)")
    }

    /// Mirrors `newValue(forRelationship:forObjectWith:with:)`: a relationship's value for the record
    /// `objectID` names: for a to-one, the destination's `NSManagedObjectID` or `NSNull`; for a to-many, a
    /// collection of `NSManagedObjectID`s (an array, set, `NSSet` or `NSOrderedSet`; in order for an
    /// ordered relationship). Subclasses must override it.
    open func newValue(forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID,
                       with context: NSManagedObjectContext?) throws -> Any {
        throw CoreDataError(NSPersistentStoreOperationError, "\(Swift.type(of: self)) does not override NSIncrementalStore.newValue(forRelationship:forObjectWith:with:)")
    }

    /// Mirrors `obtainPermanentIDs(for:)`: the permanent IDs of newly inserted objects, in the objects'
    /// order, each made with ``newObjectID(for:referenceObject:)`` from the reference object the store will
    /// file the record under. Called before every save with inserted objects, and by the context's
    /// `obtainPermanentIDs(for:)`. Subclasses must override it.
    open func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
        throw CoreDataError(NSPersistentStoreOperationError, "\(Swift.type(of: self)) does not override NSIncrementalStore.obtainPermanentIDs(for:)")
    }

    /// Mirrors `newObjectID(for:referenceObject:)`: the ID of the record `data` names in this store: the same
    /// ID (equal, same URI) for the same entity hierarchy and reference object every time. `data` should be
    /// `Hashable` (a string, a number, a UUID); anything else is told apart by its description. Core Data
    /// asks subclasses not to override it (it is not `open` here).
    public final func newObjectID(for entity: NSEntityDescription, referenceObject data: Any) -> NSManagedObjectID {
        guard let layout = entity.layout else {
            preconditionFailure("newObjectID(for:referenceObject:): \(entity.name ?? "?") is not an entity of the coordinator's model")
        }
        let root = layout.rootEntityID
        let reference = ReferenceObjects.hashable(data)
        let pk = references.withLock { state in
            let pk = state.0.pk(root: root, reference) ?? state.0.nextFreeKey(root: root)
            state.0.record(root: root, pk: pk, reference)
            state.1[.permanent(root: root, pk: pk)] = layout.entityID
            return pk
        }
        return NSManagedObjectID(entity: entity, key: .permanent(root: root, pk: pk), storeIdentifier: identifier ?? "")
    }

    /// Mirrors `referenceObject(for:)`: the reference object an ID of this store was made from
    /// (``newObjectID(for:referenceObject:)``). Core Data asks subclasses not to override it. An ID this
    /// store did not make (a temporary one) traps, as Core Data raises.
    public final func referenceObject(for objectID: NSManagedObjectID) -> Any {
        guard let reference = reference(of: objectID.key) else {
            preconditionFailure("referenceObject(for:): \(objectID) is not an ID of this store")
        }
        return reference.base
    }

    /// The reference object of a permanent key, if the store made an ID for it.
    func reference(of key: ObjectKey) -> AnyHashable? { references.withLock { $0.0.reference(of: key) } }

    /// The entity number of the ID last made for a key, if any.
    func entityNumber(of key: ObjectKey) -> Int? { references.withLock { $0.1[key] } }

    /// Mirrors `managedObjectContextDidRegisterObjects(with:)`: a context began to use objects of this store.
    /// Never called by OpenCoreData's contexts (see the class's comment); the base does nothing.
    open func managedObjectContextDidRegisterObjects(with objectIDs: [NSManagedObjectID]) {}

    /// Mirrors `managedObjectContextDidUnregisterObjects(with:)`: a context stopped using objects of this
    /// store. Never called by OpenCoreData's contexts (see the class's comment); the base does nothing.
    open func managedObjectContextDidUnregisterObjects(with objectIDs: [NSManagedObjectID]) {}

    /// Mirrors `identifierForNewStore(at:)`: the identifier (`NSStoreUUIDKey`) a new store at `storeURL`
    /// gets: a new UUID string.
    open class func identifierForNewStore(at storeURL: URL) -> Any {
        UUID().uuidString
    }
}
