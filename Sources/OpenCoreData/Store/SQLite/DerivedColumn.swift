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
/// | `items.@count` (a to-many; `count:(items)` in compiled models) | the number of related objects | a member joins or leaves (from either side, deleted rows included) |
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
        for entity in model.entities where tables[entity.layout.rootEntityID] != nil {
            for case let attribute as NSDerivedAttributeDescription in entity.properties where !attribute.isTransient && attribute.entity === entity {
                result.append(try make(attribute, entity: entity, number: result.count + 1))
            }
        }
        return result
    }

    fileprivate static func fail(_ entity: NSEntityDescription, _ attribute: NSAttributeDescription, _ reason: String) -> CoreDataError {
        CoreDataError(NSPersistentStoreInvalidTypeError,
                      "The derived attribute \(entity.name ?? "?").\(attribute.name) cannot be computed by the SQLite store: \(reason). Supported: a key path (through to-one relationships) to an attribute, canonical:(keyPath), a to-many's @count, and now().",
                      userInfo: [NSValidationKeyErrorKey: attribute.name])
    }

    private static func make(_ attribute: NSDerivedAttributeDescription, entity: NSEntityDescription, number: Int) throws -> DerivedColumn {
        guard let expression = attribute.derivationExpression else { throw fail(entity, attribute, "it has no derivationExpression") }
        let derivation = Derivation(attribute: attribute, entity: entity, number: number)
        let path: String
        var canonical = false
        switch expression.node {
        case .function("now", let args) where args.isEmpty:
            guard attribute.attributeType == .dateAttributeType else { throw fail(entity, attribute, "now() needs a Date attribute") }
            return derivation.now()
        case .function("canonical:", let args) where args.count == 1:
            guard case .keyPath(let p) = args[0] else { throw fail(entity, attribute, "canonical: takes a key path") }
            guard attribute.attributeType == .stringAttributeType else { throw fail(entity, attribute, "canonical: needs a String attribute") }
            canonical = true
            path = p
        case .keyPath(let p):
            path = p
        case .function("count:", let args) where args.count == 1:
            // How Core Data's compiled models keep `items.@count` (`count:(items)`).
            guard case .keyPath(let p) = args[0] else { throw fail(entity, attribute, "count: takes a key path") }
            path = p + ".@count"
        default:
            throw fail(entity, attribute, "\(expression) is not a supported derivation")
        }
        let resolved: ResolvedKeyPath
        do {
            resolved = try KeyPathResolver(use: .derivation).resolve(path, from: derivation.layout, named: entity.name ?? "?")
        } catch let error as CoreDataError {
            throw fail(entity, attribute, error.message)
        }
        return try derivation.make(resolved, canonical: canonical)
    }
}

/// The SQL of one derived attribute: its value for a row of the owner's table and the triggers that
/// mark the rows to recompute (see ``DerivedColumn``).
private struct Derivation {
    let attribute: NSDerivedAttributeDescription
    let entity: NSEntityDescription
    let number: Int
    let layout: EntityLayout
    let table: String
    /// The owner's entity numbers, as SQL (`1, 2`).
    let ids: String
    let mark = "INSERT OR IGNORE INTO Z_OCDDERIVED (Z_ATTRIBUTE, Z_PK)"

    init(attribute: NSDerivedAttributeDescription, entity: NSEntityDescription, number: Int) {
        self.attribute = attribute
        self.entity = entity
        self.number = number
        layout = entity.layout!
        table = layout.tableName
        ids = layout.entityIDs.map(String.init).joined(separator: ", ")
    }

    func trigger(_ name: String, _ event: String, on target: String, when: String?, _ body: String) -> String {
        "CREATE TEMP TRIGGER IF NOT EXISTS Z_OCDDERIVED_\(number)_\(name) AFTER \(event) ON main.\(target) FOR EACH ROW"
            + (when.map { " WHEN \($0)" } ?? "") + " BEGIN \(body); END"
    }

    /// The trigger that marks the owner's inserted rows.
    var ownInsert: String {
        trigger("INSERT", "INSERT", on: table, when: "NEW.Z_ENT IN (\(ids))", "\(mark) VALUES (\(number), NEW.Z_PK)")
    }

    func column(value: String?, triggers: [String]) -> DerivedColumn {
        let slot = layout.slotByName[attribute.name]!
        return DerivedColumn(number: number, entityName: entity.name ?? "", attributeName: attribute.name, slot: slot,
                             rootEntityID: layout.rootEntityID, table: table, column: layout.columns[slot] ?? "", entityIDs: layout.entityIDs,
                             valueSQL: value, triggers: triggers)
    }

    func fail(_ reason: String) -> CoreDataError { DerivedColumn.fail(entity, attribute, reason) }

    /// `now()`: every save that writes the row advances Z_OPT; the store's own derived updates do not.
    func now() -> DerivedColumn {
        column(value: nil, triggers: [ownInsert, trigger("UPDATE", "UPDATE OF Z_OPT", on: table, when: "NEW.Z_ENT IN (\(ids))",
                                                          "\(mark) VALUES (\(number), NEW.Z_PK)")])
    }

