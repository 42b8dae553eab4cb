import Foundation
import Synchronization
import Logging

/// Mirrors Core Data's `NSManagedObjectModel`: the entities of a store, built in code or read from Xcode's
/// `.xcdatamodeld` folder (Model/Files/, docs/ModelFiles.md). A coordinator freezes and validates it; a model with duplicate names, names
/// that are not identifiers or would share a SQLite table or column, reserved property names (see
/// `ModelNameRules`) or an inheritance cycle is an error then, not at the first save.
open class NSManagedObjectModel: NSObject, @unchecked Sendable {
    private var _entities: [NSEntityDescription] = []
    private let freezeLock = NSLock()
    private(set) var isFrozen = false
    /// Entities by their number (`Z_ENT`), set when the model is frozen.
    private var entitiesByNumber: [Int: NSEntityDescription] = [:]
    /// The fetch request templates by name (see NSManagedObjectModel+Templates.swift).
    var fetchRequestTemplates: [String: NSFetchRequest<NSFetchRequestResult>] = [:]
    /// The named configurations, in the order they were added, with their entities.
    var namedConfigurations: [(name: String, entities: [NSEntityDescription])] = []
    /// The other versions of the `.xcdatamodeld` this model was read from, by version name.
    var otherVersions: [String: NSManagedObjectModel] = [:]
    /// The model's version name in the `.xcdatamodeld` it was read from (see NSManagedObjectModel+Files.swift).
    var fileVersionName: String?
    /// The versioned model folder (`.xcdatamodeld`, `.momd`) this model is a version of: migration looks
    /// there for the model of an older store.
    var versionedFolder: URL?
    /// The warnings of the class lookup when the model was loaded (classes not found, `@Managed`
    /// properties that do not fit their entity in this model), as logged.
    var classWarnings: [String] = []

    /// Mirrors `versionIdentifiers`: the model's version identifiers (a model file's
    /// `userDefinedModelVersionIdentifier`). Not part of the version hash, as in Core Data.
    public var versionIdentifiers: Set<AnyHashable> = []

    /// Mirrors `localizationDictionary`: display names for validation messages, under Core Data's keys
    /// (`"Entity/Name"`, `"Property/name/Entity/Name"`, `"ErrorString/warning"`).
    public var localizationDictionary: [String: String]?

    /// The display name of an entity, a property, or a validation warning, from ``localizationDictionary``.
    func localized(entity: String, property: String? = nil) -> String {
        guard let table = localizationDictionary else { return property ?? entity }
        guard let property else { return table["Entity/\(entity)"] ?? entity }
        return table["Property/\(property)/Entity/\(entity)"] ?? table["Property/\(property)"] ?? property
    }

    func localized(errorString: String) -> String { localizationDictionary?["ErrorString/\(errorString)"] ?? errorString }

    public override init() { super.init() }

    /// Mirrors `init?(contentsOf:)`: the model in a compiled `.momd` folder (its current version, named by
    /// its `VersionInfo.plist`) or `.mom` file, as Xcode's model compiler makes them and Core Data reads
    /// them, and also in the source folders Xcode saves, a `.xcdatamodeld` (its current version) or a
    /// `.xcdatamodel`; `nil` for anything else or a model that does not read, as Core Data returns `nil`.
    /// ``init(validatingContentsOf:)`` says why a model does not read. `required` (and so declared here, not
    /// with the other file initializers in NSManagedObjectModel+Files.swift), so that a subclass or an
    /// extension reaches it through a metatype (`Self(contentsOf:)`), as Objective-C lets Core Data's.
    public required convenience init?(contentsOf url: URL) {
        self.init()
        do {
            try ModelFileReader.read(url, into: self)
        } catch {
            return nil
        }
    }

    /// Mirrors `init(coder:)` (`NSSecureCoding`): a compiled model — what a `.mom` file or a store's
    /// `Z_MODELCACHE` holds — with Apple's keys (Model/Files/CompiledModel/, docs/ModelFiles.md "Compiled
    /// models"): its entities ordered by name, fetch request templates, configurations and version
    /// identifiers, the relationships wired and checked. On Linux, decode one through
    /// `NSManagedObjectModel(contentsOf:)` or `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`, which read
    /// it with this library's checked unarchiver: Foundation's cannot follow a model's cycles.
    public required init?(coder: NSCoder) {
        super.init()
        guard decodeModel(from: coder) else { return nil }
    }

