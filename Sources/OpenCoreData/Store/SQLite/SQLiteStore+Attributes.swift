import Foundation
import Logging

/// Problems the store meets reading values (a transformer that cannot read stored data, a missing
/// external file): logged, and the value reads as nil.
let storeLogger = Logger(label: "OpenCoreData.store")

/// What a save does to a row's attributes beyond binding them: derived slots are the store's, a
/// transformable value becomes data, a large external-storage value a file.
extension SQLiteStore {
    /// Sets up the writer connection: the model's fetch indexes (see ``ModelIndexes``), the temporary
    /// table and triggers of derived attributes, and removes
    /// external files that no row names (a crash between a file's write and the commit).
    func prepareAttributes() throws {
        try wrap {
            try write { db in
                for index in ModelIndexes.indexes(entities) { try db.execute(.createIndex(index)) }
                try createUniqueIndexes(db)
                guard !derivedColumns.isEmpty else { return }
                try db.execute(DerivedColumn.createDirtyTableSQL)
                for d in derivedColumns { for t in d.triggers { try db.execute(t) } }
            }
        }
        if let externalStorage, FileManager.default.fileExists(atPath: externalStorage.directory.path) {
            var referenced = Set<String>()
            try wrap {
                try write { db in
                    for table in tables.values {
                        for (name, type) in table.columns where type == .binaryDataAttributeType && externalColumns.contains(name) {
                            try db.query("SELECT \(name) FROM \(table.name) WHERE typeof(\(name)) = 'text'") { row in
                                if case .string(let s) = row.value(0, as: .stringAttributeType) { referenced.insert(s) }
                            }
                        }
                    }
                }
            }
            externalStorage.removeOrphans(referenced: referenced)
        }
    }

    /// Makes the unique index of each uniqueness constraint. An existing store whose rows already break
    /// a constraint keeps its rows: the store is not added, and the error names the entity, the
    /// properties and how many values are taken more than once (the values themselves are not shown).
    private func createUniqueIndexes(_ db: SQLiteConnection) throws {
        for (constraint, index) in ModelIndexes.unique(model, within: tables) {
            do {
                try db.execute(.createIndex(index))
            } catch {
                let layout = constraint.entity.layout!
                let columns = constraint.slots.map { layout.columnNames(slots: [$0])[0] }.joined(separator: ", ")
                let scope = index.condition.map { " WHERE " + SQLitePrinter.text($0) } ?? ""
                var groups: Int64 = 0
                try? db.query("SELECT COUNT(*) FROM (SELECT 1 FROM \(layout.tableName)\(scope) GROUP BY \(columns) HAVING COUNT(*) > 1)") { groups = $0.int64(0) }
                throw CoreDataError(NSPersistentStoreOperationError,
                                    "The store at \(path) cannot take the uniqueness constraint \(constraint.entity.name ?? "?") (\(constraint.names.joined(separator: ", "))): \(groups) value\(groups == 1 ? " is" : "s are") held by more than one row, so the unique index \(constraint.indexName) cannot be created. No row was changed; remove the duplicates with a model without the constraint, then add the store again.",
                                    userInfo: [NSFilePathErrorKey: path, NSUnderlyingErrorKey: error])
            }
        }
    }

    /// Columns of attributes with external binary storage.
    var externalColumns: Set<String> {
        var result = Set<String>()
        for e in entities {
            for slot in e.layout.columnSlots where e.layout.attribute(slot)?.allowsExternalBinaryDataStorage == true
                && e.layout.attribute(slot)?.attributeType == .binaryDataAttributeType {
                result.insert(e.layout.columns[slot]!)
            }
        }
        return result
    }

    /// The slots a save writes for a row: the given ones without the derived slots.
    func writtenSlots(_ layout: EntityLayout, _ slots: [Int]) -> [Int] {
        guard let derived = derivedSlots[layout.entityID] else { return slots }
        return slots.filter { !derived.contains($0) }
    }

    /// The SQL argument for an attribute slot: nil for a derived slot (the store computes it after the
    /// write), a transformable value's data, a large external-storage value's new file name, else the value.
    func storedArgument(_ layout: EntityLayout, slot: Int, _ value: Value) throws -> Value {
        guard let special = specialSlots[layout.entityID], special.contains(slot) else { return value }
        if derivedSlots[layout.entityID]?.contains(slot) == true { return .null }
        guard let attribute = layout.attribute(slot), !value.isNull else { return value }
        switch attribute.attributeType {
        case .transformableAttributeType:
            return try AttributeTransform(attribute: attribute).data(for: value, entityName: layout.properties[slot].entity?.name ?? "?")
        case .binaryDataAttributeType where attribute.allowsExternalBinaryDataStorage:
            guard let externalStorage, let files = saveFiles, case .data(let data) = value,
                  data.count > ExternalBinaryStorage.threshold else { return value }
            let name = try externalStorage.write(data)
            files.written.append(name)
            return .string(name)
        default:
            return value
        }
    }

