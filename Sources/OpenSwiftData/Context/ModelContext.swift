import Foundation
import Logging
import OpenCoreData

/// Mirrors SwiftData's `ModelContext`: the models one actor works with, their changes, and the saves
/// that write them, over a Core Data context of the container's coordinator. Like SwiftData's, a context
/// belongs to the actor (or thread) that made it; identifiers cross, models do not.
public final class ModelContext: CustomDebugStringConvertible {
    static let logger = Logger(label: "OpenSwiftData")
    /// Mirrors `container`.
    public let container: ModelContainer
    /// The Core Data context the models' managed objects live in.
    public let managedObjectContext: NSManagedObjectContext
    /// Mirrors `autosaveEnabled`: when `true`, changes are saved soon after they are made, on the main
    /// queue (the main context's default; `false` for a context made with ``init(_:)``).
    @exclusivity(unchecked) public var autosaveEnabled = false
    // Both flags unchecked for exclusivity: a context is used from one actor, and every change of a model reads them.
    @exclusivity(unchecked) private var autosaveScheduled = false
    /// The context's identity in ``editingState``.
    let identity = UUID()

    /// Mirrors `init(_:)`: a new context of `container`'s stores.
    public convenience init(_ container: ModelContainer) { self.init(container, concurrencyType: .confinementConcurrencyType) }

    init(_ container: ModelContainer, concurrencyType: NSManagedObjectContextConcurrencyType) {
        self.container = container
        managedObjectContext = NSManagedObjectContext(concurrencyType: concurrencyType)
        managedObjectContext.persistentStoreCoordinator = container.persistentStoreCoordinator
        managedObjectContext.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
        managedObjectContext.userInfo[Self.ownerKey] = Owner(self)
        for bridge in container.dataStoreBridges { bridge.contextBegan(editingState) }
    }

    deinit {
        for bridge in container.dataStoreBridges { bridge.contextEnded(editingState) }
    }

    /// The model context a Core Data context belongs to, if any.
    static func owner(of context: NSManagedObjectContext?) -> ModelContext? {
        (context?.userInfo[ownerKey] as? Owner)?.context
    }

    private static let ownerKey = "OpenSwiftData.ModelContext"

    private final class Owner {
        weak var context: ModelContext?
        init(_ context: ModelContext) { self.context = context }
    }

    var values: ModelValues { ModelValues(context: self) }

    /// Mirrors `author`: the author recorded in the history of this context's saves.
    public var author: String? {
        get { managedObjectContext.transactionAuthor }
        set { managedObjectContext.transactionAuthor = newValue }
    }

    /// Mirrors `undoManager`: records this context's changes for undo when set.
    public var undoManager: UndoManager? {
        get { managedObjectContext.undoManager }
        set { managedObjectContext.undoManager = newValue }
    }

    /// Mirrors `hasChanges`.
    public var hasChanges: Bool { managedObjectContext.hasChanges }

    /// Mirrors `insertedModelsArray`: models inserted since the last save.
    public var insertedModelsArray: [any PersistentModel] { managedObjectContext.insertedObjects.map(model(for:)) }
    /// Mirrors `changedModelsArray`: saved models changed since the last save.
    public var changedModelsArray: [any PersistentModel] { managedObjectContext.updatedObjects.map(model(for:)) }
    /// Mirrors `deletedModelsArray`: models deleted since the last save.
    public var deletedModelsArray: [any PersistentModel] { managedObjectContext.deletedObjects.map(model(for:)) }

    /// Mirrors `insert(_:)`: a detached model (and each detached model its relationships reach) joins the
    /// context, to be written by the next save. Inserting a model of this context again does nothing.
    public func insert<T: PersistentModel>(_ model: T) {
        let storage = model.storage
        if let owner = storage.context {
            precondition(owner === self, "\(T.self) belongs to another ModelContext: pass its persistentModelID and use model(for:) there")
            if let object = storage.object, object.isDeleted { managedObjectContext.insert(object) }
            return
        }
        let name = Schema.entityName(for: T.self)
        guard let entity = container.entitiesByName[name] else {
            fatalError("\(T.self) is not in the container's schema (its entities: \(container.schema.entities.map(\.name).joined(separator: ", ")))")
        }
        let object = NSManagedObject(entity: entity, insertInto: managedObjectContext)
        object.linkSwiftDataModel(model)
        storage.attach(to: object, in: self)
        changed()
    }

