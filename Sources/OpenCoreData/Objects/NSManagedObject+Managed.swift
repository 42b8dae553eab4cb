import Foundation

// The accessors the `@Managed` and `@ManagedAccessor` macros generate call these (Core Data's `@NSManaged`
// accessors are made by its runtime; these are ours). They are public because the generated code lives in
// the app's module; they are not Core Data API and are not meant to be called by hand. Overloads pick the
// form from the property's declared type: an attribute value, an object (to-one), a set (to-many), or
// anything else (a transformable attribute's custom type). Getters take the declared type as an argument:
// overloads that differ in their return type only would be ambiguous.

extension NSManagedObject {
    // MARK: - Attributes

    /// The getter of a `@Managed` attribute property: `value(forKey:)` without the key lookup or the boxing.
    public func _managedValue<T: ManagedAttributeValue>(_ property: ManagedProperty, as _: T.Type) -> T {
        checkQueue("@Managed property getter")
        let slot = property.slot(in: self, .attribute)
        if isFault { fireFault() }
        let value = slot < values.count ? values[slot] : .null
        if let typed = T._managedValue(from: ManagedStorageValue(value: value)) { return typed }
        unreadable(value, property, as: T.self)
    }

    /// An attribute's slot value, the fault fired: the common part of the getters.
    @inline(__always)
    private func attributeValue(_ property: ManagedProperty) -> Value {
        checkQueue("@Managed property getter")
        let slot = property.slot(in: self, .attribute)
        return loadedValue(slot)
    }

    // Concrete getters for the types Xcode writes most, beside the generic one (why: Benchmarks/README.md).

    /// The getter of a `String?` attribute property (the generic getter's result, without its dispatch).
    public func _managedValue(_ property: ManagedProperty, as _: (String?).Type) -> String? {
        read(property) { value in if case .string(let x) = value { return .some(x) }; return nil }
    }

    /// The getter of a `String` attribute property (the generic getter's result, without its dispatch).
    public func _managedValue(_ property: ManagedProperty, as _: (String).Type) -> String {
        read(property) { value in if case .string(let x) = value { return x }; return nil }
    }

    /// The getter of a `Int16` attribute property (the generic getter's result, without its dispatch).
    public func _managedValue(_ property: ManagedProperty, as _: (Int16).Type) -> Int16 {
        readInteger(property) { x in Int16(truncatingIfNeeded: x) }
    }

    /// The getter of a `Int32` attribute property (the generic getter's result, without its dispatch).
    public func _managedValue(_ property: ManagedProperty, as _: (Int32).Type) -> Int32 {
        readInteger(property) { x in Int32(truncatingIfNeeded: x) }
    }

    /// The getter of a `Int64` attribute property (the generic getter's result, without its dispatch).
    public func _managedValue(_ property: ManagedProperty, as _: (Int64).Type) -> Int64 {
        readInteger(property) { x in x }
    }

    /// The getter of a `Int` attribute property (the generic getter's result, without its dispatch).
    public func _managedValue(_ property: ManagedProperty, as _: (Int).Type) -> Int {
        readInteger(property) { x in Int(truncatingIfNeeded: x) }
    }

    /// The getter of a `Double` attribute property (the generic getter's result, without its dispatch),
    /// and of a `TimeInterval` one of a date attribute (its seconds since 2001-01-01).
    public func _managedValue(_ property: ManagedProperty, as _: (Double).Type) -> Double {
        read(property) { value in
            switch value {
            case .double(let x): return x
            case .date(let x): return x.timeIntervalSinceReferenceDate
            default: return nil
            }
        }
    }

    /// The getter of a `Float` attribute property (the generic getter's result, without its dispatch).
    public func _managedValue(_ property: ManagedProperty, as _: (Float).Type) -> Float {
        read(property) { value in if case .double(let x) = value { return Float(x) }; return nil }
    }

    /// The getter of a `Bool` attribute property (the generic getter's result, without its dispatch).
    public func _managedValue(_ property: ManagedProperty, as _: (Bool).Type) -> Bool {
        read(property) { value in if case .bool(let x) = value { return x }; return nil }
    }

    /// The getter of a `Date?` attribute property (the generic getter's result, without its dispatch).
    public func _managedValue(_ property: ManagedProperty, as _: (Date?).Type) -> Date? {
        read(property) { value in if case .date(let x) = value { return .some(x) }; return nil }
    }

    /// The getter of a `Data?` attribute property (the generic getter's result, without its dispatch).
    public func _managedValue(_ property: ManagedProperty, as _: (Data?).Type) -> Data? {
        read(property) { value in if case .data(let x) = value { return .some(x) }; return nil }
    }

