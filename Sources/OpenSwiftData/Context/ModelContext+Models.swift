import Foundation
import OpenCoreData

extension ModelContext {
    /// Mirrors `willSave`: posted by ``save()`` before it writes (object: the context).
    public static let willSave = Notification.Name("ModelContextWillSave")
    /// Mirrors `didSave`: posted after a save, its `userInfo` keyed by ``NotificationKey`` raw values with
    /// arrays of ``PersistentIdentifier`` (permanent ones).
    public static let didSave = Notification.Name("ModelContextDidSave")

    /// Mirrors SwiftData's `ModelContext.NotificationKey`: the keys of ``didSave``'s `userInfo`.
    public enum NotificationKey: String, Sendable {
        /// Mirrors `insertedIdentifiers`.
        case insertedIdentifiers
        /// Mirrors `updatedIdentifiers`.
        case updatedIdentifiers
        /// Mirrors `deletedIdentifiers`.
        case deletedIdentifiers
        /// Mirrors `invalidatedAllIdentifiers`.
        case invalidatedAllIdentifiers
        /// Mirrors `queryGeneration`.
        case queryGeneration
    }

    /// Mirrors `model(for:)`: the model of an identifier, registered or not (a fault whose values are read
    /// when first used; a model whose row is gone traps on that read, as SwiftData's does).
    public func model(for persistentModelID: PersistentIdentifier) -> any PersistentModel {
        guard let objectID = objectID(of: persistentModelID) else {
            fatalError("\(persistentModelID.id.uri) names no object of this container's stores")
        }
        return model(for: managedObjectContext.object(with: objectID))
    }

    /// Mirrors `registeredModel(for:)`: the model of an identifier if this context has it, else `nil`.
    public func registeredModel<T: PersistentModel>(for persistentModelID: PersistentIdentifier) -> T? {
        guard let objectID = objectID(of: persistentModelID),
              let object = managedObjectContext.registeredObject(for: objectID) else { return nil }
        return model(for: object) as? T
    }

    func objectID(of identifier: PersistentIdentifier) -> NSManagedObjectID? {
        if let objectID = identifier.objectID { return objectID }
        if let bridge = container.dataStoreBridge(identifier: identifier.storeIdentifier) { return bridge.objectID(for: identifier) }
        return identifier.uri.flatMap { container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: $0) }
    }

    /// The model showing `object` (the same instance while something keeps it).
    func model(for object: NSManagedObject) -> any PersistentModel {
        if let model = object.swiftDataModel as? any PersistentModel { return model }
        guard let type = container.schema.modelType(named: object.entity.name ?? "") else {
            fatalError("No model class for entity \(object.entity.name ?? "?")")
        }
        return make(type, object)
    }

    /// ``model(for:)`` of each of `objects`, all of `M`'s entity, without looking their type up. A `@Model` model is
    /// made over a stand-in of its object (``FetchedBackingData``: its storage is made only if asked for).
    func models<M: PersistentModel>(for objects: [NSManagedObject], as type: M.Type) -> [M] {
        M._$realizesBackingData
            ? models(for: objects, backing: FetchedBackingData<M>.self)
            : models(for: objects, backing: ModelStorage<M>.self)
    }

    /// ``models(for:as:)`` with the backing data type given once: its metadata and its conformance to `BackingData`
    /// are found here, not once a model (the runtime's lookups cost a fetched model more than its storage). The list
    /// is filled in place (`map` over a generic element runs unspecialized, about 390 instructions a model).
    private func models<M, B: ManagedBackingData>(for objects: [NSManagedObject], backing: B.Type) -> [M] where B.Model == M {
        [M](unsafeUninitializedCapacity: objects.count) { models, count in
            for object in objects {
                (models.baseAddress.unsafelyUnwrapped + count).initialize(to: model(for: object, backing: B.self))
                count += 1
            }
        }
    }

    /// The model showing `object`: the one linked to it, else a new one over backing data of type `B`, linked to it.
    private func model<M, B: ManagedBackingData>(for object: NSManagedObject, backing _: B.Type) -> M where B.Model == M {
        if let model = object.swiftDataModel { return model as! M }
        let model = M(backingData: B(object, self))
        object.linkSwiftDataModel(model)
        return model
    }

    /// A new model showing `object`, linked to it.
    private func make<M: PersistentModel>(_ type: M.Type, _ object: NSManagedObject) -> M {
        M._$realizesBackingData
            ? model(for: object, backing: FetchedBackingData<M>.self)
            : model(for: object, backing: ModelStorage<M>.self)
    }

    /// The managed object of a model that a value of this context refers to; a detached model is inserted.
    func managedObject(for model: any PersistentModel) -> NSManagedObject {
        func object<M: PersistentModel>(_ model: M) -> NSManagedObject {
            if model.storage.context == nil { insert(model) }
            precondition(model.storage.context === self, "\(M.self) belongs to another ModelContext than the model it is related to")
            return model.storage.object!
        }
        return object(model)
    }
}