    /// The external files a row names in some slots now (read before the row is updated or deleted).
    func externalFiles(_ layout: EntityLayout, pk: Int64, slots: [Int], _ db: SQLiteConnection) throws -> [String] {
        guard let columns = externalColumns(layout, slots: slots) else { return [] }
        return try externalFiles(columns, sql: "SELECT \(columns.joined(separator: ", ")) FROM \(table(for: layout).name) WHERE Z_PK = ?", [.int(pk)], db)
    }

    /// The external files some rows of one entity name in some slots now, one query per chunk of keys.
    func externalFiles(_ layout: EntityLayout, pks: [Int64], slots: [Int], _ db: SQLiteConnection) throws -> [String] {
        guard !pks.isEmpty, let columns = externalColumns(layout, slots: slots) else { return [] }
        return try SQLiteKeyList(pks, json: usesJSONKeyLists).chunks.flatMap { chunk in
            try externalFiles(columns, sql: "SELECT \(columns.joined(separator: ", ")) FROM \(table(for: layout).name) WHERE Z_PK IN \(chunk.inOperand)",
                              chunk.arguments, db)
        }
    }

    /// The columns of some slots that may name external files; `nil` when none may (or the store keeps none).
    func externalColumns(_ layout: EntityLayout, slots: [Int]) -> [String]? {
        guard externalStorage != nil else { return nil }
        let columns = slots.compactMap { slot -> String? in
            guard let a = layout.attribute(slot), a.allowsExternalBinaryDataStorage, a.attributeType == .binaryDataAttributeType else { return nil }
            return layout.columns[slot]
        }
        return columns.isEmpty ? nil : columns
    }

    /// The files named in the rows a statement returns (each row's `columns`, in order); `eachRow` is called
    /// per row.
    func externalFiles(_ columns: [String], sql: String, _ arguments: [Value], _ db: SQLiteConnection,
                       eachRow: () -> Void = {}) throws -> [String] {
        var names: [String] = []
        try db.query(sql, arguments) { row in
            eachRow()
            for i in columns.indices where row.isText(Int32(i)) {
                if case .string(let s) = row.value(Int32(i), as: .stringAttributeType) { names.append(s) }
            }
        }
        return names
    }

    /// The persistent attribute slots of a layout (for deletes: every external file of the row goes).
    func attributeSlots(_ layout: EntityLayout) -> [Int] {
        layout.columnSlots.filter { layout.attribute($0) != nil }
    }

    /// Recomputes the derived values of the rows the save's writes marked (see ``DerivedColumn``), and
    /// returns those rows as they are now, by key. Updated rows in `outcome` take their new derived
    /// values too.
    func applyDerived(_ outcome: inout StoreSaveOutcome, _ db: SQLiteConnection) throws {
        guard !derivedColumns.isEmpty else { return }
        let now = Value.date(Date())
        for d in derivedColumns {
            try db.run(d.updateSQL, d.valueSQL == nil ? [now] : [])
        }
        var byRoot: [Int: Set<Int64>] = [:]
        let roots = Dictionary(uniqueKeysWithValues: derivedColumns.map { ($0.number, $0.rootEntityID) })
        try db.query("SELECT Z_ATTRIBUTE, Z_PK FROM Z_OCDDERIVED") { row in
            if let root = roots[Int(row.int64(0))] { byRoot[root, default: []].insert(row.int64(1)) }
        }
        try db.run("DELETE FROM Z_OCDDERIVED")
        for (root, pks) in byRoot {
            for (pk, row) in try loadRows(root: root, pks: Array(pks), db) {
                let key = ObjectKey.permanent(root: root, pk: pk)
                outcome.derivedRows[key] = row
                guard let slots = derivedSlots[row.entityID], let values = row.values,
                      case .some(.some(let written)) = outcome.rows[key], var patched = written.values else { continue }
                for slot in slots where slot < patched.count { patched[slot] = values[slot] }
                outcome.rows[key] = StoreRow(pk: pk, entityID: written.entityID, version: written.version, values: patched)
            }
        }
    }
}
