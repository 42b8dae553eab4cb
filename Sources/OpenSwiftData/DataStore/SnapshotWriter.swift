import Foundation
import OpenCoreData

/// Writes snapshots into a Core Data context (``DefaultStore/save(_:)``): inserted ones as new objects,
/// updated ones onto their objects, deleted ones deleted. Relationship values name other snapshots'
/// identifiers: those of this save's inserted snapshots, or of stored objects.
struct SnapshotWriter {
    let context: NSManagedObjectContext
    let objectID: (PersistentIdentifier) -> NSManagedObjectID?
    private let insertedObjects = Box()

    private final class Box { var objects: [PersistentIdentifier: NSManagedObject] = [:] }

    init(context: NSManagedObjectContext, objectID: @escaping (PersistentIdentifier) -> NSManagedObjectID?) {
        (self.context, self.objectID) = (context, objectID)
    }

    /// New objects for the snapshots, their values set once all exist; by temporary identifier.
    func insert(_ snapshots: [DefaultSnapshot]) throws -> [PersistentIdentifier: NSManagedObject] {
        for snapshot in snapshots {
            guard let entity = context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[snapshot.persistentIdentifier.entityName] else {
                throw SwiftDataError(.unknownSchema, "the store's schema has no entity \(snapshot.persistentIdentifier.entityName)")
            }
            insertedObjects.objects[snapshot.persistentIdentifier] = NSManagedObject(entity: entity, insertInto: context)
        }
        for snapshot in snapshots { try apply(snapshot, to: insertedObjects.objects[snapshot.persistentIdentifier]!, toMany: false) }
        for snapshot in snapshots { try apply(snapshot, to: insertedObjects.objects[snapshot.persistentIdentifier]!, toMany: true) }
        return insertedObjects.objects
    }

    func update(_ snapshots: [DefaultSnapshot]) throws {
        for snapshot in snapshots { try apply(snapshot, to: try existing(snapshot.persistentIdentifier), toMany: false) }
        for snapshot in snapshots { try apply(snapshot, to: try existing(snapshot.persistentIdentifier), toMany: true) }
    }

    func delete(_ snapshots: [DefaultSnapshot]) throws {
        for snapshot in snapshots { context.delete(try existing(snapshot.persistentIdentifier)) }
    }

    private func existing(_ id: PersistentIdentifier) throws -> NSManagedObject {
        if let inserted = insertedObjects.objects[id] { return inserted }
        guard let objectID = objectID(id) else {
            throw SwiftDataError(.unknownSchema, "\(id.id.uri) names no object of this store")
        }
        return try context.existingObject(with: objectID)
    }

    /// Sets a snapshot's attributes and to-one relationships, or its to-many relationships. The writer sets
    /// all of a request's to-many values after all others, so that a to-many list is what holds when a
    /// member's own to-one value disagrees with it (a detached model's inverse is not set yet).
    private func apply(_ snapshot: DefaultSnapshot, to object: NSManagedObject, toMany: Bool) throws {
        for (name, value) in snapshot.values {
            if case .models = value { guard toMany else { continue } } else if toMany { continue }
            guard let property = object.entity.propertiesByName[name] else {
                throw SwiftDataError(.unknownSchema, "\(object.entity.name ?? "?") has no property \(name) (a snapshot of \(snapshot.persistentIdentifier.id.uri))")
            }
            switch value {
            case .model(let id): object.setValue(try existing(id), forKey: name)
            case .models(let ids):
                let members = try ids.map(existing)
                object.setValue((property as? NSRelationshipDescription)?.isOrdered == true ? NSOrderedSet(array: members) as Any : Set(members) as Any, forKey: name)
            case .null: object.setValue(nil, forKey: name)
            default: object.setValue(value.stored, forKey: name)
            }
        }
    }
}
