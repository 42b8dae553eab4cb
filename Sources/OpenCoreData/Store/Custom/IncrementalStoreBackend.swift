import Foundation

/// What the coordinator reads and writes through for an ``NSIncrementalStore``: every fetch, count,
/// fault and relationship is asked of the store (`execute(_:with:)`, `newValuesForObject(with:with:)`,
/// `newValue(forRelationship:forObjectWith:with:)`), and turned into rows keyed by the primary keys that
/// stand for the store's reference objects (``NSIncrementalStore/newObjectID(for:referenceObject:)``).
/// Saves are in IncrementalStoreBackend+Save.swift.
final class IncrementalStoreBackend: StoreBackend, @unchecked Sendable {
    private weak var store: NSIncrementalStore?
    let model: NSManagedObjectModel
    let identifier: String
    private let calls = LockedValue(0)

    init(_ store: NSIncrementalStore, model: NSManagedObjectModel) throws {
        guard let id = store.metadata?[NSStoreUUIDKey].map({ "\($0)" }), !id.isEmpty else {
            throw CoreDataError(NSPersistentStoreOperationError, "\(type(of: store)).loadMetadata() did not set the store's metadata with NSStoreUUIDKey")
        }
        self.store = store
        self.model = model
        self.identifier = id
    }

    var isReadOnly: Bool { false }
    /// Requests handed to the store so far (`execute`, nodes and relationships).
    var queryCount: Int { calls.withLock { $0 } }
    var needsSavedObjects: Bool { true }
    var usesRowCache: Bool { false }

    /// The store, or an error when it was released while the coordinator still used it.
    func liveStore() throws -> NSIncrementalStore {
        guard let store else {
            throw CoreDataError(NSPersistentStoreOperationError, "The incremental store was released while the coordinator still used it.")
        }
        calls.withLock { $0 += 1 }
        return store
    }

    /// The context reading in `scope`: the one whose fetch or fault reads, else the one running a
    /// `perform` block.
    func readingContext(_ scope: StoreReadScope) -> NSManagedObjectContext? { scope.context ?? PerformingContext.current }

    /// A context for a method whose context argument is not optional, when no context is reading (a
    /// merge of another context's save): one of the coordinator's own, made for the call.
    func someContext(_ scope: StoreReadScope) throws -> NSManagedObjectContext {
        if let context = readingContext(scope) { return context }
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = try liveStore().persistentStoreCoordinator
        return context
    }

    // MARK: Fetching

