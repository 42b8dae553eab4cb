import Foundation

/// A derived attribute (`NSDerivedAttributeDescription`) as the SQLite store computes it, as Core Data
/// does: in the store, when rows are written, so the value is there for fetches, sorts and other contexts.
///
/// Supported derivations (others make adding the store fail, as Core Data's does for a derivation its
/// store cannot compute):
///
/// | derivation | value | recomputed when |
/// |---|---|---|
/// | `name`, `a.b.name` (to-ones, then an attribute) | a copy of the value | the row is inserted, its source column or a to-one on the way changes, a row on the way is deleted |
/// | `canonical:(name)`, `canonical:(a.name)` | the string folded for case and diacritics, as `[cd]` folds it | the same |
/// | `items.@count` (a to-many) | the number of related objects | a member joins or leaves (from either side, deleted rows included) |
/// | `now()` | the date of the save that wrote the row | the row is inserted or updated |
///
/// The store finds the rows to recompute with temporary SQLite triggers on the writer connection
/// (`TEMP` triggers, not in the file), which record `(attribute, Z_PK)` in the temporary table
/// `Z_OCDDERIVED` whatever writes the rows (inserts, updates, deletes, join table rows, the merge
/// policy's writes). Before the commit each recorded row gets one `UPDATE … SET column = (value)`, and
/// the save hands the new values back to the contexts.
struct DerivedColumn {
    let number: Int
    let entityName: String
    let attributeName: String
    /// The storage slot (the same in the whole hierarchy).
    let slot: Int
    let rootEntityID: Int
    let table: String
    let column: String
    /// The owner's entity and subentity numbers.
    let entityIDs: [Int]
    /// The value for a row of `table` (named by the table itself), or `nil` for `now()` (bound).
    let valueSQL: String?
    /// `CREATE TEMP TRIGGER …` statements.
    let triggers: [String]

    /// `UPDATE ZITEM SET ZCOUNT = (…) WHERE Z_PK IN (SELECT Z_PK FROM Z_OCDDERIVED WHERE Z_ATTRIBUTE = 1)`
    var updateSQL: String {
        "UPDATE \(table) SET \(column) = \(valueSQL ?? "?") WHERE Z_PK IN (SELECT Z_PK FROM Z_OCDDERIVED WHERE Z_ATTRIBUTE = \(number))"
    }

    static let createDirtyTableSQL = "CREATE TEMP TABLE IF NOT EXISTS Z_OCDDERIVED (Z_ATTRIBUTE INTEGER, Z_PK INTEGER, PRIMARY KEY (Z_ATTRIBUTE, Z_PK)) WITHOUT ROWID"

    /// Every derived attribute of a model (declared on its entity; subentities inherit it), or an error
    /// naming the first derivation the store cannot compute.
    static func all(_ model: NSManagedObjectModel, _ tables: [Int: TableInfo]) throws -> [DerivedColumn] {
        var result: [DerivedColumn] = []
        for entity in model.entities {
            for case let attribute as NSDerivedAttributeDescription in entity.properties where !attribute.isTransient && attribute.entity === entity {
                result.append(try make(attribute, entity: entity, number: result.count + 1))
            }
        }
        return result
    }

    private static func fail(_ entity: NSEntityDescription, _ attribute: NSAttributeDescription, _ reason: String) -> CoreDataError {
        CoreDataError(NSPersistentStoreInvalidTypeError,
                      "The derived attribute \(entity.name ?? "?").\(attribute.name) cannot be computed by the SQLite store: \(reason). Supported: a key path (through to-one relationships) to an attribute, canonical:(keyPath), a to-many's @count, and now().",
                      userInfo: [NSValidationKeyErrorKey: attribute.name])
    }