    /// A resolved key path: a to-many's `@count`, or to-ones then a stored attribute.
    func make(_ path: ResolvedKeyPath, canonical: Bool) throws -> DerivedColumn {
        switch path.terminal {
        case .count where path.hops.count == 1 && !canonical:
            return try count(path.hops[0])
        case .count, .aggregate:
            throw fail("\(path.text): only a to-many's @count is supported")
        case .object:
            throw fail("\(path.text) does not end at a stored attribute")
        case .attribute(_, let type, let column):
            guard let column else { throw fail("\(path.text) does not end at a stored attribute") }
            if canonical, type != .stringAttributeType { throw fail("canonical: needs a String source") }
            var steps: [(table: String, column: String)] = []
            var from = table
            for hop in path.hops {
                guard !hop.isToMany, case .foreignKey(let key, _) = hop.relationship.storage else {
                    throw fail("\(hop.name) in \(path.text) is not a to-one relationship")
                }
                steps.append((from, key))
                from = hop.destination.layout.tableName
            }
            steps.append((from, column))
            return copy(steps, canonical: canonical)
        }
    }

    /// `items.@count`: the number of members of a to-many of the entity.
    private func count(_ hop: ResolvedKeyPath.Hop) throws -> DerivedColumn {
        guard [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType].contains(attribute.attributeType) else {
            throw fail("@count needs an integer attribute")
        }
        let n = number
        switch hop.relationship.storage {
        case .inverseForeignKey(let fk, _):
            let members = hop.destination.layout.tableName
            let value = "(SELECT COUNT(*) FROM \(members) WHERE \(members).\(fk) = \(table).Z_PK)"
            return column(value: value, triggers: [
                ownInsert,
                trigger("MEMBER_INSERT", "INSERT", on: members, when: "NEW.\(fk) IS NOT NULL", "\(mark) VALUES (\(n), NEW.\(fk))"),
                trigger("MEMBER_DELETE", "DELETE", on: members, when: "OLD.\(fk) IS NOT NULL", "\(mark) VALUES (\(n), OLD.\(fk))"),
                trigger("MEMBER_UPDATE", "UPDATE OF \(fk)", on: members, when: nil,
                        "\(mark) SELECT \(n), OLD.\(fk) WHERE OLD.\(fk) IS NOT NULL; \(mark) SELECT \(n), NEW.\(fk) WHERE NEW.\(fk) IS NOT NULL"),
            ])
        case .joinTable(let t):
            let value = "(SELECT COUNT(*) FROM \(t.name) WHERE \(t.name).\(t.sourceColumn) = \(table).Z_PK)"
            return column(value: value, triggers: [
                ownInsert,
                trigger("MEMBER_INSERT", "INSERT", on: t.name, when: nil, "\(mark) VALUES (\(n), NEW.\(t.sourceColumn))"),
                trigger("MEMBER_DELETE", "DELETE", on: t.name, when: nil, "\(mark) VALUES (\(n), OLD.\(t.sourceColumn))"),
            ])
        default:
            throw fail("\(hop.name) is not stored")
        }
    }

    /// A copy of a value read through to-ones: `steps` are each table on the way with the column read
    /// there (a to-one's foreign key; the attribute's column last).
    private func copy(_ steps: [(table: String, column: String)], canonical: Bool) -> DerivedColumn {
        let n = number
        func fold(_ sql: String) -> String { canonical ? "ocd_fold(\(sql), 3)" : sql }
        let last = steps[steps.count - 1]
        guard steps.count > 1 else {
            return column(value: fold("\(table).\(last.column)"), triggers: [
                ownInsert,
                trigger("UPDATE", "UPDATE OF \(last.column)", on: table, when: "NEW.Z_ENT IN (\(ids))", "\(mark) VALUES (\(n), NEW.Z_PK)"),
            ])
        }
        // (SELECT t2.ZNAME FROM ZB t1 JOIN ZC t2 ON t2.Z_PK = t1.ZC WHERE t1.Z_PK = ZA.ZB)
        var from = ""
        for i in 1..<steps.count {
            from += i == 1 ? "\(steps[i].table) t1" : " JOIN \(steps[i].table) t\(i) ON t\(i).Z_PK = t\(i - 1).\(steps[i - 1].column)"
        }
        let firstColumn = steps[0].column
        let value = fold("(SELECT t\(steps.count - 1).\(last.column) FROM \(from) WHERE t1.Z_PK = \(table).\(firstColumn))")
        var triggers = [ownInsert, trigger("UPDATE", "UPDATE OF \(firstColumn)", on: table, when: "NEW.Z_ENT IN (\(ids))", "\(mark) VALUES (\(n), NEW.Z_PK)")]
        // The owners that reach a row of step i's table, whose key is `key`.
        func owners(_ i: Int, _ key: String) -> String {
            var condition = "= \(key)"
            var j = i - 1
            while j >= 1 {
                condition = "IN (SELECT Z_PK FROM \(steps[j].table) WHERE \(steps[j].column) \(condition))"
                j -= 1
            }
            return "\(mark) SELECT \(n), Z_PK FROM \(table) WHERE \(firstColumn) \(condition) AND Z_ENT IN (\(ids))"
        }
        for i in 1..<steps.count {
            let t = steps[i].table
            let watched = steps[i].column
            triggers.append(trigger("HOP\(i)_UPDATE", "UPDATE OF \(watched)", on: t, when: nil, owners(i, "NEW.Z_PK")))
            triggers.append(trigger("HOP\(i)_DELETE", "DELETE", on: t, when: nil, owners(i, "OLD.Z_PK")))
        }
        return column(value: value, triggers: triggers)
    }
}
