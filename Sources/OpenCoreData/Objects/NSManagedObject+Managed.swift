import Foundation

// The accessors the `@Managed` and `@ManagedAccessor` macros generate call these (Core Data's `@NSManaged`
// accessors are made by its runtime; these are ours). They are public because the generated code lives in
// the app's module (Managed.swift says why they cannot be `@_spi`); they are not Core Data API and are not
// meant to be called by hand. Overloads pick the form from the property's declared type: an attribute
// value, an object (to-one), a set (to-many), or anything else (a transformable attribute's custom type).
// Getters take the declared type as an argument: overloads that differ in their return type only would be
// ambiguous. The object comes first; the helpers they share are methods of `NSManagedObject` (below).

extension _ManagedMacroSupport {
    // MARK: - Attributes

    /// The getter of a `@Managed` attribute property: `value(forKey:)` without the key lookup or the boxing.
    public static func get<T: AttributeValue>(_ object: NSManagedObject, _ property: Property, as _: T.Type) -> T {
        object.checkQueue("@Managed property getter")
        let slot = property.slot(in: object, .attribute)
        object.noteObservedRead(slot)
        if object.isFault { object.fireFault() }
        let value = slot < object.values.count ? object.values[slot] : .null
        if let typed = T._managedValue(from: StorageValue(value: value)) { return typed }
        object.unreadable(value, property, as: T.self)
    }

    // Concrete getters for the types Xcode writes most, beside the generic one (why: Benchmarks/README.md).

    /// The getter of a `String?` attribute property (the generic getter's result, without its dispatch).
    public static func get(_ object: NSManagedObject, _ property: Property, as _: (String?).Type) -> String? {
        object.read(property) { value in if case .string(let x) = value { return .some(x) }; return nil }
    }

    /// The getter of a `String` attribute property (the generic getter's result, without its dispatch).
    public static func get(_ object: NSManagedObject, _ property: Property, as _: (String).Type) -> String {
        object.read(property) { value in if case .string(let x) = value { return x }; return nil }
    }

    /// The getter of a `Int16` attribute property (the generic getter's result, without its dispatch).
    public static func get(_ object: NSManagedObject, _ property: Property, as _: (Int16).Type) -> Int16 {
        object.readInteger(property) { x in Int16(truncatingIfNeeded: x) }
    }

    /// The getter of a `Int32` attribute property (the generic getter's result, without its dispatch).
    public static func get(_ object: NSManagedObject, _ property: Property, as _: (Int32).Type) -> Int32 {
        object.readInteger(property) { x in Int32(truncatingIfNeeded: x) }
    }

    /// The getter of a `Int64` attribute property (the generic getter's result, without its dispatch).
    public static func get(_ object: NSManagedObject, _ property: Property, as _: (Int64).Type) -> Int64 {
        object.readInteger(property) { x in x }
    }

    /// The getter of a `Int` attribute property (the generic getter's result, without its dispatch).
    public static func get(_ object: NSManagedObject, _ property: Property, as _: (Int).Type) -> Int {
        object.readInteger(property) { x in Int(truncatingIfNeeded: x) }
    }

    /// The getter of a `Double` attribute property (the generic getter's result, without its dispatch),
    /// and of a `TimeInterval` one of a date attribute (its seconds since 2001-01-01).
    public static func get(_ object: NSManagedObject, _ property: Property, as _: (Double).Type) -> Double {
        object.read(property) { value in
            switch value {
            case .double(let x): return x
            case .date(let x): return x.timeIntervalSinceReferenceDate
            default: return nil
            }
        }
    }

    /// The getter of a `Float` attribute property (the generic getter's result, without its dispatch).
    public static func get(_ object: NSManagedObject, _ property: Property, as _: (Float).Type) -> Float {
        object.read(property) { value in if case .double(let x) = value { return Float(x) }; return nil }
    }

    /// The getter of a `Bool` attribute property (the generic getter's result, without its dispatch).
    public static func get(_ object: NSManagedObject, _ property: Property, as _: (Bool).Type) -> Bool {
        object.read(property) { value in if case .bool(let x) = value { return x }; return nil }
    }

    /// The getter of a `Date?` attribute property (the generic getter's result, without its dispatch).
    public static func get(_ object: NSManagedObject, _ property: Property, as _: (Date?).Type) -> Date? {
        object.read(property) { value in if case .date(let x) = value { return .some(x) }; return nil }
    }

