import Foundation
import Testing
@testable import OpenCoreData

/// Writing to a store Core Data wrote keeps Core Data's bookkeeping (issue #33 item 5), checked with
/// plain SQL on the file: only Core Data's tables, `Z_MAX` the largest key handed out, `Z_OPT` 1 for a
/// new row and one more per update, the metadata row unchanged.
@Suite struct StoreBookkeepingTests {
    /// A value for an attribute that the model requires (unique per call: constraints may cover it).
    static func value(for attribute: NSAttributeDescription, _ n: Int) -> Any? {
        switch attribute.attributeType {
        case .stringAttributeType: return "ocd-\(n)-\(UUID().uuidString)"
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType: return 30_000 - n
        case .booleanAttributeType: return false
        case .doubleAttributeType, .floatAttributeType, .decimalAttributeType: return Double(n) + 0.5
        case .dateAttributeType: return Date(timeIntervalSinceReferenceDate: Double(n))
        case .UUIDAttributeType: return UUID()
        case .binaryDataAttributeType: return Data([1, 2, UInt8(n & 0xff)])
        case .URIAttributeType: return URL(string: "https://example.com/\(n)")
        default: return nil
        }
    }

    /// Inserts an object of `entity` with every required attribute and to-one set (to-ones to an existing
    /// object); nil when the entity cannot be filled.
    static func insert(_ entity: NSEntityDescription, _ context: NSManagedObjectContext, _ n: Int) throws -> NSManagedObject? {
        guard !entity.isAbstract else { return nil }
        var values: [String: Any] = [:]
        for property in entity.properties where !property.isOptional && !property.isTransient {
            if let attribute = property as? NSAttributeDescription {
                guard attribute.defaultValue == nil else { continue }
                guard let value = value(for: attribute, n) else { return nil }
                values[attribute.name] = value
            } else if let r = property as? NSRelationshipDescription {
                if r.isToMany { return nil }
                let request = NSFetchRequest<NSManagedObject>(entityName: r.destinationEntity!.name!)
                request.fetchLimit = 1
                guard let destination = try context.fetch(request).first else { return nil }
                values[r.name] = destination
            }
        }
        let object = NSManagedObject(entity: entity, insertInto: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }

    struct Row: Equatable { var pk: Int64, entity: Int64, opt: Int64 }

    static func row(_ copy: FixtureCopy, _ object: NSManagedObject) throws -> Row? {
        let pk = try #require(object.objectID.primaryKey)
        var row: Row?
        try copy.query("SELECT Z_PK, Z_ENT, Z_OPT FROM \(object.entity.layout.tableName) WHERE Z_PK = \(pk)") {
            row = Row(pk: $0.int64(0), entity: $0.int64(1), opt: $0.int64(2))
        }
        return row
    }

    /// Z_MAX of each root entity and the largest key of its table, by table.
    static func keys(_ copy: FixtureCopy, _ model: NSManagedObjectModel) throws -> [String: (max: Int64, largest: Int64)] {
        var result: [String: (Int64, Int64)] = [:]
        for root in model.entities where root.superentity == nil {
            let table = root.layout.tableName
            result[table] = (try copy.int("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = \(root.layout.entityID)"),
                             try copy.int("SELECT ifnull(max(Z_PK), 0) FROM \(table)"))
        }
        return result
    }

    /// On every fixture with a model: an insert, an update (twice) and a delete, each saved, then the
    /// file is read with SQL. Where an entity cannot be filled or has no rows, that step is skipped; the
    /// test requires each step on most fixtures.
    @Test func insertUpdateAndDeleteKeepCoreDatasBookkeeping() throws {
        var failures: [String] = [], inserts = 0, updates = 0, deletes = 0
        for pair in try FixtureCopy.all() {
            let copy = try FixtureCopy(pair)
            defer { copy.cleanUp() }
            let model = try #require(try copy.model())
            let tablesBefore = Set(try copy.strings("SELECT name FROM sqlite_master WHERE type = 'table'"))
            let metadataBefore = try copy.strings("SELECT Z_UUID || '/' || hex(Z_PLIST) FROM Z_METADATA")
            let coordinator = try copy.coordinator(model)
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            let entities = model.entities.sorted { $0.layout.entityID < $1.layout.entityID }
            func fail(_ what: String) { failures.append("\(pair): \(what)") }

            // Insert: the new row takes Z_MAX + 1 of its hierarchy, Z_OPT 1, its entity's number.
            let keysBefore = try Self.keys(copy, model)
            for entity in entities {
                guard let object = try Self.insert(entity, context, inserts) else { continue }
                do { try context.save() } catch { context.rollback(); continue }
                inserts += 1
                let table = entity.layout.tableName
                let row = try Self.row(copy, object)
                let expected = keysBefore[table]!.max + 1
                if row != Row(pk: expected, entity: Int64(entity.layout.entityID), opt: 1) { fail("insert \(entity.name!): row \(String(describing: row)), expected key \(expected)") }
                break
            }
            // Update twice: Z_OPT grows by one per save.
            for entity in entities where !entity.isAbstract {
                guard let attribute = StoreFormatTests.sortableAttributes(entity).first(where: { $0.attributeType == .stringAttributeType || $0.attributeType == .dateAttributeType }) else { continue }
                let request = NSFetchRequest<NSManagedObject>(entityName: entity.name!)
                request.includesSubentities = false
                request.fetchLimit = 1
                guard let object = try context.fetch(request).first, let before = try Self.row(copy, object) else { continue }
                object.setValue(Self.value(for: attribute, 1000 + updates), forKey: attribute.name)
                do { try context.save() } catch { context.rollback(); continue }
                object.setValue(Self.value(for: attribute, 2000 + updates), forKey: attribute.name)
                try context.save()
                updates += 1
                let after = try Self.row(copy, object)
                if after?.opt != before.opt + 2 { fail("update \(entity.name!): Z_OPT \(before.opt) → \(after?.opt ?? -1), expected +2") }
                break
            }
            // Delete: the row is gone; Z_MAX stays.
            for entity in entities.reversed() where !entity.isAbstract {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity.name!)
                request.includesSubentities = false
                request.fetchLimit = 1
                guard let object = try context.fetch(request).first, let pk = object.objectID.primaryKey else { continue }
                context.delete(object)
                do { try context.save() } catch { context.rollback(); continue }
                deletes += 1
                if try copy.int("SELECT count(*) FROM \(entity.layout.tableName) WHERE Z_PK = \(pk)") != 0 { fail("delete \(entity.name!): row still there") }
                break
            }
            // Bookkeeping: Z_MAX never below the largest key; only Core Data's tables; metadata unchanged.
            for (table, keys) in try Self.keys(copy, model) where keys.largest > keys.max {
                fail("\(table): Z_MAX \(keys.max) < largest key \(keys.largest)")
            }
            let tablesAfter = Set(try copy.strings("SELECT name FROM sqlite_master WHERE type = 'table'"))
            if tablesAfter != tablesBefore { fail("tables \(tablesBefore.sorted()) became \(tablesAfter.sorted())") }
            if try copy.strings("SELECT Z_UUID || '/' || hex(Z_PLIST) FROM Z_METADATA") != metadataBefore { fail("metadata row changed") }
            // And the file opens again, as Core Data would check it.
            do { _ = try copy.coordinator(model) } catch { fail("reopen: \(error)") }
        }
        #expect(failures.isEmpty, "\(failures.count) failures:\n\(failures.joined(separator: "\n"))")
        #expect(inserts == 23 && updates == 23 && deletes == 23, "\(inserts) inserts, \(updates) updates, \(deletes) deletes")
    }

