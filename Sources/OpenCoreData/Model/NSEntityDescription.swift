import Foundation

/// Mirrors Core Data's `NSEntityDescription`: a named entity with properties, subentities and a class.
///
/// A model is mutable until a coordinator loads it; after that it is frozen (as Core Data's becomes
/// immutable) and changing it traps.
open class NSEntityDescription: NSObject, @unchecked Sendable {
    /// Mirrors `name`.
    public var name: String? { willSet { checkMutable() } }
    /// Mirrors `managedObjectClassName`: the class objects of the entity are made of, as `NSStringFromClass`
    /// names it (`"MyModule.Products"`) or as Xcode writes it (`"Products"`, found in the module of the
    /// bundle the model was read from, or among the program's `@Managed` classes; docs/ModelClasses.md).
    /// Not found or unset, objects are plain `NSManagedObject`s (a warning says so when not found).
    public var managedObjectClassName: String! { willSet { checkMutable() } }
    /// Mirrors `isAbstract`: an abstract entity cannot be instantiated, only its subentities.
    public var isAbstract: Bool = false { willSet { checkMutable() } }
    /// Mirrors `userInfo`.
    public var userInfo: [AnyHashable: Any]? = nil
    /// Mirrors `renamingIdentifier`: the entity's name in an earlier model version, for migration (a model
    /// file's `elementID`). Stored; migration does not read it yet.
    public var renamingIdentifier: String? = nil { willSet { checkMutable() } }
    /// Mirrors `versionHashModifier`: a string that changes the entity's ``versionHash``, to mark a change
    /// the schema does not show. (Our SQLite store's own model check, `NSManagedObjectModel.versionHash`,
    /// does not include it.)
    public var versionHashModifier: String? = nil { willSet { checkMutable() } }
    /// Mirrors `versionHash`: a SHA-256 digest of the entity's schema (name, abstractness, superentity,
    /// stored properties, `versionHashModifier`, uniqueness constraints), computed as Core Data computes it
    /// (see VersionHashes.swift): equal to the hash a store written by Core Data records for the entity.
    public var versionHash: Data { VersionHashes.entity(self) }
    /// Mirrors `indexes`: the entity's fetch indexes (a model file's `fetchIndex` elements). The SQLite
    /// store creates them when it opens (``NSFetchIndexDescription``; docs/Store.md, "Fetch indexes").
    public var indexes: [NSFetchIndexDescription] = [] {
        willSet { checkMutable() }
        didSet { for i in indexes { i.entity = self } }
    }
    /// Mirrors `uniquenessConstraints`: each constraint is a list of property names (or descriptions) whose
    /// values together must be unique (a model file's `uniquenessConstraint`). A constraint covers the
    /// entity and its subentities. The SQLite store makes a unique index of each, and a save checks them
    /// and hands conflicts to the merge policy's `resolve(constraintConflicts:)` (docs/Store.md,
    /// "Uniqueness constraints").
    public var uniquenessConstraints: [[Any]] = [] { willSet { checkMutable() } }
    /// Mirrors `compoundIndexes` (deprecated in Core Data for ``indexes``): each compound index a list of
    /// property names or ``NSPropertyDescription``s (a model file's `<compoundIndexes>`). Reading returns
    /// what was set. Setting it also makes each list a fetch index of ``indexes``, named `compoundIndex1`,
    /// `compoundIndex2`… (the next numbers free), its elements ascending and binary — replacing those an
    /// earlier value made — so the SQLite store creates it (`CREATE INDEX Z_<Entity>_compoundIndex1 …`).
    /// As in Core Data, it is advisory: a list naming no property of the entity makes no index (logged
    /// when the store opens).
    public var compoundIndexes: [[Any]] {
        get { compoundIndexStorage.lists }
        set {
            checkMutable()
            let replaced = Set(compoundIndexStorage.indexes.map(ObjectIdentifier.init))
            var kept = indexes.filter { !replaced.contains(ObjectIdentifier($0)) }
            var number = kept.count
            let made = newValue.map { list -> NSFetchIndexDescription in
                repeat { number += 1 } while kept.contains { $0.name == "compoundIndex\(number)" }
                let index = NSFetchIndexDescription(name: "compoundIndex\(number)", elements: list.map { item in
                    (item as? NSPropertyDescription).map { NSFetchIndexElementDescription(property: $0, collationType: .binary) }
                        ?? NSFetchIndexElementDescription(propertyName: "\(item)", collationType: .binary)
                })
                kept.append(index)
                return index
            }
            compoundIndexStorage = (newValue, made)
            indexes = kept
        }
    }
    private var compoundIndexStorage: (lists: [[Any]], indexes: [NSFetchIndexDescription]) = ([], [])
    /// Not in Core Data's run-time API: Xcode's "Codegen" setting (a model file's `codeGenerationType`:
    /// `"class"`, `"category"`, or `nil` for manual), which Xcode's class generation reads.
    public var codeGenerationType: String? = nil { willSet { checkMutable() } }

    private var ownProperties: [NSPropertyDescription] = []
    private var _subentities: [NSEntityDescription] = []

    /// Mirrors `superentity`.
    public internal(set) var superentity: NSEntityDescription? {
        get { superentityReference.entity }
        set { superentityReference = WeakEntityReference(newValue) }
    }
    private var superentityReference = WeakEntityReference()
    /// What the model's references back to this entity point at (see ``WeakEntityReference``).
    private(set) var handle: EntityHandle!
    /// Mirrors `managedObjectModel`.
    public internal(set) weak var managedObjectModel: NSManagedObjectModel!