    /// The getter of a `Data?` attribute property (the generic getter's result, without its dispatch).
    public static func get(_ object: NSManagedObject, _ property: Property, as _: (Data?).Type) -> Data? {
        object.read(property) { value in if case .data(let x) = value { return .some(x) }; return nil }
    }

    /// The getter of a `UUID?` attribute property (the generic getter's result, without its dispatch).
    public static func get(_ object: NSManagedObject, _ property: Property, as _: (UUID?).Type) -> UUID? {
        object.read(property) { value in if case .uuid(let x) = value { return .some(x) }; return nil }
    }

    /// The getter of a `URL?` attribute property (the generic getter's result, without its dispatch).
    public static func get(_ object: NSManagedObject, _ property: Property, as _: (URL?).Type) -> URL? {
        object.read(property) { value in if case .url(let x) = value { return .some(x) }; return nil }
    }

    /// The getter of a `Decimal?` attribute property (the generic getter's result, without its dispatch).
    public static func get(_ object: NSManagedObject, _ property: Property, as _: (Decimal?).Type) -> Decimal? {
        object.read(property) { value in if case .decimal(let x) = value { return .some(x) }; return nil }
    }

    /// The setter of a `@Managed` attribute property: `setValue(_:forKey:)` without the key lookup. A
    /// `TimeInterval` (`Double`) property of a date attribute — Xcode's "Use Scalar Type" for a date — sets
    /// the date that many seconds after 2001-01-01 00:00:00 UTC, as Core Data's scalar date accessors do.
    public static func set<T: AttributeValue>(_ object: NSManagedObject, _ value: T, _ property: Property) {
        setAttributeValue(object, value._managedStorageValue.value, property)
    }

    /// What the setter of an attribute property does with the value as stored (`stored`); the concrete
    /// setters (NSManagedObject+ManagedSetters.swift) share it.
    @inline(__always)
    static func setAttributeValue(_ object: NSManagedObject, _ stored: Value, _ property: Property) {
        object.checkQueue("@Managed property setter")
        let (slot, isPrimitive) = property.primitiveSlot(in: object, .attribute)
        var raw = stored
        if case .double(let seconds) = raw, object.layout.kinds[slot].attributeType == .dateAttributeType {
            raw = .date(Date(timeIntervalSinceReferenceDate: seconds))
        }
        // A primitive accessor (`primitiveName`) sets the value without recording a change, as Core Data's.
        if isPrimitive { object.setPrimitiveAttribute(slot, raw) } else { object.setAttribute(slot, raw) }
    }

    /// The getter of a `@Managed` property of a transformable attribute's custom type (see
    /// `ManagedTransform`: `NSCoding` objects, `Codable` values, `Data`).
    public static func get<T>(_ object: NSManagedObject, _ property: Property, as _: T.Type) -> T {
        transformableValue(object, property, as: T.self)
    }

    /// What the getter of a transformable attribute's custom type reads.
    static func transformableValue<T>(_ object: NSManagedObject, _ property: Property, as _: T.Type) -> T {
        object.checkQueue("@Managed property getter")
        let slot = property.slot(in: object, .attribute)
        object.noteObservedRead(slot)
        if object.isFault { object.fireFault() }
        let value = slot < object.values.count ? object.values[slot] : .null
        // A value kept whole (a custom transformer's), or the data `ManagedTransform` made of it, which the
        // default transformer hands back as `Data`.
        if let typed = value.anyValue as? T { return typed }
        if let data = value.anyValue as? Data, let typed = ManagedTransform.decode(.data(data), as: T.self, property: property.name) { return typed }
        if let typed = ManagedTransform.decode(value, as: T.self, property: property.name) { return typed }
        object.unreadable(value, property, as: T.self)
    }

    /// The setter of a `@Managed` property of a transformable attribute's custom type.
    public static func set<T>(_ object: NSManagedObject, _ value: T, _ property: Property) {
        setTransformable(object, value, property)
    }

    /// What the setter of a transformable attribute's custom type does.
    static func setTransformable<T>(_ object: NSManagedObject, _ value: T, _ property: Property) {
        object.checkQueue("@Managed property setter")
        let (slot, isPrimitive) = property.primitiveSlot(in: object, .attribute)
        // A custom transformer gets the value whole, as through `setValue(_:forKey:)`; for the default one
        // (`NSSecureUnarchiveFromData`) the value becomes data here (`NSCoding` or `Codable`), which it keeps.
        let transformer = (object.layout.properties[slot] as? NSAttributeDescription)?.valueTransformerName ?? ""
        let custom = !transformer.isEmpty && transformer != "NSSecureUnarchiveFromData"
        let raw = custom ? TransformableValue.slotValue(value) : ManagedTransform.encode(value, property: property.name)
        if isPrimitive { object.setPrimitiveAttribute(slot, raw) } else { object.setAttribute(slot, raw) }
    }

