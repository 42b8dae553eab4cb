import Foundation

/// Mirrors Core Data's `NSAtomicStore`: the base of stores that read their whole file into memory
/// (``load()``, registering cache nodes) and write it whole on every save (``save()``). Subclasses
/// override `load()`, `save()`, ``newReferenceObject(for:)``, ``newCacheNode(for:)`` and
/// ``updateCacheNode(_:from:)`` as Core Data asks, and are registered with
/// ``NSPersistentStoreCoordinator/registerStoreClass(_:type:)``.
///
/// Fetches, counts, sorts, relationships and controllers run exactly as on the SQLite store: the cache
/// nodes are mirrored in an in-memory SQLite database that answers every query (`AtomicStoreBackend`).
/// A save writes the mirror, then updates the cache nodes through the subclass, then calls `save()`; if any
/// step throws, the mirror and the cache nodes are put back as they were and the context keeps its changes.
open class NSAtomicStore: NSPersistentStore, @unchecked Sendable {
    private var nodes: [ObjectKey: NSAtomicStoreCacheNode] = [:]
    /// Reference objects and the primary keys the mirror knows them by.
    var references = ReferenceObjects()
    /// The mirror, from the moment the store is being added (`load()` asks it for keys).
    weak var mirror: AtomicStoreBackend?

    /// Mirrors `init(persistentStoreCoordinator:configurationName:at:options:)`.
    public required init(persistentStoreCoordinator coordinator: NSPersistentStoreCoordinator?, configurationName: String?,
                         at url: URL, options: [AnyHashable: Any]? = nil) {
        super.init(persistentStoreCoordinator: coordinator, configurationName: configurationName, at: url, options: options)
    }

    /// Mirrors `load()`: reads the file and registers its records with ``addCacheNodes(_:)``, their IDs
    /// made by ``objectID(for:withReferenceObject:)``. Subclasses must override it; the base throws.
    open func load() throws {
        throw CoreDataError(NSPersistentStoreOperationError, "\(Swift.type(of: self)) does not override NSAtomicStore.load()")
    }

    /// Mirrors `save()`: writes every cache node (``cacheNodes()``) to the store's URL. Subclasses must
    /// override it; the base throws, and the save fails with nothing changed.
    open func save() throws {
        throw CoreDataError(NSPersistentStoreOperationError, "\(Swift.type(of: self)) does not override NSAtomicStore.save()")
    }

    /// Mirrors `newReferenceObject(for:)`: the unique value that names a newly inserted object in the file
    /// (called once per inserted object, when it gets its permanent ID). It must be `Hashable` (a string,
    /// a number, a UUID). Core Data requires an override; the base returns a new UUID string.
    open func newReferenceObject(for managedObject: NSManagedObject) -> Any {
        UUID().uuidString
    }

    /// Mirrors `newCacheNode(for:)`: a cache node for an object inserted by the save being written, with its
    /// values. Core Data requires an override; the base makes a node holding the object's property values
    /// (relationships as cache nodes).
    open func newCacheNode(for managedObject: NSManagedObject) -> NSAtomicStoreCacheNode {
        let node = pendingNode(for: managedObject.objectID)
        fill(node, from: managedObject)
        return node
    }

    /// Mirrors `updateCacheNode(_:from:)`: brings the node of an object updated by the save being written
    /// up to date. Core Data requires an override; the base copies every property value into the node.
    open func updateCacheNode(_ node: NSAtomicStoreCacheNode, from managedObject: NSManagedObject) {
        fill(node, from: managedObject)
    }