    /// Mirrors `delete(_:)`: the model is removed from the store at the next save, with its delete rules.
    public func delete<T: PersistentModel>(_ model: T) {
        guard let object = model.storage.object else { return }
        precondition(model.storage.context === self, "\(T.self) belongs to another ModelContext")
        managedObjectContext.delete(object)
        changed()
    }

    /// Mirrors `delete(model:where:includeSubclasses:)`: deletes each model of `model` the predicate
    /// matches (all when `nil`); the next save removes them.
    /// A custom store that batches (``DataStoreBatching``) deletes them itself, at once; the context then
    /// forgets them.
    public func delete<T: PersistentModel>(model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true) throws {
        if let bridge = container.dataStoreBridge(forEntity: Schema.entityName(for: T.self)), bridge.batchesDeletes {
            let identifiers = try fetchIdentifiers(FetchDescriptor<T>(predicate: predicate))
            try bridge.batchDelete(DataStoreBatchDeleteRequest(editingState: editingState, predicate: predicate, includeSubclasses: includeSubclasses))
            NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: identifiers.compactMap(objectID(of:))],
                                                into: [managedObjectContext])
            return
        }
        for found in try fetch(FetchDescriptor<T>(predicate: predicate)) { delete(found) }
    }

    /// Mirrors `save()`: writes the inserted, changed and deleted models in one transaction. A save that
    /// fails (validation, a `.deny` rule, a store error) writes nothing and leaves the changes pending.
    public func save() throws {
        guard managedObjectContext.hasChanges else { return }
        NotificationCenter.default.post(name: Self.willSave, object: self)
        let (inserted, updated, deleted) = managedObjectContext.changedObjectLists
        try managedObjectContext.save()
        refreshReregistered()
        NotificationCenter.default.post(name: Self.didSave, object: self, userInfo: [
            NotificationKey.insertedIdentifiers.rawValue: inserted.map { PersistentIdentifier($0.objectID) },
            NotificationKey.updatedIdentifiers.rawValue: updated.map { PersistentIdentifier($0.objectID) },
            NotificationKey.deletedIdentifiers.rawValue: deleted.map { PersistentIdentifier($0.objectID) },
        ])
    }

    /// Models whose values a custom store changed while saving show the store's values.
    private func refreshReregistered() {
        guard !container.customStoreEntities.isEmpty else { return }
        for bridge in container.dataStoreBridges {
            for id in bridge.takeReregistered() {
                if let object = managedObjectContext.registeredObject(for: id) { managedObjectContext.refresh(object, mergeChanges: false) }
            }
        }
    }

    /// Mirrors `rollback()`: discards every unsaved change (inserted models become detached no more: they
    /// leave the context).
    public func rollback() { managedObjectContext.rollback() }

    /// Mirrors `processPendingChanges()`: applies delete rules and inverse updates now.
    public func processPendingChanges() { managedObjectContext.processPendingChanges() }

    /// Mirrors `transaction(block:)`: runs `block`, then saves. When `block` throws, its changes are rolled
    /// back and the error rethrown.
    public func transaction(block: () throws -> Void) throws {
        do { try block() } catch {
            rollback()
            throw error
        }
        try save()
    }

    /// The context as a debugger shows it.
    public var debugDescription: String {
        "ModelContext(inserted: \(managedObjectContext.insertedObjects.count), changed: \(managedObjectContext.updatedObjects.count), deleted: \(managedObjectContext.deletedObjects.count))"
    }

    /// A change was made: with autosave on, a save follows on the main queue.
    func changed() {
        guard autosaveEnabled, !autosaveScheduled else { return }
        autosaveScheduled = true
        let context = UncheckedContext(self)
        DispatchQueue.main.async { context.value.autosave() }
    }

    private func autosave() {
        autosaveScheduled = false
        guard autosaveEnabled else { return }
        do { try save() } catch { Self.logger.error("autosave failed, the changes stay pending: \(error)") }
    }
}

/// The main context, handed to the main queue that it belongs to.
private struct UncheckedContext: @unchecked Sendable {
    let value: ModelContext
    init(_ value: ModelContext) { self.value = value }
}