    // MARK: - To-one relationships

    /// The getter of a `@Managed` to-one property (`Classification?`).
    public static func get<T: NSManagedObject>(_ object: NSManagedObject, _ property: Property, as _: T?.Type) -> T? {
        object.checkQueue("@Managed property getter")
        let slot = property.slot(in: object, .toOne)
        object.noteObservedRead(slot)
        guard let related = object.value(at: slot).objectRef.flatMap({ object.managedObjectContext?.object(for: $0) }) else { return nil }
        return object.cast(related, property)
    }

    /// The getter of a non-optional `@Managed` to-one property (`Classification`): traps when it is nil.
    public static func get<T: NSManagedObject>(_ object: NSManagedObject, _ property: Property, as _: T.Type) -> T {
        guard let related = get(object, property, as: T?.self) else {
            fatalError("class \(NSStringFromClass(type(of: object))): @Managed property \(property.name) of type \(T.self) read nil from entity \(object.entity.name ?? "?"); declare it optional")
        }
        return related
    }

    /// The setter of a `@Managed` to-one property: the inverse follows at once, as with `setValue(_:forKey:)`.
    public static func set<T: NSManagedObject>(_ object: NSManagedObject, _ value: T?, _ property: Property) {
        object.checkQueue("@Managed property setter")
        let slot = property.slot(in: object, .toOne)
        object.setToOne(slot, object.layout.kinds[slot].relationship!, to: value)
    }

    /// The setter of a non-optional `@Managed` to-one property.
    public static func set<T: NSManagedObject>(_ object: NSManagedObject, _ value: T, _ property: Property) {
        set(object, Optional(value), property)
    }

    // MARK: - To-many relationships

    /// The getter of a `@Managed` to-many property declared as a Swift set (`Set<Zoo>`).
    public static func get<T: NSManagedObject>(_ object: NSManagedObject, _ property: Property, as _: Set<T>.Type) -> Set<T> {
        object.checkQueue("@Managed property getter")
        let slot = property.slot(in: object, .toMany)
        object.noteObservedRead(slot)
        return Set(object.relatedObjects(slot).map { object.cast($0, property) as T })
    }

    /// The getter of a `@Managed` to-many property declared as an optional Swift set (never nil).
    public static func get<T: NSManagedObject>(_ object: NSManagedObject, _ property: Property, as _: Set<T>?.Type) -> Set<T>? {
        get(object, property, as: Set<T>.self)
    }

    /// The getter of a `@Managed` to-many property declared `NSSet?` (Xcode's type): what
    /// `value(forKey:)` returns (never nil).
    public static func get(_ object: NSManagedObject, _ property: Property, as _: NSSet?.Type) -> NSSet? {
        get(object, property, as: NSSet.self)
    }

    /// The getter of a `@Managed` to-many property declared `NSSet`.
    public static func get(_ object: NSManagedObject, _ property: Property, as _: NSSet.Type) -> NSSet {
        object.checkQueue("@Managed property getter")
        let slot = property.slot(in: object, .toMany)
        object.noteObservedRead(slot)
        return NSManagedObject.objectSet(object.relatedObjects(slot))
    }

    /// The getter of a `@Managed` ordered to-many property declared `NSOrderedSet?` (never nil).
    public static func get(_ object: NSManagedObject, _ property: Property, as _: NSOrderedSet?.Type) -> NSOrderedSet? {
        get(object, property, as: NSOrderedSet.self)
    }

    /// The getter of a `@Managed` ordered to-many property declared `NSOrderedSet`.
    public static func get(_ object: NSManagedObject, _ property: Property, as _: NSOrderedSet.Type) -> NSOrderedSet {
        object.checkQueue("@Managed property getter")
        let slot = property.slot(in: object, .toMany)
        object.noteObservedRead(slot)
        return NSManagedObject.orderedObjectSet(object.relatedObjects(slot))
    }

    /// The setter of a `@Managed` to-many property declared as a Swift set: replaces the relationship's
    /// objects, inverses following, as `setValue(_:forKey:)` with a set does.
    public static func set<T: NSManagedObject>(_ object: NSManagedObject, _ value: Set<T>?, _ property: Property) {
        object.setToMany(property, value.map { Array($0) as [NSManagedObject] })
    }