    /// Mirrors `willRemoveCacheNodes(_:)`: called with the nodes of the objects a save deletes, before they
    /// leave ``cacheNodes()``.
    open func willRemoveCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) {}

    /// Mirrors `objectID(for:withReferenceObject:)`: the ID of the record `data` names (the same ID for the
    /// same entity hierarchy and reference object every time). `data` must be `Hashable`.
    public func objectID(for entity: NSEntityDescription, withReferenceObject data: Any) -> NSManagedObjectID {
        guard let layout = entity.layout else { preconditionFailure("objectID(for:withReferenceObject:): \(entity.name ?? "?") is not an entity of the coordinator's model") }
        let root = layout.rootEntityID
        let reference = ReferenceObjects.hashable(data)
        let pk = references.pk(root: root, reference) ?? {
            let pk = (try? mirror?.allocateKeys(root: root, count: 1).first) ?? references.nextFreeKey(root: root)
            references.record(root: root, pk: pk, reference)
            return pk
        }()
        return NSManagedObjectID(entity: entity, key: .permanent(root: root, pk: pk), storeIdentifier: identifier ?? "")
    }

    /// Mirrors `referenceObject(for:)`: the reference object an ID was made from.
    public func referenceObject(for objectID: NSManagedObjectID) -> Any {
        references.reference(of: objectID.key)?.base as Any
    }

    /// Mirrors `addCacheNodes(_:)`: registers nodes (in `load()`, or for objects inserted by a save).
    public func addCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) {
        for node in cacheNodes { nodes[node.objectID.key] = node }
    }

    /// Mirrors `cacheNodes()`: every registered node.
    public func cacheNodes() -> Set<NSAtomicStoreCacheNode> { Set(nodes.values) }

    /// Mirrors `cacheNode(for:)`: the node registered for an ID (relationships find their nodes here).
    public func cacheNode(for objectID: NSManagedObjectID) -> NSAtomicStoreCacheNode? { nodes[objectID.key] }

    // MARK: The framework's side

    /// Nodes made during a save for objects whose node a relationship needed before `newCacheNode(for:)`
    /// reached them; `newCacheNode(for:)` of the base class takes them over.
    private var pending: [ObjectKey: NSAtomicStoreCacheNode] = [:]

    private func pendingNode(for id: NSManagedObjectID) -> NSAtomicStoreCacheNode {
        if let node = nodes[id.key] ?? pending[id.key] { return node }
        let node = NSAtomicStoreCacheNode(objectID: id)
        pending[id.key] = node
        return node
    }

    /// Copies an object's persistent values into a node: attributes as they are, relationships as nodes.
    private func fill(_ node: NSAtomicStoreCacheNode, from object: NSManagedObject) {
        for property in object.entity.properties where !property.isTransient {
            let value = object.value(forKey: property.name)
            guard let relationship = property as? NSRelationshipDescription else {
                node.setValue(value, forKey: property.name)
                continue
            }
            if !relationship.isToMany {
                node.setValue((value as? NSManagedObject).map { pendingNode(for: $0.objectID) }, forKey: property.name)
            } else {
                let members = (value.flatMap(NSManagedObject.toManyElements) ?? []).compactMap { $0 as? NSManagedObject }
                let memberNodes = members.map { pendingNode(for: $0.objectID) }
                node.setValue(relationship.isOrdered ? NSOrderedSet(array: memberNodes) : Set(memberNodes) as Any, forKey: property.name)
            }
        }
    }

    /// What the cache holds, to put back when a save fails.
    struct CacheState {
        let nodes: [ObjectKey: NSAtomicStoreCacheNode]
        let values: [ObjectIdentifier: NSMutableDictionary?]
        let references: ReferenceObjects
    }

    func cacheState() -> CacheState {
        CacheState(nodes: nodes,
                   values: Dictionary(uniqueKeysWithValues: nodes.values.map { (ObjectIdentifier($0), $0.propertyCache?.mutableCopy() as? NSMutableDictionary) }),
                   references: references)
    }

    func restore(_ state: CacheState) {
        nodes = state.nodes
        for node in nodes.values { node.propertyCache = state.values[ObjectIdentifier(node)] ?? nil }
        references = state.references
        pending.removeAll()
    }

    /// Brings the cache nodes up to date with a save the mirror has written: new nodes for inserted
    /// objects, updated nodes for updated ones, deleted ones removed (``willRemoveCacheNodes(_:)`` first).
    func apply(inserted: [NSManagedObject], updated: [NSManagedObject], deleted: [ObjectKey]) {
        var added = Set<NSAtomicStoreCacheNode>()
        for object in inserted { added.insert(newCacheNode(for: object)) }
        addCacheNodes(added)
        pending.removeAll()
        for object in updated {
            if let node = nodes[object.objectID.key] { updateCacheNode(node, from: object) } else { addCacheNodes([newCacheNode(for: object)]) }
        }
        pending.removeAll()
        let removed = Set(deleted.compactMap { nodes[$0] })
        if !removed.isEmpty {
            willRemoveCacheNodes(removed)
            for node in removed { nodes[node.objectID.key] = nil }
        }
        for key in deleted { references.forget(key) }
    }
}

/// The reference objects of an atomic or incremental store and the primary keys that stand for them.
struct ReferenceObjects {
    private var keys: [Int: [AnyHashable: Int64]] = [:]
    private var byKey: [ObjectKey: AnyHashable] = [:]
    private var highest: [Int: Int64] = [:]

    static func hashable(_ data: Any) -> AnyHashable {
        if let h = data as? AnyHashable { return h }
        return AnyHashable(String(describing: data))
    }

    func pk(root: Int, _ reference: AnyHashable) -> Int64? { keys[root]?[reference] }

    func reference(of key: ObjectKey) -> AnyHashable? { byKey[key] }

    mutating func record(root: Int, pk: Int64, _ reference: AnyHashable) {
        keys[root, default: [:]][reference] = pk
        byKey[.permanent(root: root, pk: pk)] = reference
        highest[root] = max(highest[root] ?? 0, pk)
    }

    mutating func forget(_ key: ObjectKey) {
        guard case .permanent(let root, _) = key, let reference = byKey.removeValue(forKey: key) else { return }
        keys[root]?[reference] = nil
    }

    func nextFreeKey(root: Int) -> Int64 { (highest[root] ?? 0) + 1 }
}
