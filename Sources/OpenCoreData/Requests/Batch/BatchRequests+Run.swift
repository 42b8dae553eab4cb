import Foundation

extension NSBatchUpdateRequest {
    func run(on coordinator: NSPersistentStoreCoordinator, origin: HistoryOrigin) throws -> NSPersistentStoreResult {
        let model = coordinator.managedObjectModel
        let entity = try resolvedEntity(in: model)
        guard let properties = propertiesToUpdate, !properties.isEmpty else {
            throw CoreDataError(NSPersistentStoreOperationError, "The batch update of \(entity.name ?? "?") has no propertiesToUpdate.")
        }
        let assignments = try properties.map { try assignment($0.key, $0.value, entity) }.sorted { $0.slot < $1.slot }
        let fetch = NSFetchRequest<NSManagedObject>()
        fetch.entity = entity
        fetch.predicate = predicate
        fetch.includesSubentities = includesSubentities
        let plan = try FetchPlan(fetch, model: model)
        let written = try coordinator.writeBatch(for: entity, self) { store, _ in
            let rows = try store.batchUpdate(plan, assignments, origin: origin)
            return (rows, rows)
        }
        switch resultType {
        case .statusOnlyResultType: return NSBatchUpdateResult(result: NSNumber(value: true), resultType: resultType)
        case .updatedObjectsCountResultType: return NSBatchUpdateResult(result: NSNumber(value: written.map(\.result.count).reduce(0, +)), resultType: resultType)
        case .updatedObjectIDsResultType:
            return NSBatchUpdateResult(result: written.flatMap { coordinator.objectIDs($0.result, storeIdentifier: $0.storeIdentifier) }, resultType: resultType)
        }
    }

    /// One entry of `propertiesToUpdate`: a constant (checked against the attribute now) or an
    /// expression the store computes per row.
    private func assignment(_ key: AnyHashable, _ value: Any, _ entity: NSEntityDescription) throws -> BatchAssignment {
        let (slot, attribute) = try BatchRequests.attribute(key, of: entity)
        let name = entity.name ?? "?"
        var constant: Any? = value
        if let expression = value as? NSExpression {
            guard case .constant(let v) = expression.node else {
                guard attribute.attributeType != .transformableAttributeType,
                      !(attribute.attributeType == .binaryDataAttributeType && attribute.allowsExternalBinaryDataStorage) else {
                    throw CoreDataError(NSManagedObjectValidationError,
                                        "\(name).\(attribute.name) takes a constant in a batch update, not an expression: its stored form is not its value.",
                                        userInfo: [NSValidationKeyErrorKey: attribute.name])
                }
                return BatchAssignment(slot: slot, source: .expression(expression.node, attribute.attributeType))
            }
            constant = v.anyValue
        }
        let stored = try BatchRequests.attributeValue(constant, attribute, entityName: name)
        if stored.isNull && !attribute.isOptional {
            throw CoreDataError(NSValidationMissingMandatoryPropertyError, "\(name).\(attribute.name) is a required value; a batch update cannot set it to nil.",
                                userInfo: [NSValidationKeyErrorKey: attribute.name])
        }
        return BatchAssignment(slot: slot, source: .value(stored))
    }
}

extension NSBatchDeleteRequest {
    func run(on coordinator: NSPersistentStoreCoordinator, origin: HistoryOrigin) throws -> NSPersistentStoreResult {
        let model = coordinator.managedObjectModel
        let entity: NSEntityDescription
        let target: (NSPersistentStore) -> BatchDeleteTarget
        if let objectIDs {
            guard let first = objectIDs.first else { return result([], []) }
            entity = try BatchRequests.entity(first.entity, named: first.entity.name ?? "", in: model)
            var pks: [(tag: Int, pk: Int64)] = []
            for id in objectIDs {
                guard id.entity.name == entity.name else {
                    throw CoreDataError(NSPersistentStoreOperationError, "A batch delete's object IDs must all be of one entity: \(entity.name ?? "?") and \(id.entity.name ?? "?") are mixed.")
                }
                guard case .permanent(let root, let pk) = id.key, ObjectKey.entityRoot(root) == entity.layout!.rootEntityID else {
                    throw CoreDataError(NSPersistentStoreOperationError, "A batch delete cannot delete an object that was never saved (a temporary ID of \(entity.name ?? "?")).")
                }
                pks.append((ObjectKey.tag(root), pk))
            }
            let root = entity.layout!.rootEntityID
            // Each store deletes the IDs of its own rows (by the store tag in their keys).
            target = { store in .keys(root: root, pks: pks.filter { $0.tag == store.keyTag }.map(\.pk)) }
        } else {
            entity = try BatchRequests.entity(fetchRequest.entity, named: fetchRequest.entityName ?? "", in: model)
            let plan = try FetchPlan(fetchRequest, model: model)
            target = { _ in .matching(plan) }
        }
        let deleted = try coordinator.writeBatch(for: entity, self) { store, persistentStore in
            let outcome = try store.batchDelete(target(persistentStore), origin: origin)
            return (outcome.deleted, outcome.deleted + outcome.nullified)
        }
        let ids = resultType == .resultTypeObjectIDs ? deleted.flatMap { coordinator.objectIDs($0.result, storeIdentifier: $0.storeIdentifier) } : []
        return result(deleted.flatMap(\.result), ids)
    }