    /// The getter of a `UUID?` attribute property (the generic getter's result, without its dispatch).
    public func _managedValue(_ property: ManagedProperty, as _: (UUID?).Type) -> UUID? {
        read(property) { value in if case .uuid(let x) = value { return .some(x) }; return nil }
    }

    /// The getter of a `URL?` attribute property (the generic getter's result, without its dispatch).
    public func _managedValue(_ property: ManagedProperty, as _: (URL?).Type) -> URL? {
        read(property) { value in if case .url(let x) = value { return .some(x) }; return nil }
    }

    /// The getter of a `Decimal?` attribute property (the generic getter's result, without its dispatch).
    public func _managedValue(_ property: ManagedProperty, as _: (Decimal?).Type) -> Decimal? {
        read(property) { value in if case .decimal(let x) = value { return .some(x) }; return nil }
    }

    /// The common part of the integer getters: a loaded integer is returned as it is
    /// (``NSManagedObject/loadedInteger(_:)``), without the generic conversion; anything else (a fault,
    /// `nil`, another kind of value) is read and converted as the other getters do.
    @inline(__always)
    private func readInteger<T: ManagedAttributeValue>(_ property: ManagedProperty, _ make: (Int64) -> T) -> T {
        checkQueue("@Managed property getter")
        let slot = property.slot(in: self, .attribute)
        if let x = loadedInteger(slot) { return make(x) }
        return converted(loadedValue(slot), property) { value in if case .int(let x) = value { return make(x) }; return nil }
    }

    @inline(__always)
    private func read<T: ManagedAttributeValue>(_ property: ManagedProperty, _ fast: (Value) -> T?) -> T {
        converted(attributeValue(property), property, fast)
    }

    /// `value` as the property's type: `fast`, else the type's own conversion, else the getter traps.
    @inline(__always)
    private func converted<T: ManagedAttributeValue>(_ value: Value, _ property: ManagedProperty, _ fast: (Value) -> T?) -> T {
        if let typed = fast(value) ?? T._managedValue(from: ManagedStorageValue(value: value)) { return typed }
        unreadable(value, property, as: T.self)
    }

    /// The setter of a `@Managed` attribute property: `setValue(_:forKey:)` without the key lookup. A
    /// `TimeInterval` (`Double`) property of a date attribute — Xcode's "Use Scalar Type" for a date — sets
    /// the date that many seconds after 2001-01-01 00:00:00 UTC, as Core Data's scalar date accessors do.
    public func _setManagedValue<T: ManagedAttributeValue>(_ value: T, _ property: ManagedProperty) {
        checkQueue("@Managed property setter")
        let slot = property.slot(in: self, .attribute)
        var raw = value._managedStorageValue.value
        if case .double(let seconds) = raw, layout.kinds[slot].attributeType == .dateAttributeType {
            raw = .date(Date(timeIntervalSinceReferenceDate: seconds))
        }
        setAttribute(slot, raw)
    }

    /// The getter of a `@Managed` property of a transformable attribute's custom type (see
    /// `ManagedTransform`: `NSCoding` objects, `Codable` values, `Data`).
    public func _managedValue<T>(_ property: ManagedProperty, as _: T.Type) -> T {
        checkQueue("@Managed property getter")
        let slot = property.slot(in: self, .attribute)
        if isFault { fireFault() }
        let value = slot < values.count ? values[slot] : .null
        // A value kept whole (a custom transformer's), or the data `ManagedTransform` made of it, which the
        // default transformer hands back as `Data`.
        if let typed = value.anyValue as? T { return typed }
        if let data = value.anyValue as? Data, let typed = ManagedTransform.decode(.data(data), as: T.self, property: property.name) { return typed }
        if let typed = ManagedTransform.decode(value, as: T.self, property: property.name) { return typed }
        unreadable(value, property, as: T.self)
    }

    /// The setter of a `@Managed` property of a transformable attribute's custom type.
    public func _setManagedValue<T>(_ value: T, _ property: ManagedProperty) {
        checkQueue("@Managed property setter")
        let slot = property.slot(in: self, .attribute)
        // A custom transformer gets the value whole, as through `setValue(_:forKey:)`; for the default one
        // (`NSSecureUnarchiveFromData`) the value becomes data here (`NSCoding` or `Codable`), which it keeps.
        let transformer = (entity.propertiesByName[property.name] as? NSAttributeDescription)?.valueTransformerName ?? ""
        let custom = !transformer.isEmpty && transformer != "NSSecureUnarchiveFromData"
        setAttribute(slot, custom ? TransformableValue.slotValue(value) : ManagedTransform.encode(value, property: property.name))
    }

