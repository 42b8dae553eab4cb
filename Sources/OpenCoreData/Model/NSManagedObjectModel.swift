import Foundation
import Synchronization

/// Mirrors Core Data's `NSManagedObjectModel`: the entities of a store, built in code (Linux has no
/// `.xcdatamodeld` compiler). A coordinator freezes and validates it; a model with duplicate names, names
/// that are not identifiers or would share a SQLite table or column, reserved property names (see
/// `ModelNameRules`) or an inheritance cycle is an error then, not at the first save.
public class NSManagedObjectModel: NSObject, @unchecked Sendable {
    private var _entities: [NSEntityDescription] = []
    private let freezeLock = NSLock()
    private(set) var isFrozen = false
    /// Entities by their number (`Z_ENT`), set when the model is frozen.
    private var entitiesByNumber: [Int: NSEntityDescription] = [:]

    public override init() { super.init() }

    /// A convenience not in Core Data: a model of the given entities (subentities included or not).
    public convenience init(entities: [NSEntityDescription]) {
        self.init()
        self.entities = entities
    }

    /// Mirrors `entities`: every entity, subentities included.
    public var entities: [NSEntityDescription] {
        get { _entities }
        set {
            precondition(!isFrozen, "Can't modify an immutable model: a coordinator has loaded it")
            // Subentities listed only under their superentity belong to the model too.
            var all: [NSEntityDescription] = []
            var seen = Set<ObjectIdentifier>()
            func add(_ e: NSEntityDescription, depth: Int) {
                guard depth < 256, seen.insert(ObjectIdentifier(e)).inserted else { return }
                all.append(e)
                for s in e.subentities { add(s, depth: depth + 1) }
            }
            for e in newValue { add(e, depth: 0) }
            _entities = all
            for e in all { e.managedObjectModel = self }
        }
    }

    /// Mirrors `entitiesByName`.
    public var entitiesByName: [String: NSEntityDescription] {
        Dictionary(_entities.compactMap { e in e.name.map { ($0, e) } }, uniquingKeysWith: { a, _ in a })
    }

    /// Mirrors `entityVersionHashesByName`.
    public var entityVersionHashesByName: [String: Data] {
        Dictionary(_entities.compactMap { e in e.name.map { ($0, Data(Self.hash(Self.signature(of: e)).utf8)) } },
                   uniquingKeysWith: { a, _ in a })
    }

    /// The model's version hash: changes whenever an entity, attribute, type, optionality or inheritance
    /// changes. A SQLite store records it and refuses to open with another model.
    public var versionHash: String {
        Self.hash(_entities.map(Self.signature(of:)).sorted().joined(separator: "\n"))
    }

    private static func signature(of e: NSEntityDescription) -> String {
        let props = e.properties.map { p -> String in
            let type = (p as? NSAttributeDescription)?.attributeType.rawValue ?? 0
            return "\(p.name):\(type):\(p.isOptional ? 1 : 0):\(p.isTransient ? 1 : 0)"
        }.sorted().joined(separator: ",")
        return "\(e.name ?? "")<\(e.superentity?.name ?? "")|\(e.isAbstract ? 1 : 0)|\(props)"
    }