    /// Mirrors `encode(with:)` (`NSCoding`): Apple's keys (`NSEntities`, `NSConfigurations`,
    /// `NSFetchRequestTemplates`, `NSVersionIdentifiers`).
    open func encode(with coder: NSCoder) { encodeModel(with: coder) }

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

    /// Mirrors `isEqual(_:)`: as on Apple platforms, two models are equal when they describe the same
    /// entities, properties, configurations and fetch request templates — two models loaded from one
    /// model file are equal (and so `==`). Compared here as the model files they would write; a model
    /// that cannot be written as a file (a block predicate in it) is equal only to itself.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSManagedObjectModel else { return false }
        if other === self { return true }
        guard let mine = try? modelFileContents(), let theirs = try? other.modelFileContents() else { return false }
        return mine == theirs
    }

    /// Mirrors `hash`: of the entities' names (equal models have the same names).
    public override var hash: Int { _entities.compactMap(\.name).sorted().hashValue }

    /// Mirrors `entitiesByName`.
    public var entitiesByName: [String: NSEntityDescription] {
        Dictionary(_entities.compactMap { e in e.name.map { ($0, e) } }, uniquingKeysWith: { a, _ in a })
    }

    /// Mirrors `entityVersionHashesByName`: each entity's ``NSEntityDescription/versionHash``, computed as
    /// Core Data computes it, so that it equals the `NSStoreModelVersionHashes` a store written by Core Data
    /// with the same model records (see VersionHashes.swift, docs/ModelFiles.md "Version hashes").
    public var entityVersionHashesByName: [String: Data] {
        Dictionary(_entities.compactMap { e in e.name.map { ($0, e.versionHash) } }, uniquingKeysWith: { a, _ in a })
    }

    /// Mirrors `versionChecksum`: base64 of a SHA-256 digest over the entities' version hashes in
    /// entity-name order, as Core Data computes it (a store's `NSStoreModelVersionChecksumKey`, a compiled
    /// model's `VersionInfo.plist`).
    public var versionChecksum: String { VersionHashes.checksum(of: _entities) }

    /// The model's version hash: changes whenever an entity, attribute, type, optionality or inheritance
    /// changes. A SQLite store records it and refuses to open with another model.
    public var versionHash: String {
        Self.hash(_entities.map(Self.signature(of:)).sorted().joined(separator: "\n"))
    }

    private static func signature(of e: NSEntityDescription) -> String {
        let props = e.properties.map { p -> String in
            if let r = p as? NSRelationshipDescription {
                let destination = r.destinationEntity?.name ?? r.destinationName ?? ""
                let inverse = r.inverseRelationship?.name ?? r.inverseName ?? ""
                return "\(p.name):->\(destination)/\(inverse):\(r.minCount)-\(r.maxCount):\(r.isOrdered ? 1 : 0):\(p.isOptional ? 1 : 0):\(p.isTransient ? 1 : 0)"
            }
            let type = (p as? NSAttributeDescription)?.attributeType.rawValue ?? 0
            let elements = (p as? NSCompositeAttributeDescription).map(compositeSignature) ?? ""
            return "\(p.name):\(type):\(p.isOptional ? 1 : 0):\(p.isTransient ? 1 : 0)\(elements)"
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
        try resolveRelationships()
        let classes = resolveClasses()
        flattenComposites()
        let sorted = Self.numberingOrder(_entities)
        var ids: [ObjectIdentifier: Int] = [:]
        for (i, e) in sorted.enumerated() { ids[ObjectIdentifier(e)] = i + 1 }
        func number(_ e: NSEntityDescription) -> Int { ids[ObjectIdentifier(e)]! }
        // Slots: a property's index among its entity's properties (inherited first; each composite followed
        // by its leaves), the same in subentities.
        let storage = Dictionary(uniqueKeysWithValues: sorted.map { (ObjectIdentifier($0), Self.storageProperties(of: $0)) })
        for e in sorted {
            for (i, p) in storage[ObjectIdentifier(e)]!.enumerated() where p.entity === e { p.slot = i }
        }
        // Columns per hierarchy (one table per root entity): attributes and to-one relationships.
        var columns: [ObjectIdentifier: String] = [:]
        for root in sorted where root.superentity == nil {
            var used = Set<String>()
            func assign(_ e: NSEntityDescription) {
                for p in storage[ObjectIdentifier(e)]! where p.entity === e && !p.isTransient {
                    if let r = p as? NSRelationshipDescription, r.isToMany { continue }
                    if p is NSFetchedPropertyDescription || p is NSCompositeAttributeDescription { continue }
                    let base = (p as? CompositeElementAttribute)?.columnBaseName ?? p.name
                    var column = ModelNameRules.columnName(forAttributeNamed: base)
                    if used.contains(column) {
                        column = ModelNameRules.columnName(forAttributeNamed: base, entityNumber: number(e))
                    }
                    used.insert(column)
                    columns[ObjectIdentifier(p)] = column
                }
                for s in e.subentities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) { assign(s) }
            }
            assign(root)
        }
        // Relationship storage.
        var relationshipLayouts: [ObjectIdentifier: RelationshipLayout] = [:]
        for e in sorted {
            for case let r as NSRelationshipDescription in e.properties where r.entity === e {
                var destinationRoot = r.destinationEntity!
                while let s = destinationRoot.superentity { destinationRoot = s }
                relationshipLayouts[ObjectIdentifier(r)] = RelationshipLayout(
                    relationship: r, destination: r.destinationEntity!, storage: Self.storage(of: r, columns: columns, number: number),
                    inverseSlot: r.inverseRelationship?.slot,
                    destinationEntityID: number(r.destinationEntity!), destinationRootID: number(destinationRoot))
            }
        }
        for e in sorted {
            var root = e
            while let s = root.superentity { root = s }
            let properties = storage[ObjectIdentifier(e)]!
            var descendants: [Int] = []
            func collect(_ x: NSEntityDescription) {
                descendants.append(number(x))
                for s in x.subentities { collect(s) }
            }
            collect(e)
            let kinds: [SlotKind] = properties.map { p in
                if let r = p as? NSRelationshipDescription {
                    let layout = relationshipLayouts[ObjectIdentifier(r)]!
                    return r.isToMany ? .toMany(layout) : .toOne(layout)
                }
                return .attribute((p as? NSAttributeDescription)?.attributeType ?? .undefinedAttributeType)
            }
            e.layout = EntityLayout(
                entityID: number(e),
                root: root,
                rootEntityID: number(root),
                tableName: ModelNameRules.tableName(forRootEntityNamed: root.name ?? ""),
                properties: properties,
                kinds: kinds,
                columns: properties.map { $0.isTransient ? nil : columns[ObjectIdentifier($0)] },
                entityIDs: descendants.sorted(),
                objectClass: classes[ObjectIdentifier(e)] ?? NSManagedObject.self
            )
        }
        entitiesByNumber = Dictionary(uniqueKeysWithValues: sorted.map { ($0.layout.entityID, $0) })
        isFrozen = true
    }

    /// The entities in the order Core Data numbers them (`Z_ENT` from 1): the root entities in name order
    /// ignoring case, each followed by its subentities, depth first, siblings in the same order (what the
    /// fixture stores' `Z_PRIMARYKEY` tables show: `Car 1, SportCar 2, ExpensiveSportCar 3, Person 4`;
    /// `SyncableSettingsMetadata 1, SyncFeatureEntity 2`).
    static func numberingOrder(_ entities: [NSEntityDescription]) -> [NSEntityDescription] {
        func byName(_ list: [NSEntityDescription]) -> [NSEntityDescription] {
            list.sorted { ModelNameRules.precedes($0.name ?? "", $1.name ?? "") }
        }
        var children: [ObjectIdentifier: [NSEntityDescription]] = [:]
        for e in entities { if let parent = e.superentity { children[ObjectIdentifier(parent), default: []].append(e) } }
        var order: [NSEntityDescription] = []
        func visit(_ e: NSEntityDescription) {
            order.append(e)
            for s in byName(children[ObjectIdentifier(e)] ?? []) { visit(s) }
        }
        for root in byName(entities.filter { $0.superentity == nil }) { visit(root) }
        return order
    }

    /// Where a relationship is stored (see ``RelationshipStorage``), with Core Data's names.
    private static func storage(of r: NSRelationshipDescription, columns: [ObjectIdentifier: String],
                                number: (NSEntityDescription) -> Int) -> RelationshipStorage {
        guard !r.isTransient else { return .none }
        let source = r.entity!, destination = r.destinationEntity!
        guard r.isToMany else {
            let column = columns[ObjectIdentifier(r)]!
            return .foreignKey(column: column, entityColumn: destination.subentities.isEmpty ? nil : "Z\(number(destination))_\(r.name.uppercased())")
        }
        if let inverse = r.inverseRelationship, !inverse.isToMany, !inverse.isTransient {
            return .inverseForeignKey(column: columns[ObjectIdentifier(inverse)]!,
                                      orderColumn: r.isOrdered ? "Z_FOK_\(inverse.name.uppercased())" : nil)
        }
        // A join table, named after the owner: the side of the lower entity number; in one entity, the
        // relationship whose name sorts last (Z_1FAVORITES of favorites ↔ favoriteFolders in the fixtures).
        let inverse = r.inverseRelationship.flatMap { $0.isTransient ? nil : $0 }
        let isOwner = inverse.map { i in
            let mine = number(source), theirs = number(i.entity!)
            return mine != theirs ? mine < theirs : r.name >= i.name
        } ?? true
        let owner = isOwner ? r : inverse!
        let ownerSource = owner.entity!, ownerDestination = owner.destinationEntity!
        let other = isOwner ? inverse : r
        let table = "Z_\(number(ownerSource))\(owner.name.uppercased())"
        let ownerColumn = "Z_\(number(ownerSource))\((other?.name ?? ownerSource.name ?? "").uppercased())"
        var memberColumn = "Z_\(number(other?.entity ?? ownerDestination))\(owner.name.uppercased())"
        if memberColumn == ownerColumn { memberColumn += "1" }
        // Each ordered side keeps its members' positions in `Z_FOK_` + the column of its members.
        let ownerOrder = owner.isOrdered ? "Z_FOK_\(String(memberColumn.dropFirst(2)))" : nil
        let otherOrder = other?.isOrdered == true ? "Z_FOK_\(String(ownerColumn.dropFirst(2)))" : nil
        return isOwner
            ? .joinTable(JoinTable(name: table, sourceColumn: ownerColumn, destinationColumn: memberColumn, orderColumn: ownerOrder,
                                   otherOrderColumn: otherOrder, isOwner: true))
            : .joinTable(JoinTable(name: table, sourceColumn: memberColumn, destinationColumn: ownerColumn, orderColumn: otherOrder,
                                   otherOrderColumn: ownerOrder, isOwner: false))
    }

    /// Resolves relationships named by the convenience initializer (destination and inverse by name)
    /// and makes inverses symmetric; an inverse that points elsewhere is an error naming both sides.
    private func resolveRelationships() throws {
        func fail(_ message: String) -> CoreDataError {
            CoreDataError(NSPersistentStoreInvalidTypeError, "Invalid model: " + message)
        }
        let byName = entitiesByName
        for e in _entities {
            for case let r as NSRelationshipDescription in e.properties where r.entity === e {
                let entityName = e.name ?? "?"
                if r._destination == nil {
                    guard let name = r.destinationName else {
                        throw fail("entity \(entityName): relationship \(r.name) has no destination entity")
                    }
                    guard let destination = byName[name] else {
                        throw fail("entity \(entityName): the destination entity \(name) of relationship \(r.name) is not in the model")
                    }
                    r._destination = destination
                } else if !_entities.contains(where: { $0 === r._destination }) {
                    throw fail("entity \(entityName): the destination entity \(r._destination?.name ?? "?") of relationship \(r.name) is not in the model")
                }
                let destination = r._destination!
                if r._inverse == nil, let name = r.inverseName {
                    guard let inverse = destination.relationshipsByName[name] else {
                        throw fail("entity \(entityName): the inverse \(name) of relationship \(r.name) is not a relationship of its destination entity \(destination.name ?? "?")")
                    }
                    r._inverse = inverse
                }
            }
        }
        for e in _entities {
            for case let r as NSRelationshipDescription in e.properties where r.entity === e {
                let entityName = e.name ?? "?"
                guard let inverse = r._inverse else {
                    if !r.isTransient {
                        modelLogger.warning("warning: \(entityName).\(r.name) should have an inverse (Core Data warns: a relationship without an inverse can leave the object graph inconsistent)")
                    }
                    continue
                }
                let destination = r._destination!
                guard let inverseEntity = inverse.entity, destination.isKindOf(entity: inverseEntity) || inverseEntity.isKindOf(entity: destination) else {
                    throw fail("entity \(entityName): the inverse of relationship \(r.name) is \(inverse.entity?.name ?? "?").\(inverse.name), which is not a relationship of its destination entity \(destination.name ?? "?")")
                }
                if inverse._destination == nil, let name = inverse.destinationName, let d = entitiesByName[name] { inverse._destination = d }
                guard let back = inverse._destination, e.isKindOf(entity: back) || back.isKindOf(entity: e) else {
                    throw fail("entity \(entityName): relationship \(r.name) names \(inverseEntity.name ?? "?").\(inverse.name) as its inverse, but that relationship's destination is \(inverse._destination?.name ?? "nothing"), not \(entityName)")
                }
                if let other = inverse._inverse, other !== r {
                    throw fail("entity \(entityName): relationship \(r.name) names \(inverseEntity.name ?? "?").\(inverse.name) as its inverse, whose inverse is \(other.entity?.name ?? "?").\(other.name)")
                }
                inverse._inverse = r
                inverse.inverseName = r.name
            }
        }
    }

    /// The entity whose number (`Z_ENT`) is `number`, once a coordinator has loaded the model.
    func entity(number: Int) -> NSEntityDescription? { entitiesByNumber[number] }

    /// Each entity's class (see ``ManagedClasses/lookup(_:modules:)``), and the check of every class's
    /// `@Managed` properties against its entity. As in Core Data, a class never fails the load: a class
    /// describes the newest version of its model, and an older version (a migration's source model, an
    /// old store's own model) lacks some of its properties or has them of another kind or type. What does
    /// not fit is a warning naming the class, the property and the entity (``classWarnings``, logged
    /// once); accessing such a property on an object of this model traps then (Managed.swift).
    private func resolveClasses() -> [ObjectIdentifier: NSManagedObject.Type] {
        var warnings: [String] = []
        var classes: [ObjectIdentifier: NSManagedObject.Type] = [:]
        // A class the first pass does not find (a subclass with no @Managed property of its own, named
        // without its module) is looked for in the modules of the classes it did find.
        var unresolved: [NSEntityDescription] = []
        for e in _entities {
            if let cls = ManagedClasses.lookup(e) { classes[ObjectIdentifier(e)] = cls } else { unresolved.append(e) }
        }
        let modules = Set(classes.values.compactMap { ManagedClasses.module(of: $0) }).sorted()
        for e in unresolved {
            classes[ObjectIdentifier(e)] = ManagedClasses.lookup(e, modules: modules) ?? ManagedClasses.notFound(e, warnings: &warnings)
        }
        for e in _entities {
            ManagedClasses.noteLoaded(classes[ObjectIdentifier(e)]!, as: e.managedObjectClassName ?? "")
            ManagedClasses.noteEntity(e, of: classes[ObjectIdentifier(e)]!)
        }
        for e in _entities {
            let cls = classes[ObjectIdentifier(e)]!
            guard cls != NSManagedObject.self else { continue }
            let misfits = ManagedClasses.misfits(of: cls, entity: e) { classes[ObjectIdentifier($0)] ?? NSManagedObject.self }
            warnings += ManagedClasses.warnMisfits(misfits, model: fileVersionName)
        }
        classWarnings = warnings
        return classes
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
            // The columns of the entity's properties, which a composite's leaves must not take.
            var compositeColumns = Dictionary(e.properties.map { (ModelNameRules.columnName(forAttributeNamed: $0.name), $0.name) },
                                              uniquingKeysWith: { a, _ in a })
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
                if let r = p as? NSRelationshipDescription {
                    if r.minCount < 0 || r.maxCount < 0 || (r.maxCount > 0 && r.minCount > r.maxCount) {
                        throw fail("entity \(name): relationship \(p.name) has minCount \(r.minCount) and maxCount \(r.maxCount)")
                    }
                    continue
                }
                if p is NSFetchedPropertyDescription { continue }
                guard let a = p as? NSAttributeDescription else {
                    throw fail("entity \(name): property \(p.name) is neither an attribute nor a relationship")
                }
                if a.attributeType == .undefinedAttributeType && !a.isTransient {
                    throw fail("entity \(name): attribute \(p.name) has an undefined type and is not transient")
                }
                if a.attributeType == .objectIDAttributeType && !a.isTransient {
                    throw fail("entity \(name): attribute \(p.name) is of type ObjectID, which we support on transient attributes only")
                }
                if a.attributeType == .compositeAttributeType || a is NSCompositeAttributeDescription {
                    try Self.checkComposite(a, entityName: name, columns: &compositeColumns, fail: fail)
                    continue
                }
                if let d = a.defaultValue, a.attributeType.coerce(Value(any: d)) == nil {
                    throw fail("entity \(name): the default value of \(p.name) is not a \(a.attributeType.name)")
                }
            }
        }
    }
}

/// The model's warnings (a relationship without an inverse), as Core Data logs them.
let modelLogger = Logger(label: "OpenCoreData.model")