    private static func make(_ attribute: NSDerivedAttributeDescription, entity: NSEntityDescription, number: Int) throws -> DerivedColumn {
        let layout = entity.layout!
        guard let expression = attribute.derivationExpression else { throw fail(entity, attribute, "it has no derivationExpression") }
        let slot = layout.slotByName[attribute.name]!
        let table = layout.tableName
        let ids = layout.entityIDs.map(String.init).joined(separator: ", ")
        let n = number
        let mark = "INSERT OR IGNORE INTO Z_OCDDERIVED (Z_ATTRIBUTE, Z_PK)"
        func trigger(_ name: String, _ event: String, on target: String, when: String?, _ body: String) -> String {
            "CREATE TEMP TRIGGER IF NOT EXISTS Z_OCDDERIVED_\(n)_\(name) AFTER \(event) ON main.\(target) FOR EACH ROW"
                + (when.map { " WHEN \($0)" } ?? "") + " BEGIN \(body); END"
        }
        let ownInsert = trigger("INSERT", "INSERT", on: table, when: "NEW.Z_ENT IN (\(ids))", "\(mark) VALUES (\(n), NEW.Z_PK)")
        func column(_ slot: Int) -> String { layout.columns[slot] ?? "" }
        func make(value: String?, triggers: [String]) -> DerivedColumn {
            DerivedColumn(number: n, entityName: entity.name ?? "", attributeName: attribute.name, slot: slot,
                          rootEntityID: layout.rootEntityID, table: table, column: column(slot), entityIDs: layout.entityIDs,
                          valueSQL: value, triggers: triggers)
        }

        var canonical = false
        var path: String
        switch expression.node {
        case .function("now", let args) where args.isEmpty:
            guard attribute.attributeType == .dateAttributeType else { throw fail(entity, attribute, "now() needs a Date attribute") }
            // Every save that writes the row advances Z_OPT; the store's own derived updates do not.
            return make(value: nil, triggers: [ownInsert, trigger("UPDATE", "UPDATE OF Z_OPT", on: table, when: "NEW.Z_ENT IN (\(ids))",
                                                                 "\(mark) VALUES (\(n), NEW.Z_PK)")])
        case .function("canonical:", let args) where args.count == 1:
            guard case .keyPath(let p) = args[0] else { throw fail(entity, attribute, "canonical: takes a key path") }
            guard attribute.attributeType == .stringAttributeType else { throw fail(entity, attribute, "canonical: needs a String attribute") }
            canonical = true
            path = p
        case .keyPath(let p):
            path = p
        default:
            throw fail(entity, attribute, "\(expression) is not a supported derivation")
        }

        let parts = path.split(separator: ".").map(String.init)
        // `items.@count`: a to-many of the entity, counted.
        if parts.count == 2, parts[1] == "@count" {
            guard let s = layout.slotByName[parts[0]], case .toMany(let r) = layout.kinds[s] else {
                throw fail(entity, attribute, "\(parts[0]) is not a to-many relationship of \(entity.name ?? "?")")
            }
            guard [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType].contains(attribute.attributeType) else {
                throw fail(entity, attribute, "@count needs an integer attribute")
            }
            switch r.storage {
            case .inverseForeignKey(let fk, _):
                let members = r.destination.layout.tableName
                let value = "(SELECT COUNT(*) FROM \(members) WHERE \(members).\(fk) = \(table).Z_PK)"
                return make(value: value, triggers: [
                    ownInsert,
                    trigger("MEMBER_INSERT", "INSERT", on: members, when: "NEW.\(fk) IS NOT NULL", "\(mark) VALUES (\(n), NEW.\(fk))"),
                    trigger("MEMBER_DELETE", "DELETE", on: members, when: "OLD.\(fk) IS NOT NULL", "\(mark) VALUES (\(n), OLD.\(fk))"),
                    trigger("MEMBER_UPDATE", "UPDATE OF \(fk)", on: members, when: nil,
                            "\(mark) SELECT \(n), OLD.\(fk) WHERE OLD.\(fk) IS NOT NULL; \(mark) SELECT \(n), NEW.\(fk) WHERE NEW.\(fk) IS NOT NULL"),
                ])
            case .joinTable(let t):
                let value = "(SELECT COUNT(*) FROM \(t.name) WHERE \(t.name).\(t.sourceColumn) = \(table).Z_PK)"
                return make(value: value, triggers: [
                    ownInsert,
                    trigger("MEMBER_INSERT", "INSERT", on: t.name, when: nil, "\(mark) VALUES (\(n), NEW.\(t.sourceColumn))"),
                    trigger("MEMBER_DELETE", "DELETE", on: t.name, when: nil, "\(mark) VALUES (\(n), OLD.\(t.sourceColumn))"),
                ])
            default:
                throw fail(entity, attribute, "\(parts[0]) is not stored")
            }
        }
        guard !parts.contains(where: { $0.hasPrefix("@") }) else { throw fail(entity, attribute, "\(path): only a to-many's @count is supported") }

        // A key path: to-ones, then an attribute.
        var hops: [(layout: EntityLayout, slot: Int)] = []  // the to-one slots, each in the layout it starts from
        var current = layout
        for (i, part) in parts.enumerated() {
            guard let s = current.slotByName[part] else { throw fail(entity, attribute, "\(path): no property \(part) in \(current.root.name ?? "?")") }
            if i == parts.count - 1 {
                guard case .attribute(let type) = current.kinds[s], current.columns[s] != nil else {
                    throw fail(entity, attribute, "\(path) does not end at a stored attribute")
                }
                if canonical, type != .stringAttributeType { throw fail(entity, attribute, "canonical: needs a String source") }
                hops.append((current, s))
            } else {
                guard case .toOne(let r) = current.kinds[s] else { throw fail(entity, attribute, "\(part) in \(path) is not a to-one relationship") }
                hops.append((current, s))
                current = r.destination.layout
            }
        }
        func fold(_ sql: String) -> String { canonical ? "ocd_fold(\(sql), 3)" : sql }
        let last = hops[hops.count - 1]
        guard hops.count > 1 else {
            let source = last.layout.columns[last.slot]!
            return make(value: fold("\(table).\(source)"), triggers: [
                ownInsert,
                trigger("UPDATE", "UPDATE OF \(source)", on: table, when: "NEW.Z_ENT IN (\(ids))", "\(mark) VALUES (\(n), NEW.Z_PK)"),
            ])
        }
        // (SELECT t2.ZNAME FROM ZB t1 JOIN ZC t2 ON t2.Z_PK = t1.ZC WHERE t1.Z_PK = ZA.ZB)
        var from = ""
        for i in 1..<hops.count {
            let t = hops[i].layout.tableName
            from += i == 1 ? "\(t) t1" : " JOIN \(t) t\(i) ON t\(i).Z_PK = t\(i - 1).\(hops[i - 1].layout.columns[hops[i - 1].slot]!)"
        }
        let firstColumn = hops[0].layout.columns[hops[0].slot]!
        let value = fold("(SELECT t\(hops.count - 1).\(last.layout.columns[last.slot]!) FROM \(from) WHERE t1.Z_PK = \(table).\(firstColumn))")
        var triggers = [ownInsert, trigger("UPDATE", "UPDATE OF \(firstColumn)", on: table, when: "NEW.Z_ENT IN (\(ids))", "\(mark) VALUES (\(n), NEW.Z_PK)")]
        // The owners that reach a row of hop i's table, whose key is `key`.
        func owners(_ i: Int, _ key: String) -> String {
            var condition = "= \(key)"
            var j = i - 1
            while j >= 1 {
                condition = "IN (SELECT Z_PK FROM \(hops[j].layout.tableName) WHERE \(hops[j].layout.columns[hops[j].slot]!) \(condition))"
                j -= 1
            }
            return "\(mark) SELECT \(n), Z_PK FROM \(table) WHERE \(firstColumn) \(condition) AND Z_ENT IN (\(ids))"
        }
        for i in 1..<hops.count {
            let t = hops[i].layout.tableName
            let watched = hops[i].layout.columns[hops[i].slot]!
            triggers.append(trigger("HOP\(i)_UPDATE", "UPDATE OF \(watched)", on: t, when: nil, owners(i, "NEW.Z_PK")))
            triggers.append(trigger("HOP\(i)_DELETE", "DELETE", on: t, when: nil, owners(i, "OLD.Z_PK")))
        }
        return make(value: value, triggers: triggers)
    }
}
