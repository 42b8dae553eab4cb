import Foundation

/// Mirrors `NSBatchDeleteRequestResultType`: what executing an ``NSBatchDeleteRequest`` returns.
public enum NSBatchDeleteRequestResultType: UInt, Sendable {
    /// Mirrors `resultTypeStatusOnly`: the result is `true` (an `NSNumber`).
    case resultTypeStatusOnly = 0
    /// Mirrors `resultTypeObjectIDs`: the result is the deleted objects' IDs, `[NSManagedObjectID]`.
    case resultTypeObjectIDs = 1
    /// Mirrors `resultTypeCount`: the result is how many objects were deleted (an `NSNumber`).
    case resultTypeCount = 2
}

/// Mirrors `NSBatchDeleteRequest`: deletes the objects a fetch request matches (or the objects of some
/// IDs, all of one entity) in the SQLite store, in one transaction, without loading them.
///
/// The model's delete rules apply at the row level: cascade deletes the destinations (and theirs),
/// nullify clears the to-one of a destination that points back, no action leaves it. A Deny rule whose
/// relationship still names an object makes the request fail with
/// `NSValidationRelationshipDeniedDeleteError`, deleting nothing (Core Data documents Deny as
/// incompatible with batch deletes). Other validation rules do not run. Contexts are bypassed: merge
/// the returned IDs (`NSDeletedObjectsKey`) with
/// ``NSManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``. The IDs (and the count) include
/// the objects deleted by cascade rules, so that merging them removes those objects too.
open class NSBatchDeleteRequest: NSPersistentStoreRequest, @unchecked Sendable {
    /// Mirrors `fetchRequest`: the objects to delete (its predicate, subentities, sort, limit and offset).
    open private(set) var fetchRequest: NSFetchRequest<any NSFetchRequestResult>
    /// Mirrors `resultType` (default ``NSBatchDeleteRequestResultType/resultTypeStatusOnly``).
    open var resultType: NSBatchDeleteRequestResultType = .resultTypeStatusOnly
    /// The IDs the request was made with (``init(objectIDs:)``).
    let objectIDs: [NSManagedObjectID]?

    /// Mirrors `requestType`: `.batchDeleteRequestType`.
    open override var requestType: NSPersistentStoreRequestType { .batchDeleteRequestType }

    /// Mirrors `init(fetchRequest:)`.
    public init(fetchRequest: NSFetchRequest<any NSFetchRequestResult>) {
        self.fetchRequest = fetchRequest
        self.objectIDs = nil
        super.init()
    }

    /// Mirrors `init(objectIDs:)`: the objects of these IDs, which must all be of one entity (executing
    /// the request with IDs of several entities, or with an unsaved object's temporary ID, throws).
    public convenience init(objectIDs: [NSManagedObjectID]) {
        let request = NSFetchRequest<any NSFetchRequestResult>()
        request.entity = objectIDs.first?.entity
        self.init(fetchRequest: request, objectIDs: objectIDs)
    }

    private init(fetchRequest: NSFetchRequest<any NSFetchRequestResult>, objectIDs: [NSManagedObjectID]) {
        self.fetchRequest = fetchRequest
        self.objectIDs = objectIDs
        super.init()
    }
}

/// Mirrors `NSBatchDeleteResult`: what executing an ``NSBatchDeleteRequest`` returned.
open class NSBatchDeleteResult: NSPersistentStoreResult, @unchecked Sendable {
    /// Mirrors `result`: `true`, the deleted objects' IDs, or their count (see ``resultType``).
    open private(set) var result: Any?
    /// Mirrors `resultType`.
    open private(set) var resultType: NSBatchDeleteRequestResultType

    init(result: Any?, resultType: NSBatchDeleteRequestResultType) {
        self.result = result
        self.resultType = resultType
        super.init()
    }
}
