import Foundation
import OpenCoreDataPredicates

/// What a column of a migrated row holds, in terms of its source row (alias `t`).
enum ColumnValue {
    case null
    /// The source row's column of that name.
    case column(String)
    /// A bound value (an added attribute's default).
    case value(Value)
    /// The source row's column, or the bound value where it is `NULL` (an attribute made required, with a default).
    case coalesce(String, Value)
    /// An expression over the source row and the source tables (relationships that changed storage).
    case sql(String)

    /// The SQL text, with its bound values in placeholder order.
    var text: (String, [Value]) {
        switch self {
        case .null: return ("NULL", [])
        case .column(let name): return ("t.\(name)", [])
        case .value(let v): return ("?", [v])
        case .coalesce(let name, let v): return ("coalesce(t.\(name), ?)", [v])
        case .sql(let s): return (s, [])
        }
    }
}

/// A relationship's pairs as the source store keeps them: owner key `a`, member key `b`, the member's
/// position in the owner's list `oa` and the owner's in the member's `ob` (`NULL` when unordered), read
/// `FROM from WHERE filter`.
struct RelationshipEdges {
    let from: String, a: String, b: String, oa: String, ob: String, filter: String
}

extension InPlaceMigration {
    /// Each column of the destination table of `d` (by name) for a row of `d` migrated from a row of its
    /// source entity; `names` gives each source table's current name.
    func rowValues(for d: NSEntityDescription, names: [String: String]) -> [String: ColumnValue] {
        var values: [String: ColumnValue] = [:]
        let layout = d.layout!
        for slot in layout.columnSlots {
            switch layout.kinds[slot] {
            case .attribute:
                guard let column = layout.columns[slot], let a = layout.properties[slot] as? NSAttributeDescription else { continue }
                values[column] = attributeValue(a, slot: slot, in: d)
            case .toOne(let r):
                guard case .foreignKey(let column, let entityColumn) = r.storage else { continue }
                toOneValues(r, column: column, entityColumn: entityColumn, in: d, names: names, into: &values)
            case .toMany: continue
            }
        }
        return values
    }

    /// An attribute: its source column (with the default where it was optional and now is required),
    /// else its default value, else `NULL`.
    private func attributeValue(_ a: NSAttributeDescription, slot: Int, in d: NSEntityDescription) -> ColumnValue {
        let fallback = Self.bindable(d.layout.defaultValues[slot])
        guard let (s, sourceSlot) = sourceProperty(of: a, in: d), let column = s.layout.columns[sourceSlot],
              let old = s.layout.properties[sourceSlot] as? NSAttributeDescription else {
            return fallback.map(ColumnValue.value) ?? .null
        }
        if !a.isOptional, old.isOptional, let fallback { return .coalesce(column, fallback) }
        return .column(column)
    }

    /// A default value that can be bound (a transformable attribute's default object cannot: `NULL`).
    static func bindable(_ value: Value) -> Value? {
        switch value {
        case .null, .array, .set, .object: return nil
        default: return value
        }
    }