    /// The value the controller's cache records to know whether the store changed (made from Core Data's
    /// bookkeeping, no table of ours) changes with every insert, update and delete, also with a change
    /// written by another program that keeps Core Data's bookkeeping, and not otherwise.
    @Test func theStoreStateChangesWithEverySave() throws {
        let copy = try FixtureCopy(StoreBadInputTests.journal)
        defer { copy.cleanUp() }
        let model = try #require(try copy.model())
        let coordinator = try copy.coordinator(model)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        var seen = [try coordinator.firstStoreBackend().generation()]
        func changed(_ what: String) throws {
            let now = try coordinator.firstStoreBackend().generation()
            #expect(!seen.contains(now), "\(what) changes the store state")
            seen.append(now)
        }
        #expect(try coordinator.firstStoreBackend().generation() == seen[0], "reading changes nothing")
        let post = NSManagedObject(entity: model.entitiesByName["Post"]!, insertInto: context)
        post.setValue("new", forKey: "postID")
        try context.save()
        try changed("an insert")
        post.setValue("renamed", forKey: "postID")
        try context.save()
        try changed("an update")
        context.delete(post)
        try context.save()
        try changed("a delete")
        let db = try SQLiteConnection(path: copy.url.path)
        try db.execute("UPDATE ZSECTION SET ZTITLE = 'x', Z_OPT = Z_OPT + 1 WHERE Z_PK = 1")
        try changed("another program's update")
    }
}