    /// FNV-1a, twice with different offsets: stable across runs and machines (unlike `Hasher`).
    static func hash(_ text: String) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325, b: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in text.utf8 {
            a = (a ^ UInt64(byte)) &* 0x100_0000_01b3
            b = (b ^ UInt64(byte)) &* 0x100_0000_01b3
            b = b ^ (b >> 29)
        }
        return String(format: "%016llx%016llx", a, b)
    }

    /// Validates the model and computes each entity's storage layout. Idempotent; thread-safe.
    func freeze() throws {
        freezeLock.lock()
        defer { freezeLock.unlock() }
        if isFrozen { return }
        try validate()
        // Core Data numbers entities in name order, from 1.
        let sorted = _entities.sorted { ($0.name ?? "") < ($1.name ?? "") }
        var ids: [ObjectIdentifier: Int] = [:]
        for (i, e) in sorted.enumerated() { ids[ObjectIdentifier(e)] = i + 1 }
        // Columns per hierarchy (one table per root entity).
        var columns: [ObjectIdentifier: String] = [:]
        for root in sorted where root.superentity == nil {
            var used = Set<String>()
            func assign(_ e: NSEntityDescription) {
                for p in e.properties where p.entity === e && !p.isTransient {
                    guard let a = p as? NSAttributeDescription else { continue }
                    var column = ModelNameRules.columnName(forAttributeNamed: a.name)
                    if used.contains(column) {
                        column = ModelNameRules.columnName(forAttributeNamed: a.name, entityNumber: ids[ObjectIdentifier(e)]!)
                    }
                    used.insert(column)
                    columns[ObjectIdentifier(a)] = column
                }
                for s in e.subentities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) { assign(s) }
            }
            assign(root)
        }
        for e in sorted {
            var root = e
            while let s = root.superentity { root = s }
            let attributes = e.properties.compactMap { $0 as? NSAttributeDescription }
            var descendants: [Int] = []
            func collect(_ x: NSEntityDescription) {
                descendants.append(ids[ObjectIdentifier(x)]!)
                for s in x.subentities { collect(s) }
            }
            collect(e)
            e.layout = EntityLayout(
                entityID: ids[ObjectIdentifier(e)]!,
                root: root,
                tableName: ModelNameRules.tableName(forRootEntityNamed: root.name ?? ""),
                attributes: attributes,
                columns: attributes.map { $0.isTransient ? nil : columns[ObjectIdentifier($0)] },
                entityIDs: descendants.sorted(),
                objectClass: Self.resolveClass(e.managedObjectClassName)
            )
        }
        entitiesByNumber = Dictionary(uniqueKeysWithValues: sorted.map { ($0.layout.entityID, $0) })
        isFrozen = true
    }

    /// The entity whose number (`Z_ENT`) is `number`, once a coordinator has loaded the model.
    func entity(number: Int) -> NSEntityDescription? { entitiesByNumber[number] }

    private static func resolveClass(_ name: String?) -> NSManagedObject.Type {
        guard let name, name != "NSManagedObject", let cls = NSClassFromString(name) as? NSManagedObject.Type else {
            return NSManagedObject.self
        }
        return cls
    }

    /// Checks names (see ``ModelNameRules``), inheritance and attribute types; the error names the entity
    /// and the property and says why.
    private func validate() throws {
        func fail(_ message: String) -> CoreDataError {
            CoreDataError(NSPersistentStoreInvalidTypeError, "Invalid model: " + message)
        }
        var names = Set<String>()
        var tables: [String: String] = [:]
        for e in _entities {
            guard let name = e.name, !name.isEmpty else { throw fail("an entity has no name") }
            guard names.insert(name).inserted else { throw fail("duplicate entity name \(name)") }
            guard ModelNameRules.isIdentifier(name) else {
                throw fail("entity \"\(name)\": the entity name is not a valid identifier (\(ModelNameRules.identifierRule))")
            }
            // Inheritance cycle: walking up must end.
            var steps = 0
            var current = e.superentity
            while let c = current {
                steps += 1
                if c === e || steps > _entities.count { throw fail("inheritance cycle through entity \(name)") }
                current = c.superentity
            }
            if let s = e.superentity, !_entities.contains(where: { $0 === s }) {
                throw fail("entity \(name) inherits from \(s.name ?? "?"), which is not in the model")
            }
            if e.superentity == nil {
                let table = ModelNameRules.tableName(forRootEntityNamed: name)
                if let other = tables.updateValue(name, forKey: table) {
                    throw fail("entities \(other) and \(name) would both be stored in the SQLite table \(table) (SQLite table names ignore case): entity names must differ in more than case")
                }
            }
            var propertyNames: [String: String] = [:]
            for p in e.properties {
                guard !p.name.isEmpty else { throw fail("entity \(name) has a property without a name") }
                if let other = propertyNames.updateValue(p.name, forKey: p.name.lowercased()) {
                    guard other != p.name else { throw fail("entity \(name) has two properties named \(p.name)") }
                    throw fail("entity \(name): the properties \"\(other)\" and \"\(p.name)\" differ only in case; both would be the SQLite column \(ModelNameRules.columnName(forAttributeNamed: p.name)) (SQLite column names ignore case)")
                }
                let column = ModelNameRules.columnName(forAttributeNamed: p.name)
                if ModelNameRules.storeColumns.contains(column) {
                    throw fail("entity \(name): the property \"\(p.name)\" would be stored in the column \(column), which is Core Data's own column")
                }
                guard ModelNameRules.isIdentifier(p.name) else {
                    throw fail("entity \(name): the property name \"\(p.name)\" is not a valid identifier (\(ModelNameRules.identifierRule))")
                }
                if ModelNameRules.isReservedPropertyName(p.name) {
                    throw fail("entity \(name): \"\(p.name)\" is a reserved property name (a property cannot be named like a method of NSObject or NSManagedObject, or self, entity, objectID)")
                }
                guard let a = p as? NSAttributeDescription else {
                    throw fail("entity \(name): property \(p.name) is not an attribute (relationships come in wave 2)")
                }
                if a.attributeType == .undefinedAttributeType && !a.isTransient {
                    throw fail("entity \(name): attribute \(p.name) has an undefined type and is not transient")
                }
                if let d = a.defaultValue, a.attributeType.coerce(Value(any: d)) == nil {
                    throw fail("entity \(name): the default value of \(p.name) is not a \(a.attributeType.name)")
                }
            }
        }
    }
}