    /// The setter of a non-optional `@Managed` Swift-set property.
    public static func set<T: NSManagedObject>(_ object: NSManagedObject, _ value: Set<T>, _ property: Property) {
        object.setToMany(property, Array(value))
    }

    /// The setter of a `@Managed` to-many property declared `NSSet?`.
    public static func set(_ object: NSManagedObject, _ value: NSSet?, _ property: Property) {
        object.setToMany(property, value)
    }

    /// The setter of a `@Managed` to-many property declared `NSSet`.
    public static func set(_ object: NSManagedObject, _ value: NSSet, _ property: Property) {
        object.setToMany(property, value)
    }

    /// The setter of a `@Managed` ordered to-many property declared `NSOrderedSet?`.
    public static func set(_ object: NSManagedObject, _ value: NSOrderedSet?, _ property: Property) {
        object.setToMany(property, value)
    }

    /// The setter of a `@Managed` ordered to-many property declared `NSOrderedSet`.
    public static func set(_ object: NSManagedObject, _ value: NSOrderedSet, _ property: Property) {
        object.setToMany(property, value)
    }

    // MARK: - Xcode's to-many accessors (@ManagedAccessor)

    /// Mirrors Xcode's generated `addToX(_ value:)`: adds one object (at the end when ordered).
    public static func add(_ object: NSManagedObject, _ value: NSManagedObject, to relationship: String) {
        object.editToMany(relationship, adding: true) { _ in [value] }
    }

    /// Mirrors Xcode's generated `addToX(_ values: NSSet)`.
    public static func add(_ object: NSManagedObject, _ values: NSSet, to relationship: String) {
        object.editToMany(relationship, adding: true, collection: values)
    }

    /// Mirrors Xcode's generated `addToX(_ values: NSOrderedSet)` of an ordered relationship.
    public static func add(_ object: NSManagedObject, _ values: NSOrderedSet, to relationship: String) {
        object.editToMany(relationship, adding: true, collection: values)
    }

    /// `addToX(_:)` with a Swift set (not Xcode's form; accepted too).
    public static func add<T: NSManagedObject>(_ object: NSManagedObject, _ values: Set<T>, to relationship: String) {
        add(object, NSSet(array: Array(values)), to: relationship)
    }

    /// Mirrors Xcode's generated `removeFromX(_ value:)`.
    public static func remove(_ object: NSManagedObject, _ value: NSManagedObject, from relationship: String) {
        object.editToMany(relationship, adding: false) { _ in [value] }
    }

    /// Mirrors Xcode's generated `removeFromX(_ values: NSSet)`.
    public static func remove(_ object: NSManagedObject, _ values: NSSet, from relationship: String) {
        object.editToMany(relationship, adding: false, collection: values)
    }

    /// Mirrors Xcode's generated `removeFromX(_ values: NSOrderedSet)`.
    public static func remove(_ object: NSManagedObject, _ values: NSOrderedSet, from relationship: String) {
        object.editToMany(relationship, adding: false, collection: values)
    }

    /// `removeFromX(_:)` with a Swift set (not Xcode's form; accepted too).
    public static func remove<T: NSManagedObject>(_ object: NSManagedObject, _ values: Set<T>, from relationship: String) {
        remove(object, NSSet(array: Array(values)), from: relationship)
    }

    /// Mirrors Xcode's generated `removeFromX(at idx: Int)` of an ordered relationship.
    public static func remove(_ object: NSManagedObject, at index: Int, from relationship: String) {
        object.checkQueue("@ManagedAccessor")
        let (slot, r) = object.toMany(named: relationship, "removeFrom")
        let objects = object.relatedObjects(slot)
        precondition(objects.indices.contains(index), "removeFrom\(relationship)(at: \(index)): index out of bounds (\(objects.count) objects)")
        object.removeFromToMany(slot, r, [objects[index]])
    }

    /// Mirrors Xcode's generated `removeFromX(at indexes: NSIndexSet)`.
    public static func remove(_ object: NSManagedObject, at indexes: NSIndexSet, from relationship: String) {
        object.checkQueue("@ManagedAccessor")
        let (slot, r) = object.toMany(named: relationship, "removeFrom")
        let objects = object.relatedObjects(slot)
        let chosen = (indexes as IndexSet).map { i -> NSManagedObject in
            precondition(objects.indices.contains(i), "removeFrom\(relationship)(at:): index \(i) out of bounds (\(objects.count) objects)")
            return objects[i]
        }
        object.removeFromToMany(slot, r, chosen)
    }