    /// A to-one's key column, its entity column and its order column (`Z_FOK_`, when the inverse is an
    /// ordered to-many) for a migrated row.
    private func toOneValues(_ r: RelationshipLayout, column: String, entityColumn: String?, in d: NSEntityDescription,
                             names: [String: String], into values: inout [String: ColumnValue]) {
        let inverseOrdered = r.relationship.inverseRelationship.map { $0.isToMany && $0.isOrdered && !$0.isTransient } ?? false
        let orderColumn = inverseOrdered ? "Z_FOK_" + r.relationship.name.uppercased() : nil
        guard let (s, slot) = sourceProperty(of: r.relationship, in: d), let old = s.layout.kinds[slot].relationship else {
            values[column] = .null
            if let entityColumn { values[entityColumn] = .null }
            if let orderColumn { values[orderColumn] = .null }
            return
        }
        let key: ColumnValue
        var order: ColumnValue = .sql("t.Z_PK")
        if case .foreignKey(let oldColumn, let oldEntityColumn) = old.storage {
            key = .column(oldColumn)
            if let entityColumn {
                values[entityColumn] = oldEntityColumn.map { renumberedColumn($0) } ?? targetEntity(of: r, key: "t.\(oldColumn)", names: names)
            }
            let oldInverse = old.relationship.inverseRelationship
            if oldInverse.map({ $0.isToMany && $0.isOrdered && !$0.isTransient }) ?? false {
                order = .column("Z_FOK_" + old.relationship.name.uppercased())
            }
        } else if let edges = edges(of: old, names: names) {
            let lookup = "FROM \(edges.from) WHERE \(edges.filter) AND \(edges.a) = t.Z_PK"
            let sort = (edges.oa == "NULL" ? "" : "\(edges.oa), ") + edges.b
            key = .sql("(SELECT \(edges.b) \(lookup) ORDER BY \(sort) LIMIT 1)")
            if edges.ob != "NULL" { order = .sql("(SELECT \(edges.ob) \(lookup) ORDER BY \(sort) LIMIT 1)") }
            if let entityColumn { values[entityColumn] = targetEntity(of: r, key: key.text.0, names: names) }
        } else {
            key = .null
        }
        values[column] = key
        if let orderColumn { values[orderColumn] = order }
    }

    /// An entity column, renumbered: the column itself when no entity changes number.
    private func renumberedColumn(_ column: String) -> ColumnValue {
        let expr = renumbered("t.\(column)")
        return expr == "t.\(column)" ? .column(column) : .sql(expr)
    }

    /// The destination entity number of the row a to-one's key names, read from the source table that
    /// holds the destination entity's rows.
    private func targetEntity(of r: RelationshipLayout, key: String, names: [String: String]) -> ColumnValue {
        guard let target = r.relationship.destinationEntity, let s = sourceEntity[ObjectIdentifier(target)] else { return .null }
        let table = names[sourceTable(of: s).name] ?? sourceTable(of: s).name
        return .sql("(SELECT \(renumbered("u.Z_ENT")) FROM \(table) u WHERE u.Z_PK = \(key))")
    }

    /// Where the source store keeps a relationship's pairs.
    func edges(of r: RelationshipLayout, names: [String: String]) -> RelationshipEdges? {
        func current(_ name: String) -> String { names[name] ?? name }
        guard let owner = r.relationship.entity else { return nil }
        switch r.storage {
        case .foreignKey(let column, _):
            let inverse = r.relationship.inverseRelationship
            let ordered = inverse.map { $0.isToMany && $0.isOrdered && !$0.isTransient } ?? false
            return RelationshipEdges(from: "\(current(sourceTable(of: owner).name)) e", a: "e.Z_PK", b: "e.\(column)", oa: "NULL",
                                     ob: ordered ? "e.Z_FOK_\(r.relationship.name.uppercased())" : "NULL",
                                     filter: "e.\(column) IS NOT NULL AND e.Z_ENT IN (\(Self.list(owner.layout.entityIDs)))")
        case .inverseForeignKey(let column, let orderColumn):
            let target = r.destination
            return RelationshipEdges(from: "\(current(sourceTable(of: target).name)) e", a: "e.\(column)", b: "e.Z_PK",
                                     oa: orderColumn.map { "e.\($0)" } ?? "NULL", ob: "NULL",
                                     filter: "e.\(column) IS NOT NULL AND e.Z_ENT IN (\(Self.list(target.layout.entityIDs)))")
        case .joinTable(let j):
            return RelationshipEdges(from: "\(current(j.name)) e", a: "e.\(j.sourceColumn)", b: "e.\(j.destinationColumn)",
                                     oa: j.orderColumn.map { "e.\($0)" } ?? "NULL", ob: j.otherOrderColumn.map { "e.\($0)" } ?? "NULL",
                                     filter: "1 = 1")
        case .none:
            return nil
        }
    }

    static func list(_ numbers: [Int]) -> String { numbers.map(String.init).joined(separator: ", ") }
}