    private func result(_ rows: [BatchRow], _ ids: [NSManagedObjectID]) -> NSBatchDeleteResult {
        switch resultType {
        case .resultTypeStatusOnly: return NSBatchDeleteResult(result: NSNumber(value: true), resultType: resultType)
        case .resultTypeCount: return NSBatchDeleteResult(result: NSNumber(value: rows.count), resultType: resultType)
        case .resultTypeObjectIDs: return NSBatchDeleteResult(result: ids, resultType: resultType)
        }
    }
}

extension NSBatchInsertRequest {
    func run(on coordinator: NSPersistentStoreCoordinator, origin: HistoryOrigin) throws -> NSPersistentStoreResult {
        let model = coordinator.managedObjectModel
        let entity = try resolvedEntity(in: model)
        // Into one store, as an object's insert: the first that holds the entity and the request reaches.
        let (written, store) = try coordinator.writeBatch(for: entity, self, firstOnly: true) { store, _ in
            let needsGiven = store.tracksHistory || !UniquenessConstraint.applying(to: entity).isEmpty
            let (written, updated) = try store.batchInsert(entity.layout!, try objects(of: entity, needsGiven: needsGiven), origin: origin)
            return (written, updated)  // new rows were in no cache
        }[0]
        switch resultType {
        case .statusOnly: return NSBatchInsertResult(result: NSNumber(value: true), resultType: resultType)
        case .count: return NSBatchInsertResult(result: NSNumber(value: written.count), resultType: resultType)
        case .objectIDs: return NSBatchInsertResult(result: coordinator.objectIDs(written, storeIdentifier: store), resultType: resultType)
        }
    }

    /// The objects to write, from the array or the handler, checked.
    private func objects(of entity: NSEntityDescription, needsGiven: Bool) throws -> [BatchInsertRow] {
        let columns = BatchInsertColumns(entity, needsGiven: needsGiven)
        if let objectsToInsert { return try objectsToInsert.map(columns.row) }
        var rows: [BatchInsertRow] = []
        if let dictionaryHandler {
            while true {
                let dictionary = NSMutableDictionary()
                if dictionaryHandler(dictionary) { break }
                var values: [String: Any] = [:]
                for key in dictionary.allKeys {
                    guard let name = (key as? String) ?? (key as? NSString).map({ String(describing: $0) }) else { continue }
                    values[name] = dictionary.object(forKey: key)
                }
                rows.append(try columns.row(values))
            }
            return rows
        }
        if let managedObjectHandler {
            let layout = entity.layout!
            while true {
                let object = layout.objectClass.init(entity: entity, insertInto: nil)
                if managedObjectHandler(object) { break }
                var values: [String: Any] = [:]
                for slot in layout.columnSlots {
                    guard let attribute = layout.attribute(slot), !attribute.isTransient, attribute.attributeType != .compositeAttributeType,
                          let value = object.value(forKey: attribute.name) else { continue }
                    values[attribute.name] = value
                }
                rows.append(try columns.row(values))
            }
            return rows
        }
        throw CoreDataError(NSPersistentStoreOperationError, "The batch insert into \(entity.name ?? "?") has no objectsToInsert, dictionaryHandler or managedObjectHandler.")
    }
}

/// The attributes a batch insert may be given, by name, resolved once per request: each row then costs a
/// dictionary lookup and a value conversion per value.
struct BatchInsertColumns {
    struct Column {
        let slot: Int
        let attribute: NSAttributeDescription
        let type: NSAttributeType
    }
    let entity: NSEntityDescription
    let layout: EntityLayout
    let entityName: String
    private let byName: [String: Column]
    /// Required attributes without a default: a row must give each.
    private let required: [Column]
    /// Whether rows list the slots they give (for upserts and history).
    private let needsGiven: Bool

    init(_ entity: NSEntityDescription, needsGiven: Bool) {
        self.needsGiven = needsGiven
        self.entity = entity
        let layout = entity.layout!
        self.layout = layout
        entityName = entity.name ?? "?"
        var byName: [String: Column] = [:]
        for (name, slot) in layout.slotByName {
            guard let attribute = try? BatchRequests.attribute(name, of: entity).attribute else { continue }
            byName[name] = Column(slot: slot, attribute: attribute, type: attribute.attributeType)
        }
        self.byName = byName
        required = layout.validatedAttributes.filter { !$0.attribute.isOptional && layout.defaultValues[$0.slot].isNull }
            .map { Column(slot: $0.slot, attribute: $0.attribute, type: $0.type) }
    }

    /// One object of a batch insert: the given attributes checked, the rest their defaults, required
    /// values present.
    func row(_ dictionary: [String: Any]) throws -> BatchInsertRow {
        var values = layout.defaultValues
        var given: [Int] = []
        if needsGiven { given.reserveCapacity(dictionary.count) }
        for (key, any) in dictionary {
            guard let column = byName[key] else {
                _ = try BatchRequests.attribute(key, of: entity)  // throws, naming the entity and key
                continue
            }
            values[column.slot] = try BatchRequests.attributeValue(any, column.attribute, column.type, entityName: entityName)
            if needsGiven { given.append(column.slot) }
        }
        for column in required where values[column.slot].isNull {
            throw CoreDataError(NSValidationMissingMandatoryPropertyError, "\(entityName).\(column.attribute.name) is a required value; the batch insert gives none and it has no default.",
                                userInfo: [NSValidationKeyErrorKey: column.attribute.name])
        }
        if needsGiven { given.sort() }
        return BatchInsertRow(values: values, given: given)
    }
}