    private func unreadable<T>(_ value: Value, _ property: ManagedProperty, as _: T.Type) -> Never {
        let what = value.isNull ? "nil" : "a value of another type (\(PredicatePrinter.plainText(value)))"
        fatalError("class \(NSStringFromClass(type(of: self))): @Managed property \(property.name) of type \(T.self) read \(what) from entity \(entity.name ?? "?"); declare it optional")
    }

    /// Sets an attribute's slot as `setValue(_:forKey:)` does: the value is converted to the attribute's
    /// type (kept as given when it does not convert, for validation to reject at save), and a change is
    /// recorded only when the value differs.
    func setAttribute(_ slot: Int, _ raw: Value) {
        if isFault { fireFault() }
        let type = layout.kinds[slot].attributeType
        let new = type.map { $0.holdsOwnRepresentation(raw) ? raw : $0.coerce(raw) ?? raw } ?? raw
        guard !values[slot].isIdentical(to: new) else { return }
        values[slot] = new
        managedObjectContext?.objectDidChange(self, slot: slot)
    }

    // MARK: - To-one relationships

    /// The getter of a `@Managed` to-one property (`Classification?`).
    public func _managedValue<T: NSManagedObject>(_ property: ManagedProperty, as _: T?.Type) -> T? {
        checkQueue("@Managed property getter")
        let slot = property.slot(in: self, .toOne)
        guard let object = value(at: slot).objectRef.flatMap({ managedObjectContext?.object(for: $0) }) else { return nil }
        return cast(object, property)
    }

    /// The getter of a non-optional `@Managed` to-one property (`Classification`): traps when it is nil.
    public func _managedValue<T: NSManagedObject>(_ property: ManagedProperty, as _: T.Type) -> T {
        guard let object = _managedValue(property, as: T?.self) else {
            fatalError("class \(NSStringFromClass(type(of: self))): @Managed property \(property.name) of type \(T.self) read nil from entity \(entity.name ?? "?"); declare it optional")
        }
        return object
    }

    /// The setter of a `@Managed` to-one property: the inverse follows at once, as with `setValue(_:forKey:)`.
    public func _setManagedValue<T: NSManagedObject>(_ value: T?, _ property: ManagedProperty) {
        checkQueue("@Managed property setter")
        let slot = property.slot(in: self, .toOne)
        setToOne(slot, layout.kinds[slot].relationship!, to: value)
    }

    /// The setter of a non-optional `@Managed` to-one property.
    public func _setManagedValue<T: NSManagedObject>(_ value: T, _ property: ManagedProperty) {
        _setManagedValue(Optional(value), property)
    }

    private func cast<T: NSManagedObject>(_ object: NSManagedObject, _ property: ManagedProperty) -> T {
        guard let typed = object as? T else {
            fatalError("class \(NSStringFromClass(type(of: self))): @Managed property \(property.name) expects \(T.self), but the object is a \(NSStringFromClass(type(of: object))) (entity \(object.entity.name ?? "?")); check the destination's managedObjectClassName")
        }
        return typed
    }

    // MARK: - To-many relationships

    /// The getter of a `@Managed` to-many property declared as a Swift set (`Set<Zoo>`).
    public func _managedValue<T: NSManagedObject>(_ property: ManagedProperty, as _: Set<T>.Type) -> Set<T> {
        checkQueue("@Managed property getter")
        let slot = property.slot(in: self, .toMany)
        return Set(relatedObjects(slot).map { cast($0, property) as T })
    }

    /// The getter of a `@Managed` to-many property declared as an optional Swift set (never nil).
    public func _managedValue<T: NSManagedObject>(_ property: ManagedProperty, as _: Set<T>?.Type) -> Set<T>? {
        _managedValue(property, as: Set<T>.self)
    }

    /// The getter of a `@Managed` to-many property declared `NSSet?` (Xcode's type): what
    /// `value(forKey:)` returns (never nil).
    public func _managedValue(_ property: ManagedProperty, as _: NSSet?.Type) -> NSSet? {
        _managedValue(property, as: NSSet.self)
    }

    /// The getter of a `@Managed` to-many property declared `NSSet`.
    public func _managedValue(_ property: ManagedProperty, as _: NSSet.Type) -> NSSet {
        checkQueue("@Managed property getter")
        let slot = property.slot(in: self, .toMany)
        return NSSet(array: relatedObjects(slot))
    }

    /// The getter of a `@Managed` ordered to-many property declared `NSOrderedSet?` (never nil).
    public func _managedValue(_ property: ManagedProperty, as _: NSOrderedSet?.Type) -> NSOrderedSet? {
        _managedValue(property, as: NSOrderedSet.self)
    }

