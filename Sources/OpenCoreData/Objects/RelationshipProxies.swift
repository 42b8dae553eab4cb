import Foundation

/// The live set `mutableSetValue(forKey:)` returns: reads and writes go to the relationship of its
/// owner, so adding an object sets its inverse too, as Core Data's proxy does.
final class RelationshipMutableSet: NSMutableSet {
    private let owner: NSManagedObject
    private let slot: Int
    private let relationship: RelationshipLayout

    init(owner: NSManagedObject, slot: Int, relationship: RelationshipLayout) {
        self.owner = owner
        self.slot = slot
        self.relationship = relationship
        super.init(capacity: 0)
    }

    required init(capacity numItems: Int) { fatalError("A relationship set is made by mutableSetValue(forKey:)") }
    required init?(coder: NSCoder) { nil }

    private var objects: [NSManagedObject] { owner.relatedObjects(slot) }

    override var count: Int { owner.loadedToMany(slot).referenceCount }

    override func member(_ object: Any) -> Any? {
        guard let object = object as? NSManagedObject else { return nil }
        return objects.first { $0 === object }
    }

    override func objectEnumerator() -> NSEnumerator { NSArray(array: objects).objectEnumerator() }

    override func add(_ object: Any) {
        guard let object = object as? NSManagedObject else {
            fatalError("Unacceptable type of value for to-many relationship: property = \"\(relationship.relationship.name)\"; given type = \(type(of: object)).")
        }
        owner.addToMany(slot, relationship, [object])
    }

    override func remove(_ object: Any) {
        guard let object = object as? NSManagedObject else { return }
        owner.removeFromToMany(slot, relationship, [object])
    }

    override func removeAllObjects() { owner.removeFromToMany(slot, relationship, objects) }

    override func addObjects(from array: [Any]) { for object in array { add(object) } }

    override var allObjects: [Any] { objects }

    override func contains(_ anObject: Any) -> Bool { member(anObject) != nil }
}

/// The live ordered set `mutableOrderedSetValue(forKey:)` returns.
final class RelationshipMutableOrderedSet: NSMutableOrderedSet {
    private let owner: NSManagedObject
    private let slot: Int
    private let relationship: RelationshipLayout

    init(owner: NSManagedObject, slot: Int, relationship: RelationshipLayout) {
        self.owner = owner
        self.slot = slot
        self.relationship = relationship
        super.init(capacity: 0)
    }

    override init(capacity numItems: Int) { fatalError("A relationship ordered set is made by mutableOrderedSetValue(forKey:)") }
    required convenience init(arrayLiteral elements: Any...) { fatalError("A relationship ordered set is made by mutableOrderedSetValue(forKey:)") }
    required init?(coder: NSCoder) { nil }

    private var objects: [NSManagedObject] { owner.relatedObjects(slot) }

    override var count: Int { owner.loadedToMany(slot).referenceCount }

    override func object(at idx: Int) -> Any { objects[idx] }

    override func index(of object: Any) -> Int {
        guard let object = object as? NSManagedObject else { return NSNotFound }
        return objects.firstIndex { $0 === object } ?? NSNotFound
    }

    override func insert(_ object: Any, at idx: Int) {
        guard let object = object as? NSManagedObject else {
            fatalError("Unacceptable type of value for to-many relationship: property = \"\(relationship.relationship.name)\"; given type = \(type(of: object)).")
        }
        owner.addToMany(slot, relationship, [object], at: idx)
    }

    override func add(_ object: Any) { insert(object, at: count) }

    override func addObjects(from array: [Any]) { for object in array { add(object) } }

    override func remove(_ object: Any) {
        guard let object = object as? NSManagedObject else { return }
        owner.removeFromToMany(slot, relationship, [object])
    }

    override func removeAllObjects() { owner.removeFromToMany(slot, relationship, objects) }

    override func contains(_ object: Any) -> Bool { index(of: object) != NSNotFound }


    override func removeObject(at idx: Int) {
        owner.removeFromToMany(slot, relationship, [objects[idx]])
    }

    override func replaceObject(at idx: Int, with object: Any) {
        var list = objects
        guard let object = object as? NSManagedObject else { return }
        let old = list[idx]
        list[idx] = object
        owner.removeFromToMany(slot, relationship, [old])
        owner.replaceOrdered(slot, relationship, with: list)
    }
}