/// Where an entity's values live: the storage slot and SQLite column of each attribute, its entity
/// number, table, subentities and class. Computed once when the model is frozen.
final class EntityLayout: @unchecked Sendable {
    /// Core Data's `Z_ENT`.
    let entityID: Int
    unowned let root: NSEntityDescription
    /// `Z` + the root entity's name, upper-cased (Core Data's naming).
    let tableName: String
    /// Every attribute, inherited first; an attribute's index is its storage slot.
    let attributes: [NSAttributeDescription]
    /// The SQLite column per slot (`nil` for transient attributes).
    let columns: [String?]
    /// This entity's `Z_ENT` and those of all its subentities.
    let entityIDs: [Int]
    let objectClass: NSManagedObject.Type
    let slotByName: [String: Int]
    /// Slots saved to the store.
    let persistentSlots: [Int]
    /// The same, as a set (every slot of a saved insert changed).
    let persistentSlotSet: Set<Int>
    /// Each attribute's default value, as stored.
    let defaultValues: [Value]
    /// A number no other layout of this process has, ever (an address can be reused once a layout is
    /// freed): compiled predicates remember a key's slot per layout by it.
    let serial: Int
    private static let serials = Atomic<Int>(0)

    init(entityID: Int, root: NSEntityDescription, tableName: String, attributes: [NSAttributeDescription],
         columns: [String?], entityIDs: [Int], objectClass: NSManagedObject.Type) {
        self.entityID = entityID
        self.root = root
        self.tableName = tableName
        self.attributes = attributes
        self.columns = columns
        self.entityIDs = entityIDs
        self.objectClass = objectClass
        self.slotByName = Dictionary(attributes.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        self.persistentSlots = columns.indices.filter { columns[$0] != nil }
        self.persistentSlotSet = Set(persistentSlots)
        self.defaultValues = attributes.map { a in a.defaultValue.flatMap { a.attributeType.coerce(Value(any: $0)) } ?? .null }
        self.serial = Self.serials.add(1, ordering: .relaxed).newValue
    }
}