    /// The getter of a `@Managed` ordered to-many property declared `NSOrderedSet`.
    public func _managedValue(_ property: ManagedProperty, as _: NSOrderedSet.Type) -> NSOrderedSet {
        checkQueue("@Managed property getter")
        let slot = property.slot(in: self, .toMany)
        return NSOrderedSet(array: relatedObjects(slot))
    }

    /// The setter of a `@Managed` to-many property declared as a Swift set: replaces the relationship's
    /// objects, inverses following, as `setValue(_:forKey:)` with a set does.
    public func _setManagedValue<T: NSManagedObject>(_ value: Set<T>?, _ property: ManagedProperty) {
        setToMany(property, value.map { Array($0) as [NSManagedObject] })
    }

    /// The setter of a non-optional `@Managed` Swift-set property.
    public func _setManagedValue<T: NSManagedObject>(_ value: Set<T>, _ property: ManagedProperty) {
        setToMany(property, Array(value))
    }

    /// The setter of a `@Managed` to-many property declared `NSSet?`.
    public func _setManagedValue(_ value: NSSet?, _ property: ManagedProperty) {
        setToMany(property, value)
    }

    /// The setter of a `@Managed` to-many property declared `NSSet`.
    public func _setManagedValue(_ value: NSSet, _ property: ManagedProperty) {
        setToMany(property, value)
    }

    /// The setter of a `@Managed` ordered to-many property declared `NSOrderedSet?`.
    public func _setManagedValue(_ value: NSOrderedSet?, _ property: ManagedProperty) {
        setToMany(property, value)
    }

    /// The setter of a `@Managed` ordered to-many property declared `NSOrderedSet`.
    public func _setManagedValue(_ value: NSOrderedSet, _ property: ManagedProperty) {
        setToMany(property, value)
    }

    private func setToMany(_ property: ManagedProperty, _ value: Any?) {
        checkQueue("@Managed property setter")
        let slot = property.slot(in: self, .toMany)
        setRelationship(slot, layout.kinds[slot].relationship!, to: value)
    }

    // MARK: - Xcode's to-many accessors (@ManagedAccessor)

    /// The relationship an accessor function names (`Zoos` in `addToZoos(_:)`): `zoos`, or the name as
    /// the function spells it. Traps for a name that is not a to-many relationship (the model's load
    /// checks it first for the classes its entities resolve to).
    private func toMany(named spelled: String, _ function: String) -> (Int, RelationshipLayout) {
        let lowered = spelled.prefix(1).lowercased() + spelled.dropFirst()
        guard let slot = layout.slotByName[lowered] ?? layout.slotByName[spelled], case .toMany(let r) = layout.kinds[slot] else {
            fatalError("class \(NSStringFromClass(type(of: self))): @ManagedAccessor \(function)\(spelled): entity \(entity.name ?? "?") has no to-many relationship \(lowered)")
        }
        return (slot, r)
    }

    /// Mirrors Xcode's generated `addToX(_ value:)`: adds one object (at the end when ordered).
    public func _managedAdd(_ value: NSManagedObject, to relationship: String) {
        checkQueue("@ManagedAccessor")
        let (slot, r) = toMany(named: relationship, "addTo")
        addToMany(slot, r, [value])
    }

    /// Mirrors Xcode's generated `addToX(_ values: NSSet)`.
    public func _managedAdd(_ values: NSSet, to relationship: String) {
        checkQueue("@ManagedAccessor")
        let (slot, r) = toMany(named: relationship, "addTo")
        addToMany(slot, r, Self.objects(in: values, forKey: r.relationship.name, r))
    }

    /// Mirrors Xcode's generated `addToX(_ values: NSOrderedSet)` of an ordered relationship.
    public func _managedAdd(_ values: NSOrderedSet, to relationship: String) {
        checkQueue("@ManagedAccessor")
        let (slot, r) = toMany(named: relationship, "addTo")
        addToMany(slot, r, Self.objects(in: values, forKey: r.relationship.name, r))
    }

    /// `addToX(_:)` with a Swift set (not Xcode's form; accepted too).
    public func _managedAdd<T: NSManagedObject>(_ values: Set<T>, to relationship: String) {
        _managedAdd(NSSet(array: Array(values)), to: relationship)
    }

    /// Mirrors Xcode's generated `removeFromX(_ value:)`.
    public func _managedRemove(_ value: NSManagedObject, from relationship: String) {
        checkQueue("@ManagedAccessor")
        let (slot, r) = toMany(named: relationship, "removeFrom")
        removeFromToMany(slot, r, [value])
    }