    /// Set when the model is frozen.
    var layout: EntityLayout!
    /// The modules the class named by `managedObjectClassName` may live in without naming one: the
    /// module of the bundle the model file was read from (see ``ManagedClasses/modules(forModelAt:)``).
    var classModules: [String] = []

    public override init() {
        super.init()
        handle = EntityHandle(self)
    }

    /// The entity of an object made by `NSManagedObject()` (Core Data's object of no entity): no name, no
    /// properties, no model; its layout has no slots, so that any property access names the key it lacks.
    static let noEntity: NSEntityDescription = {
        let entity = NSEntityDescription()
        entity.layout = EntityLayout(entityID: 0, root: entity, rootEntityID: 0, tableName: "", properties: [], kinds: [],
                                     columns: [], entityIDs: [], objectClass: NSManagedObject.self)
        return entity
    }()

    /// Mirrors `init(coder:)` (`NSSecureCoding`): an entity as Core Data archives it in a compiled model (a
    /// `.mom` file, a store's model cache), with Apple's keys (Model/Files/CompiledModel/
    /// NSEntityDescription+Coding.swift). Its properties (ordered by name) and subentities come with it; its
    /// relationships name their destinations, found when the model is decoded or loaded.
    public required init?(coder: NSCoder) {
        super.init()
        handle = EntityHandle(self)
        guard decodeEntity(from: coder) else { return nil }
    }

    /// Mirrors `encode(with:)` (`NSCoding`): Apple's keys; the model and superentity as conditional
    /// references, the entity's own properties (not the inherited ones).
    open func encode(with coder: NSCoder) { encodeEntity(with: coder) }

    /// A convenience not in Core Data: an entity with a name and its own properties.
    public convenience init(name: String, managedObjectClassName: String? = nil, properties: [NSPropertyDescription] = [],
                            subentities: [NSEntityDescription] = [], isAbstract: Bool = false) {
        self.init()
        self.name = name
        self.managedObjectClassName = managedObjectClassName ?? "NSManagedObject"
        self.properties = properties
        self.subentities = subentities
        self.isAbstract = isAbstract
    }

    private func checkMutable() {
        precondition(managedObjectModel?.isFrozen != true,
                     "Can't modify an immutable model (entity \(name ?? "?")): a coordinator has loaded it")
    }

    /// Mirrors `properties`: the superentity's properties followed by the entity's own. Setting it sets the
    /// entity's own properties.
    public var properties: [NSPropertyDescription] {
        get { (superentity?.properties ?? []) + ownProperties }
        set {
            checkMutable()
            ownProperties = newValue
            for p in newValue { p.entity = self }
        }
    }

    /// Mirrors `subentities`.
    public var subentities: [NSEntityDescription] {
        get { _subentities }
        set {
            checkMutable()
            for e in _subentities where e.superentity === self { e.superentity = nil }
            _subentities = newValue
            for e in newValue { e.superentity = self }
        }
    }

    /// Mirrors `propertiesByName`.
    public var propertiesByName: [String: NSPropertyDescription] {
        Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Mirrors `attributesByName`.
    public var attributesByName: [String: NSAttributeDescription] {
        Dictionary(properties.compactMap { $0 as? NSAttributeDescription }.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Mirrors `relationshipsByName`.
    public var relationshipsByName: [String: NSRelationshipDescription] {
        Dictionary(properties.compactMap { $0 as? NSRelationshipDescription }.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Mirrors `relationships(forDestination:)`: the relationships whose destination is `entity`.
    public func relationships(forDestination entity: NSEntityDescription) -> [NSRelationshipDescription] {
        properties.compactMap { $0 as? NSRelationshipDescription }.filter { $0.destinationEntity === entity }
    }

    /// Mirrors `subentitiesByName`.
    public var subentitiesByName: [String: NSEntityDescription] {
        Dictionary(subentities.compactMap { e in e.name.map { ($0, e) } }, uniquingKeysWith: { a, _ in a })
    }

    /// Mirrors `isKindOf(entity:)`: whether this entity is `entity` or inherits from it.
    public func isKindOf(entity: NSEntityDescription) -> Bool {
        var current: NSEntityDescription? = self
        var steps = 0
        while let e = current, steps < 1000 {
            if e === entity { return true }
            current = e.superentity
            steps += 1
        }
        return false
    }

    /// Mirrors `NSEntityDescription.entity(forEntityName:in:)`.
    public class func entity(forEntityName entityName: String, in context: NSManagedObjectContext) -> NSEntityDescription? {
        context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[entityName]
    }

    /// Mirrors `NSEntityDescription.insertNewObject(forEntityName:into:)`. Traps if the model has no such
    /// entity, as Core Data raises.
    public class func insertNewObject(forEntityName entityName: String, into context: NSManagedObjectContext) -> NSManagedObject {
        guard let entity = entity(forEntityName: entityName, in: context) else {
            fatalError("+entityForName: could not locate an entity named '\(entityName)' in this model.")
        }
        let cls = entity.layout.objectClass
        return cls.init(entity: entity, insertInto: context)
    }

    public override var description: String {
        "(<NSEntityDescription> name \(name ?? "nil"), managedObjectClassName \(managedObjectClassName ?? "nil"), properties \(properties))"
    }
}