    /// Mirrors Xcode's generated `insertIntoX(_ value:, at idx: Int)` of an ordered relationship.
    public static func insert(_ object: NSManagedObject, _ value: NSManagedObject, at index: Int, into relationship: String) {
        object.checkQueue("@ManagedAccessor")
        let (slot, r) = object.toMany(named: relationship, "insertInto")
        precondition(index >= 0 && index <= object.loadedToMany(slot).referenceCount, "insertInto\(relationship)(_:at: \(index)): index out of bounds")
        object.addToMany(slot, r, [value], at: index)
    }

    /// Mirrors Xcode's generated `insertIntoX(_ values: [X], at indexes: NSIndexSet)`: each object goes
    /// to its index, in ascending order of the indexes (as `NSMutableOrderedSet.insert(_:at:)` does).
    public static func insert<T: NSManagedObject>(_ object: NSManagedObject, _ values: [T], at indexes: NSIndexSet, into relationship: String) {
        object.checkQueue("@ManagedAccessor")
        let (slot, r) = object.toMany(named: relationship, "insertInto")
        let positions = Array(indexes as IndexSet)
        precondition(positions.count == values.count, "insertInto\(relationship)(_:at:): \(values.count) objects for \(positions.count) indexes")
        for (element, index) in zip(values, positions) { object.addToMany(slot, r, [element], at: index) }
    }

    /// Mirrors Xcode's generated `replaceX(at idx: Int, with value:)` of an ordered relationship.
    public static func replace(_ object: NSManagedObject, at index: Int, with value: NSManagedObject, in relationship: String) {
        object.checkQueue("@ManagedAccessor")
        let (slot, r) = object.toMany(named: relationship, "replace")
        var objects = object.relatedObjects(slot)
        precondition(objects.indices.contains(index), "replace\(relationship)(at: \(index), with:): index out of bounds (\(objects.count) objects)")
        let old = objects[index]
        objects[index] = value
        if old !== value { object.removeFromToMany(slot, r, [old]) }
        object.replaceOrdered(slot, r, with: objects)
    }

    /// Mirrors Xcode's generated `replaceX(at indexes: NSIndexSet, with values: [X])`.
    public static func replace<T: NSManagedObject>(_ object: NSManagedObject, at indexes: NSIndexSet, with values: [T], in relationship: String) {
        let positions = Array(indexes as IndexSet)
        precondition(positions.count == values.count, "replace\(relationship)(at:with:): \(values.count) objects for \(positions.count) indexes")
        for (index, element) in zip(positions, values) { replace(object, at: index, with: element, in: relationship) }
    }
}

// The helpers of the accessors above.
extension NSManagedObject {
    /// An attribute's slot value, the fault fired: the common part of the getters.
    @inline(__always)
    fileprivate func attributeValue(_ property: _ManagedMacroSupport.Property) -> Value {
        checkQueue("@Managed property getter")
        let slot = property.slot(in: self, .attribute)
        noteObservedRead(slot)
        return loadedValue(slot)
    }

    /// The common part of the integer getters: a loaded integer is returned as it is
    /// (``NSManagedObject/loadedInteger(_:)``), without the generic conversion; anything else (a fault,
    /// `nil`, another kind of value) is read and converted as the other getters do.
    @inline(__always)
    fileprivate func readInteger<T: _ManagedMacroSupport.AttributeValue>(_ property: _ManagedMacroSupport.Property, _ make: (Int64) -> T) -> T {
        checkQueue("@Managed property getter")
        let slot = property.slot(in: self, .attribute)
        noteObservedRead(slot)
        if let x = loadedInteger(slot) { return make(x) }
        return converted(loadedValue(slot), property) { value in if case .int(let x) = value { return make(x) }; return nil }
    }

    @inline(__always)
    fileprivate func read<T: _ManagedMacroSupport.AttributeValue>(_ property: _ManagedMacroSupport.Property, _ fast: (Value) -> T?) -> T {
        converted(attributeValue(property), property, fast)
    }

    /// `value` as the property's type: `fast`, else the type's own conversion, else the getter traps.
    @inline(__always)
    fileprivate func converted<T: _ManagedMacroSupport.AttributeValue>(_ value: Value, _ property: _ManagedMacroSupport.Property, _ fast: (Value) -> T?) -> T {
        if let typed = fast(value) ?? T._managedValue(from: _ManagedMacroSupport.StorageValue(value: value)) { return typed }
        unreadable(value, property, as: T.self)
    }

