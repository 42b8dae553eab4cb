import Foundation
import Logging

// Faults whose rows are gone, objects marked for a version check, and changes of unmodeled properties.
extension NSManagedObjectContext {
    /// A fault fired and its row was not in the store (deleted by another context or process). The object
    /// holds nils already; when ``shouldHandleInaccessibleFault(_:for:triggeredByProperty:)`` agrees
    /// (by default: ``shouldDeleteInaccessibleFaults``) it becomes deleted, as Core Data documents: in
    /// `deletedObjects`, exempt from validation, gone from the context at the next save.
    func inaccessibleFaultFired(_ object: NSManagedObject) {
        guard object.isSavedAndRegistered,
              shouldHandleInaccessibleFault(object, for: object.objectID, triggeredByProperty: nil) else { return }
        let id = ObjectIdentifier(object)
        setLifecycle(.deleted, of: object)
        touched[id] = nil
        unprocessed.deleted[id] = object
        unprocessed.updated[id] = nil
    }

    /// Where a read of the store fails and the API cannot throw (a property's getter, a to-many's
    /// members, `refresh(_:mergeChanges:)`, a merge): Core Data raises ("could not fulfill a fault"); the
    /// process stops here with the store's error and the object's ID. A failure is never shown as nil, an
    /// empty set or a deleted object (a row that is gone is not a failure: ``inaccessibleFaultFired(_:)``).
    static func storeReadFailed(_ error: any Error, reading what: String, _ id: NSManagedObjectID) -> Never {
        fatalError("CoreData could not fulfill a fault: reading \(what) \(id.uriRepresentation().absoluteString) failed: \(error)")
    }

    /// `existingObject(with:)`, `nil` when the row is gone (`NSManagedObjectReferentialIntegrityError`);
    /// any other error (the store's) is thrown.
    func existingObjectUnlessGone(with id: NSManagedObjectID) throws -> NSManagedObject? {
        do {
            return try existingObject(with: id)
        } catch let error as CoreDataError where error.code == NSManagedObjectReferentialIntegrityError {
            return nil
        }
    }

    /// What ``shouldHandleInaccessibleFault(_:for:triggeredByProperty:)`` does by default: logs the fault
    /// and answers ``shouldDeleteInaccessibleFaults``.
    func defaultHandlesInaccessibleFault(_ fault: NSManagedObject, _ oid: NSManagedObjectID) -> Bool {
        contextLogger.notice("CoreData: fault for \(oid.uriRepresentation().absoluteString) is inaccessible (its row is gone)\(shouldDeleteInaccessibleFaults ? "; the object is marked deleted" : "")")
        return shouldDeleteInaccessibleFaults
    }

    /// Mirrors `detectConflicts(for:)`: the next `save()` checks that the object's row is still at the
    /// version the object read, even if the object did not change, and fails as for a changed object if
    /// it is not (the merge policy decides, as for any conflict). The check is an update of the row's
    /// version alone, so the row version advances, as for any saved object.
    public func detectConflicts(for object: NSManagedObject) {
        checkQueue("detectConflicts(for:)")
        guard object.managedObjectContext === self, object.isSavedAndRegistered else { return }
        if object.isFault { object.fireFault() }  // the check needs the version the object read
        guard !object.isDeleted, !object.faultState.isRowGone else { return }
        object.extras.checksVersion = true
        touched[ObjectIdentifier(object)] = object
    }

    /// Whether an object is marked by ``detectConflicts(for:)`` or an unmodeled change (a save with no
    /// other change still writes it).
    var hasObjectsMarkedForSave: Bool {
        touched.values.contains { $0.isMarkedForSave && !$0.isDeleted }
    }

    /// An unmodeled property of `object` changed and its class does not ignore that: the object is
    /// updated (no slot changed).
    func objectDidChangeUnmodeledValue(_ object: NSManagedObject) {
        let id = ObjectIdentifier(object)
        touched[id] = object
        unprocessed.updated[id, default: (object, [])].object = object
    }
}

let contextLogger = Logger(label: "OpenCoreData.context")