    /// Mirrors Xcode's generated `removeFromX(_ values: NSSet)`.
    public func _managedRemove(_ values: NSSet, from relationship: String) {
        checkQueue("@ManagedAccessor")
        let (slot, r) = toMany(named: relationship, "removeFrom")
        removeFromToMany(slot, r, Self.objects(in: values, forKey: r.relationship.name, r))
    }

    /// Mirrors Xcode's generated `removeFromX(_ values: NSOrderedSet)`.
    public func _managedRemove(_ values: NSOrderedSet, from relationship: String) {
        checkQueue("@ManagedAccessor")
        let (slot, r) = toMany(named: relationship, "removeFrom")
        removeFromToMany(slot, r, Self.objects(in: values, forKey: r.relationship.name, r))
    }

    /// `removeFromX(_:)` with a Swift set (not Xcode's form; accepted too).
    public func _managedRemove<T: NSManagedObject>(_ values: Set<T>, from relationship: String) {
        _managedRemove(NSSet(array: Array(values)), from: relationship)
    }

    /// Mirrors Xcode's generated `removeFromX(at idx: Int)` of an ordered relationship.
    public func _managedRemove(at index: Int, from relationship: String) {
        checkQueue("@ManagedAccessor")
        let (slot, r) = toMany(named: relationship, "removeFrom")
        let objects = relatedObjects(slot)
        precondition(objects.indices.contains(index), "removeFrom\(relationship)(at: \(index)): index out of bounds (\(objects.count) objects)")
        removeFromToMany(slot, r, [objects[index]])
    }

    /// Mirrors Xcode's generated `removeFromX(at indexes: NSIndexSet)`.
    public func _managedRemove(at indexes: NSIndexSet, from relationship: String) {
        checkQueue("@ManagedAccessor")
        let (slot, r) = toMany(named: relationship, "removeFrom")
        let objects = relatedObjects(slot)
        let chosen = (indexes as IndexSet).map { i -> NSManagedObject in
            precondition(objects.indices.contains(i), "removeFrom\(relationship)(at:): index \(i) out of bounds (\(objects.count) objects)")
            return objects[i]
        }
        removeFromToMany(slot, r, chosen)
    }

    /// Mirrors Xcode's generated `insertIntoX(_ value:, at idx: Int)` of an ordered relationship.
    public func _managedInsert(_ value: NSManagedObject, at index: Int, into relationship: String) {
        checkQueue("@ManagedAccessor")
        let (slot, r) = toMany(named: relationship, "insertInto")
        precondition(index >= 0 && index <= loadedToMany(slot).referenceCount, "insertInto\(relationship)(_:at: \(index)): index out of bounds")
        addToMany(slot, r, [value], at: index)
    }

    /// Mirrors Xcode's generated `insertIntoX(_ values: [X], at indexes: NSIndexSet)`: each object goes
    /// to its index, in ascending order of the indexes (as `NSMutableOrderedSet.insert(_:at:)` does).
    public func _managedInsert<T: NSManagedObject>(_ values: [T], at indexes: NSIndexSet, into relationship: String) {
        checkQueue("@ManagedAccessor")
        let (slot, r) = toMany(named: relationship, "insertInto")
        let positions = Array(indexes as IndexSet)
        precondition(positions.count == values.count, "insertInto\(relationship)(_:at:): \(values.count) objects for \(positions.count) indexes")
        for (object, index) in zip(values, positions) { addToMany(slot, r, [object], at: index) }
    }

    /// Mirrors Xcode's generated `replaceX(at idx: Int, with value:)` of an ordered relationship.
    public func _managedReplace(at index: Int, with value: NSManagedObject, in relationship: String) {
        checkQueue("@ManagedAccessor")
        let (slot, r) = toMany(named: relationship, "replace")
        var objects = relatedObjects(slot)
        precondition(objects.indices.contains(index), "replace\(relationship)(at: \(index), with:): index out of bounds (\(objects.count) objects)")
        let old = objects[index]
        objects[index] = value
        if old !== value { removeFromToMany(slot, r, [old]) }
        replaceOrdered(slot, r, with: objects)
    }

    /// Mirrors Xcode's generated `replaceX(at indexes: NSIndexSet, with values: [X])`.
    public func _managedReplace<T: NSManagedObject>(at indexes: NSIndexSet, with values: [T], in relationship: String) {
        let positions = Array(indexes as IndexSet)
        precondition(positions.count == values.count, "replace\(relationship)(at:with:): \(values.count) objects for \(positions.count) indexes")
        for (index, object) in zip(positions, values) { _managedReplace(at: index, with: object, in: relationship) }
    }
}