    fileprivate func unreadable<T>(_ value: Value, _ property: _ManagedMacroSupport.Property, as _: T.Type) -> Never {
        let prefix = "class \(NSStringFromClass(type(of: self))): @Managed property \(property.name) of type \(T.self) read"
        if value.isNull { fatalError("\(prefix) nil from entity \(entity.name ?? "?"); declare it optional") }
        let kind = layout.kinds[property.slot(in: self, .attribute)].summary
        fatalError("\(prefix) a value of another type (\(PredicatePrinter.plainText(value))) from entity \(entity.name ?? "?"), whose \(property.name) is \(kind) in \(_ManagedMacroSupport.Property.modelDescription(self))")
    }

    /// Sets an attribute's slot as `setValue(_:forKey:)` does: the value is converted to the attribute's
    /// type (kept as given when it does not convert, for validation to reject at save), and a change is
    /// recorded only when the value differs.
    func setAttribute(_ slot: Int, _ raw: Value) {
        if isFault { fireFault() }
        let type = layout.kinds[slot].attributeType
        let new = type.map { $0.holdsOwnRepresentation(raw) ? raw : $0.coerce(raw) ?? raw } ?? raw
        guard !values[slot].isIdentical(to: new) else { return }
        noteUndoableChange(slot)
        values[slot] = new
        // An insert not announced yet is announced whole: its context has nothing to note.
        if insertIsUnannounced, lifecycle == .inserted { return }
        managedObjectContext?.objectDidChange(self, slot: slot)
    }

    /// Before `slot` changes: the context's undo manager, if any, keeps the value it has. Not looked for
    /// until some context of the process has had an undo manager (``UndoRecording/everUsed``).
    @inline(__always) func noteUndoableChange(_ slot: Int) {
        guard UndoRecording.everUsed.load(ordering: .relaxed) else { return }
        if let undo = managedObjectContext?.undoRecording { undo.willChange(self, slot: slot) }
    }

    fileprivate func cast<T: NSManagedObject>(_ object: NSManagedObject, _ property: _ManagedMacroSupport.Property) -> T {
        guard let typed = object as? T else {
            fatalError("class \(NSStringFromClass(type(of: self))): @Managed property \(property.name) expects \(T.self), but the object is a \(NSStringFromClass(type(of: object))) (entity \(object.entity.name ?? "?")); check the destination's managedObjectClassName")
        }
        return typed
    }

    fileprivate func setToMany(_ property: _ManagedMacroSupport.Property, _ value: Any?) {
        checkQueue("@Managed property setter")
        let slot = property.slot(in: self, .toMany)
        setRelationship(slot, layout.kinds[slot].relationship!, to: value)
    }

    /// The relationship an accessor function names (`Zoos` in `addToZoos(_:)`): `zoos`, or the name as
    /// the function spells it. Traps for a name that is not a to-many relationship of the object's
    /// entity (the model's load only warns: the class may describe another version of the model).
    fileprivate func toMany(named spelled: String, _ function: String) -> (Int, RelationshipLayout) {
        let lowered = spelled.prefix(1).lowercased() + spelled.dropFirst()
        guard let slot = layout.slotByName[lowered] ?? layout.slotByName[spelled], case .toMany(let r) = layout.kinds[slot] else {
            fatalError("class \(NSStringFromClass(type(of: self))): @ManagedAccessor \(function)\(spelled): entity \(entity.name ?? "?") has no to-many relationship \(lowered) in \(_ManagedMacroSupport.Property.modelDescription(self))")
        }
        return (slot, r)
    }

    /// `addToX(_:)` / `removeFromX(_:)`: the objects `objects` gives for the relationship added or removed.
    fileprivate func editToMany(_ relationship: String, adding: Bool, _ objects: (RelationshipLayout) -> [NSManagedObject]) {
        checkQueue("@ManagedAccessor")
        let (slot, r) = toMany(named: relationship, adding ? "addTo" : "removeFrom")
        if adding { addToMany(slot, r, objects(r)) } else { removeFromToMany(slot, r, objects(r)) }
    }

    /// `addToX(_:)` / `removeFromX(_:)` with an `NSSet` or `NSOrderedSet`.
    fileprivate func editToMany(_ relationship: String, adding: Bool, collection: Any) {
        editToMany(relationship, adding: adding) { r in Self.objects(in: collection, forKey: r.relationship.name, r) }
    }
}