    /// The request the store is asked for a plan: the plan's entity, predicate, sorts and (when
    /// `limited`) window, as `resultType`.
    func request(_ plan: FetchPlan, limited: Bool, resultType: NSFetchRequestResultType) -> NSFetchRequest<NSFetchRequestResult> {
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: plan.entity.name ?? "")
        request.entity = plan.entity
        request.predicate = plan.predicate.map { NSPredicate(node: $0) }
        request.sortDescriptors = plan.descriptors.isEmpty ? nil : plan.descriptors
        request.includesSubentities = plan.entityIDs.map { $0 != [plan.layout.entityID] || plan.layout.entityIDs.count == 1 } ?? true
        if limited {
            request.fetchLimit = plan.limit
            request.fetchOffset = plan.offset
        }
        request.resultType = resultType
        return request
    }

    /// The IDs the store answers a plan with, in its order, asked for the context of `scope`.
    func objectIDs(_ plan: FetchPlan, limited: Bool, _ scope: StoreReadScope) throws -> [NSManagedObjectID] {
        let store = try liveStore()
        let answer = try store.execute(request(plan, limited: limited, resultType: .managedObjectIDResultType), with: readingContext(scope))
        guard let results = answer as? [Any] ?? (answer as? NSArray).map({ $0.map { $0 } }) else {
            throw CoreDataError(NSPersistentStoreOperationError, "\(type(of: store)).execute(_:with:) answered a fetch of \(plan.entity.name ?? "?") with \(type(of: answer)), not an array")
        }
        return try results.map { result in
            switch result {
            case let id as NSManagedObjectID: return id
            case let object as NSManagedObject: return object.objectID
            default:
                throw CoreDataError(NSPersistentStoreOperationError, "\(type(of: store)).execute(_:with:) answered a fetch of object IDs with \(type(of: result))")
            }
        }
    }

    func fetchRows(_ plan: FetchPlan, withValues: Bool, limited: Bool, in scope: StoreReadScope) throws -> [StoreRow] {
        let ids = try objectIDs(plan, limited: limited, scope)
        guard withValues else { return try ids.map { StoreRow(pk: try pk($0), entityID: entityID($0), version: 0, values: nil) } }
        let context = try someContext(scope)
        return try ids.map { try row(of: $0, context: context) }
    }

    func fetchKeys(_ plan: FetchPlan, in scope: StoreReadScope) throws -> (pks: [Int64], entityRuns: [EntityRun]) {
        let ids = try objectIDs(plan, limited: true, scope)
        var runs: [EntityRun] = []
        for (i, id) in ids.enumerated() where runs.last?.entityID != entityID(id) {
            runs.append(EntityRun(start: i, entityID: entityID(id)))
        }
        return (try ids.map(pk), runs)
    }

    func count(_ plan: FetchPlan, in scope: StoreReadScope) throws -> Int {
        let store = try liveStore()
        let answer = try store.execute(request(plan, limited: true, resultType: .countResultType), with: readingContext(scope))
        let number = (answer as? [Any])?.first ?? (answer as? NSArray)?.firstObject ?? answer
        switch number {
        case let n as NSNumber: return n.intValue
        case let n as Int: return n
        default:
            throw CoreDataError(NSPersistentStoreOperationError, "\(type(of: store)).execute(_:with:) answered a count of \(plan.entity.name ?? "?") with \(type(of: answer)), not an array holding an NSNumber")
        }
    }

    func fetchColumns(_ plan: FetchPlan, _ columns: DictionaryColumns, in scope: StoreReadScope, row: ([Value]) throws -> Void) throws {
        throw CoreDataError(NSPersistentStoreUnsupportedRequestTypeError,
                            "a fetch of \(plan.entity.name ?? "?") into dictionaries (.dictionaryResultType) is not supported on an NSIncrementalStore: fetch objects or their IDs")
    }

    // MARK: Rows

    func loadRows(_ keys: [ObjectKey], in scope: StoreReadScope) throws -> [ObjectKey: StoreRow] {
        let context = try someContext(scope)
        var rows: [ObjectKey: StoreRow] = [:]
        for key in keys {
            guard let id = objectID(key), let row = try rowUnlessGone(of: id, context: context) else { continue }
            rows[key] = row
        }
        return rows
    }

    func loadRows(root: Int, pks: [Int64], in scope: StoreReadScope) throws -> [StoreRow?] {
        let context = try someContext(scope)
        return try pks.map { pk in
            guard let id = objectID(.permanent(root: root, pk: pk)) else { return nil }
            return try rowUnlessGone(of: id, context: context)
        }
    }

    /// ``row(of:context:)``, `nil` when the store has no such record (it threw
    /// `NSManagedObjectReferentialIntegrityError`); any other error is a failed read and is thrown, never
    /// shown as a deleted object.
    func rowUnlessGone(of id: NSManagedObjectID, context: NSManagedObjectContext) throws -> StoreRow? {
        do { return try row(of: id, context: context) } catch let error as CoreDataError where error.code == NSManagedObjectReferentialIntegrityError {
            return nil
        }
    }

    /// The row of an object: its node's values by slot and version. A to-one the node leaves out is asked
    /// of the store; to-many relationships are left as faults, asked when first read.
    func row(of id: NSManagedObjectID, context: NSManagedObjectContext) throws -> StoreRow {
        let store = try liveStore()
        let node = try store.newValuesForObject(with: id, with: context)
        let layout = id.entity.layout!
        var values = layout.defaultValues
        for slot in layout.persistentSlots {
            let property = layout.properties[slot]
            if let r = layout.relationship(slot) {
                if r.isToMany { values[slot] = ToManyFault.value; continue }
                let raw = try node.value(for: property) ?? store.newValue(forRelationship: r.relationship, forObjectWith: id, with: context)
                values[slot] = try reference(raw, of: id, property.name).map(\.value) ?? .null
            } else if layout.attribute(slot)?.attributeType == .transformableAttributeType {
                values[slot] = TransformableValue.slotValue(Self.unwrapNull(node.value(for: property)))
            } else {
                values[slot] = Value(any: Self.unwrapNull(node.value(for: property)))
            }
        }
        return StoreRow(pk: try pk(id), entityID: layout.entityID, version: Int64(truncatingIfNeeded: node.version), values: values)
    }

    private static func unwrapNull(_ value: Any?) -> Any? { value is NSNull ? nil : value }

    /// A relationship value's destination: `nil` for `NSNull` or nil.
    func reference(_ raw: Any?, of id: NSManagedObjectID, _ name: String) throws -> ObjectRef? {
        switch raw {
        case nil, is NSNull: return nil
        case let destination as NSManagedObjectID: return ObjectRef(key: destination.key, entityID: entityID(destination))
        case let object as NSManagedObject: return ObjectRef(key: object.objectID.key, entityID: entityID(object.objectID))
        default:
            throw CoreDataError(NSPersistentStoreOperationError, "the incremental store gave \(type(of: raw!)) for the relationship \(name) of \(id); relationships hold NSManagedObjectIDs")
        }
    }

    // MARK: Relationships

    func loadRelationship(_ r: RelationshipLayout, owner: Int64, in scope: StoreReadScope) throws -> [ObjectRef] {
        let owners = try loadRelationship(r, owners: [owner], in: scope)
        return owners[owner] ?? []
    }

    func loadRelationship(_ r: RelationshipLayout, owners: [Int64], in scope: StoreReadScope) throws -> [Int64: [ObjectRef]] {
        let store = try liveStore()
        guard let root = r.relationship.entity?.layout?.rootEntityID else { return [:] }
        var result: [Int64: [ObjectRef]] = [:]
        for owner in owners {
            guard let id = objectID(.permanent(root: root, pk: owner)) else { continue }
            let raw = try store.newValue(forRelationship: r.relationship, forObjectWith: id, with: readingContext(scope))
            result[owner] = try members(raw, of: id, r.relationship.name)
        }
        return result
    }

    func prefetchToMany(_ r: RelationshipLayout, owners: [Int64], in scope: StoreReadScope) throws -> [(owner: Int, row: StoreRow)] {
        let members = try loadRelationship(r, owners: owners, in: scope)
        let context = try someContext(scope)
        var rows: [(owner: Int, row: StoreRow)] = []
        for (i, owner) in owners.enumerated() {
            for member in members[owner] ?? [] {
                guard let id = objectID(member.key), let row = try rowUnlessGone(of: id, context: context) else { continue }
                rows.append((i, row))
            }
        }
        return rows
    }

    /// A to-many value's members, in order for an ordered collection.
    private func members(_ raw: Any, of id: NSManagedObjectID, _ name: String) throws -> [ObjectRef] {
        let list: [Any]
        switch raw {
        case is NSNull: list = []
        case let s as NSOrderedSet: list = s.array
        case let s as NSSet: list = s.allObjects
        case let s as Set<NSManagedObjectID>: list = Array(s)
        case let a as [Any]: list = a
        case let a as NSArray: list = a.map { $0 }
        default:
            throw CoreDataError(NSPersistentStoreOperationError, "the incremental store gave \(type(of: raw)) for the to-many relationship \(name) of \(id); to-many relationships hold collections of NSManagedObjectIDs")
        }
        // Each member once (an array may name one twice), as a to-many slot holds them.
        var seen = Set<ObjectKey>()
        return try list.compactMap { try reference($0, of: id, name) }.filter { seen.insert($0.key).inserted }
    }

    // MARK: Keys

    /// The primary key of an ID of this store.
    func pk(_ id: NSManagedObjectID) throws -> Int64 {
        guard case .permanent(_, let pk) = id.key, id.storeIdentifier == identifier || id.storeIdentifier.isEmpty else {
            throw CoreDataError(NSPersistentStoreOperationError, "\(id) is not an ID this store made with newObjectID(for:referenceObject:)")
        }
        return pk
    }

    func entityID(_ id: NSManagedObjectID) -> Int { id.entity.layout?.entityID ?? 0 }

    /// The ID of a key whose reference object the store gave (`nil`: none).
    func objectID(_ key: ObjectKey) -> NSManagedObjectID? {
        guard case .permanent = key, let number = store?.entityNumber(of: key),
              let entity = model.entity(number: number) else { return nil }
        return NSManagedObjectID(entity: entity, key: key, storeIdentifier: identifier)
    }

    func allocateKeys(root: Int, count: Int) throws -> [Int64] {
        throw CoreDataError(NSPersistentStoreOperationError, "an incremental store's objects get their IDs from obtainPermanentIDs(for:)")
    }

    func generation() throws -> String { "" }
}
