import Foundation

/// Mirrors Core Data's `NSManagedObject`: an object of an entity, living in one context.
///
/// Values live in an array indexed by the entity's attributes (not a dictionary, not `Mirror`), with the
/// committed snapshot kept apart, so `changedValues()` and `committedValues(forKeys:)` are exact.
/// Linux has no `@NSManaged`: typed subclasses declare their properties with ``Managed()`` instead
/// (docs/ModelClasses.md):
///
///     final class Products: NSManagedObject {
///         @Managed var name: String?
///     }
///
/// An entity's `managedObjectClassName` finds the class (`"Products"`, as Xcode writes it, or
/// `NSStringFromClass(Products.self)`).
open class NSManagedObject: NSObject, NSFetchRequestResult, KeyValueCoding, PredicateValueReading {
    /// Mirrors `entity`.
    public let entity: NSEntityDescription
    /// Everything else, made when first needed (see ``ObjectBody``): a bare fault of a batched fetch is
    /// this object and nothing more. Unchecked exclusivity: no access to it overlaps another (none calls
    /// out while it holds the values), and the dynamic check cost a `@Managed` getter about as much as
    /// the read itself.
    @exclusivity(unchecked) private var body: ObjectBody = .fresh

    /// Mirrors `objectID`. Changes from temporary to permanent when the object is first saved.
    public internal(set) var objectID: NSManagedObjectID {
        get {
            let state = self.objectState
            if let id = state.objectID { return id }
            let id = NSManagedObjectID(entity: entity, key: objectKey, storeIdentifier: state.storeIdentifier)
            state.objectID = id
            return id
        }
        set { objectState.objectID = newValue }
    }

    /// The key of ``objectID``, read without making the ID (of a bare batch fault, or of a new object:
    /// its temporary key is given here the first time, and an inserted object is registered under it
    /// then, so that an import nobody names hashes none of its objects).
    var objectKey: ObjectKey {
        if let key = assignedKey { return key }
        let state = objectState
        let key = ObjectKey.newTemporary()
        state.key = key
        if state.lifecycle == .inserted, let context = state.context { context.registry[key] = self }
        return key
    }

    /// The key of ``objectID`` if the object has one already (a bare batch fault's, a saved object's, a
    /// temporary key given earlier), without giving one.
    var assignedKey: ObjectKey? {
        switch body {
        case .batch(let batch, let index): return batch.key(index)
        case .full(let state, _): return state.objectID?.key ?? state.key
        case .fresh: return nil
        }
    }

    /// ``assignedKey`` and ``values`` together: what a save writes for an inserted object.
    var keyAndValues: (key: ObjectKey?, values: [Value]) {
        switch body {
        case .full(let state, let values): return (state.objectID?.key ?? state.key, values)
        case .fresh: return (nil, layout.defaultValues)
        case .batch(let batch, let index): return (batch.key(index), [])
        }
    }

    /// Mirrors `managedObjectContext`: `nil` once deleted and saved, or after the context's `reset()`.
    public internal(set) var managedObjectContext: NSManagedObjectContext? {
        get {
            switch body {
            case .fresh: return nil
            case .batch(let batch, _): return batch.context
            case .full(let state, _): return state.context
            }
        }
        set { objectState.context = newValue }
    }

    /// The entity's layout (slots, columns, class).
    var layout: EntityLayout { entity.layout.unsafelyUnwrapped }

    /// The object's state, made now if it was fresh or a bare batch fault.
    @inline(__always) var objectState: ObjectState {
        if case .full(let state, _) = body { return state }
        return makeState()
    }

    @inline(never) private func makeState() -> ObjectState {
        switch body {
        case .full(let existing, _): return existing
        case .fresh:
            let state = ObjectState(objectID: nil, context: nil, lifecycle: .new, faultState: .loaded)
            body = .full(state, values: layout.defaultValues)
            return state
        case .batch(let batch, let index):
            let state = ObjectState(key: batch.key(index), storeIdentifier: batch.storeIdentifier, context: batch.registration.weakContext,
                                    lifecycle: batch.lifecycle, faultState: batch.faultState(index))
            state.swiftDataModel = batch.takeSwiftDataModelLink(at: index)
            guard let values = batch.loadedValues(index) else {
                body = .full(state, values: [])
                return state
            }
            state.snapshot = values
            state.version = batch.loadedVersion(index)
            body = .full(state, values: values)
            return state
        }
    }

    /// Whether it is a bare object of a batch (no state made yet: see ``ObjectBody/batch(_:index:)``).
    var isBare: Bool { bareBatch != nil }

    /// The batch of a bare object and its place in it; `nil` for any other object.
    var bareBatch: (batch: FaultBatch, index: Int)? {
        if case .batch(let batch, let index) = body { return (batch, index) }
        return nil
    }

    /// Current values by slot; empty while the object is a fault (see ``ObjectBody/full(_:values:)``).
    var values: [Value] {
        @inline(__always) _read {
            switch body {
            case .full(_, let values): yield values
            case .fresh: yield layout.defaultValues
            case .batch(let batch, let index): yield batch.loadedValues(index) ?? []
            }
        }
        _modify {
            // The array is moved out of the body while it is changed (the body holds none meanwhile), so
            // that it stays uniquely referenced and is changed in place, with no reference counting.
            // An object read under `withObservationTracking` announces what the write changes (looked for
            // only once some object was: NSManagedObject+Observation.swift).
            if ObjectObservation.anyMade { observedWriteBegins() }
            defer { if ObjectObservation.anyMade { observedWriteEnded() } }
            var taken = ObjectBody.full(objectState, values: [])
            swap(&taken, &body)
            guard case .full(let state, var values) = consume taken else { preconditionFailure("no state") }
            defer { body = .full(state, values: values) }
            yield &values
        }
    }
    /// Values as last read from or written to the store; `nil` for an object never saved.
    var snapshot: [Value]? {
        _read {
            switch body {
            case .full(let state, _): yield state.snapshot
            case .batch(let batch, let index): yield batch.loadedValues(index)
            case .fresh: yield nil
            }
        }
        _modify { yield &objectState.snapshot }
    }
    /// The row version (`Z_OPT`) the snapshot was read at; 0 for an object never saved.
    var version: Int64 {
        get {
            switch body {
            case .full(let state, _): return state.version
            case .batch(let batch, let index): return batch.loadedVersion(index)
            case .fresh: return 0
            }
        }
        set { objectState.version = newValue }
    }
    /// The store version of the row the object holds: its values' (loaded), or the row a fault holds; 0
    /// when it holds none.
    var heldRowVersion: Int64 {
        switch faultState {
        case .loaded: return version
        case .holdingRow(_, let version): return version
        case .fault, .rowGone, .inBatch: return 0
        }
    }
    /// The order in which its context inserted it (ties between unsaved objects sort by it).
    var insertionIndex: Int {
        get {
            switch body {
            case .full(let state, _): return state.insertionIndex
            case .fresh, .batch: return 0
            }
        }
        set { objectState.insertionIndex = newValue }
    }
    /// Where the object is in its life (see ``Lifecycle``); its context changes it.
    var lifecycle: Lifecycle {
        get {
            switch body {
            case .fresh: return .new
            case .batch(let batch, _): return batch.lifecycle
            case .full(let state, _): return state.lifecycle
            }
        }
        set { objectState.lifecycle = newValue }
    }
    /// Inserted, and the insert not yet announced by `ObjectsDidChange`: its context keeps such objects
    /// in a list (``UnannouncedChanges/inserted``) and this flag says which entries still count, so that
    /// recording a change and deleting the object need no hash lookup.
    var insertIsUnannounced: Bool {
        get {
            switch body {
            case .full(let state, _): return state.insertIsUnannounced
            case .fresh, .batch: return false
            }
        }
        set { objectState.insertIsUnannounced = newValue }
    }
    /// Becomes inserted in `context` (its state's part: context, insertion index, lifecycle, an insert not
    /// announced yet); the context lists it.
    func enterInserted(_ context: NSManagedObjectContext, insertionIndex: Int) {
        let state = objectState
        state.context = context
        state.insertionIndex = insertionIndex
        state.lifecycle = .inserted
        state.insertIsUnannounced = true
    }
    /// Clears ``insertIsUnannounced``, returning whether it was set (the announcement of its insert).
    func announceInsert() -> Bool {
        guard case .full(let state, _) = body, state.insertIsUnannounced else { return false }
        state.insertIsUnannounced = false
        return true
    }
    /// Whether its values are here (see ``FaultState``).
    var faultState: FaultState {
        get {
            switch body {
            case .fresh: return .loaded
            case .batch(let batch, let index): return batch.faultState(index)
            case .full(let state, _): return state.faultState
            }
        }
        set {
            objectState.faultState = newValue
            // A fault holds no values (what ``loadedValue(_:)`` relies on).
            if newValue.isFault, case .full(let state, let values) = body, !values.isEmpty {
                body = .full(state, values: [])
                if ObjectObservation.anyMade, let observation = state.extras?.observation { observedValuesChanged(observation, from: values, to: []) }
            }
        }
    }

    /// Mirrors `init(entity:insertInto:)`. With a context, the object is inserted (temporary ID,
    /// default values, `awakeFromInsert()`).
    public required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        precondition(entity.layout != nil, "The model of entity \(entity.name ?? "?") is not loaded by a coordinator yet")
        self.entity = entity
        super.init()
        if let context { context.insert(self) }
    }

    /// Mirrors `init(context:)`: inserts a new object of the entity whose class is this class. `required`,
    /// so that generic code reaches it through a metatype (`Self(context: context)` in a protocol extension
    /// constrained to `NSManagedObject`, `T(context:)`), as Objective-C lets Core Data's.
    public required convenience init(context: NSManagedObjectContext) {
        guard let model = context.persistentStoreCoordinator?.managedObjectModel,
              let entity = model.entities.first(where: { $0.layout?.objectClass == Self.self }) else {
            fatalError("No entity of the context's model has the class \(NSStringFromClass(Self.self)) (set managedObjectClassName)")
        }
        self.init(entity: entity, insertInto: context)
    }

    /// Mirrors `init()`, which Core Data allows though it is not a designated initializer of
    /// `NSManagedObject`: it logs "Failed to call designated initializer on NSManagedObject class" (as an
    /// error of the `OpenCoreData.context` logger) and gives an object of no entity, in no context. Here
    /// its ``entity`` is an entity with no name and no properties: reading or setting a property of it
    /// traps, as it raises in Core Data. Use ``init(context:)`` or ``init(entity:insertInto:)``.
    public convenience override init() {
        contextLogger.error("Failed to call designated initializer on NSManagedObject class '\(NSStringFromClass(Self.self))'")
        self.init(entity: NSEntityDescription.noEntity, insertInto: nil)
    }

    /// An object for a row of the store, not inserted. Called by contexts only.
    static func makeFetched(entity: NSEntityDescription, id: NSManagedObjectID, context: NSManagedObjectContext) -> NSManagedObject {
        let object = entity.layout.objectClass.init(entity: entity, insertInto: nil)
        object.body = .full(ObjectState(objectID: id, context: context, lifecycle: .new, faultState: .fault), values: [])
        return object
    }

    /// A bare object at `index` of `batch` (a fault of a fetch, or loaded when the batch is): no state,
    /// no ID, not in the registry's tables yet (the batch is). Called by contexts only.
    static func makeBatchFault(entity: NSEntityDescription, batch: FaultBatch, index: Int) -> NSManagedObject {
        let object = entity.layout.unsafelyUnwrapped.objectClass.init(entity: entity, insertInto: nil)
        object.body = .batch(batch, index: index)
        return object
    }

    // MARK: - State

    /// Mirrors `isInserted`.
    public var isInserted: Bool { lifecycle == .inserted }
    /// Mirrors `isDeleted`.
    public var isDeleted: Bool { lifecycle == .deleted || lifecycle == .removed }
    /// Mirrors `isFault`: the values have not been read yet (reading them fires the fault).
    public var isFault: Bool {
        // (Each case returns what it read: bound with `if case`, the compiler retained the state to read it.)
        switch body {
        case .fresh: return false
        case .batch(let batch, let index): return batch.faultState(index).isFault
        case .full(let state, _): return state.isFault
        }
    }
    /// Mirrors `isUpdated`: saved before, and some value differs from the saved one (or an unmodeled
    /// property changed, see ``contextShouldIgnoreUnmodeledPropertyChanges``).
    public var isUpdated: Bool {
        guard lifecycle != .inserted, !isFault, let snapshot else { return false }
        return snapshot != values || existingExtras?.changedUnmodeled == true
    }
    /// Mirrors `faultingState`: 0 when the object is realized and not turning into or out of a fault,
    /// nonzero otherwise (here: 1 for a fault, 2 while it turns into one).
    public var faultingState: Int { currentFaultingState }
    /// Mirrors `hasChanges`.
    public var hasChanges: Bool { isInserted || isDeleted || isUpdated }
    /// Mirrors `hasPersistentChangedValues`.
    public var hasPersistentChangedValues: Bool {
        guard !isFault else { return false }
        guard let snapshot else { return layout.persistentSlots.contains { !values[$0].isNullOrEmpty } }
        return layout.persistentSlots.contains { snapshot[$0] != values[$0] }
    }

    /// Fires the fault where the caller cannot throw (a property's getter, `willAccessValue(forKey:)`):
    /// as ``fulfillFault()``, and when the store fails the process stops with the store's error and the
    /// object's ID, as Core Data raises when it cannot fulfill a fault.
    func fireFault() {
        do { try fulfillFault() } catch { NSManagedObjectContext.storeReadFailed(error, reading: "the row of", objectID) }
    }

    /// Fires the fault: the values come from the row it holds, or its context reads them (its batch's
    /// rows, or its own). Throws the store's error, the object still a fault.
    func fulfillFault() throws {
        switch faultState {
        case .loaded, .rowGone: return
        case .holdingRow(let row, let version): takeRow(row, version: version)
        case .fault, .inBatch: try managedObjectContext?.readRowOfFault(self)
        }
    }

    /// Takes a row's values as its own (values and what it read), and stops being a fault.
    func takeRow(_ row: [Value], version: Int64) {
        let state = objectState
        if ObjectObservation.anyMade { observedWriteBegins() }
        body = .full(state, values: row)
        state.snapshot = row
        state.version = version
        state.faultState = .loaded
        if ObjectObservation.anyMade { observedWriteEnded() }
        awakeFromFetch()
    }

    /// An inserted object whose row is now in the store: its values become its snapshot at row version 1,
    /// it takes `id` (its store ID) when given, and becomes persisted here when `persisted` (else its
    /// context has made it so).
    func adoptSavedRow(id: NSManagedObjectID?, persisted: Bool) {
        let state = objectState
        if persisted { state.lifecycle = .persisted }
        if let id { state.objectID = id }
        guard case .full(_, let values) = body else { return }
        state.snapshot = values
        state.version = 1
    }

    /// Stays a fault (or becomes one again) holding `row`, so that firing it costs no query.
    func holdRow(_ row: [Value], version: Int64) {
        let state = objectState
        if ObjectObservation.anyMade, let observation = state.extras?.observation {
            observedValuesChanged(observation, from: values, to: row)
        }
        body = .full(state, values: [])
        state.faultState = .holdingRow(row, version: version)
    }

    // MARK: - Values

    /// Mirrors `value(forKey:)`. Numbers come back as `NSNumber`, as in Core Data, so `as? Int`,
    /// `as? Int32` and `as? Double` all work. The object's own properties are keys too (`entity`,
    /// `objectID`, `isInserted`…: NSManagedObject+OwnKeys.swift). An unknown key traps (Core Data raises).
    open func value(forKey key: String) -> Any? {
        checkQueue("value(forKey:)")
        do { return try readValue(forKey: key) } catch { fatalError("\(error)") }
    }

    /// The throwing form of ``value(forKey:)``: an unknown key throws, naming the entity and the key.
    public func validatedValue(forKey key: String) throws -> Any? {
        checkQueue("validatedValue(forKey:)")
        return try readValue(forKey: key)
    }

    private func readValue(forKey key: String) throws -> Any? {
        guard let slot = layout.slotByName[key] else {
            if let property = ManagedClasses.keyValueProperty(of: type(of: self), named: key) { return property.get(self) }
            guard let own = ManagedObjectOwnKey(key: key) else { throw undefinedKey(key) }
            return own.value(of: self)
        }
        noteObservedRead(slot)
        if let r = layout.relationship(slot) { return relationshipValue(slot, r) }
        if case .attribute(.undefinedAttributeType) = layout.kinds[slot], let fetched = layout.properties[slot] as? NSFetchedPropertyDescription {
            return try fetchedValue(fetched)
        }
        return value(at: slot).anyValue
    }

    /// The integer in `slot` of a loaded object, without the generic conversion of a ``Value``, and
    /// without retaining the values array. `nil` when the object is not loaded or the slot holds
    /// anything else: the caller then reads through ``loadedValue(_:)``, which fires the fault.
    @inline(__always) func loadedInteger(_ slot: Int) -> Int64? {
        switch body {
        case .full(_, let values):
            guard slot < values.count else { return nil }
            switch values[slot] {
            case .int(let x): return x
            default: return nil
            }
        default: return nil
        }
    }

    /// The value in `slot` (`.null` past the values), the fault fired first. A loaded object is read
    /// with no call in between, so that neither its state nor its values are retained for the read: the
    /// common start of the reads that need no key lookup (`@Managed` getters, compiled predicates).
    @inline(__always) func loadedValue(_ slot: Int) -> Value {
        // Only a loaded object (or one whose row was gone: nils) holds values, so the state is not read.
        // (Written as a switch that returns the copied value: the compiler then reads the array in place;
        // bound with `if case`, it retained and released the array around the read.)
        switch body {
        case .full(_, let values):
            guard slot < values.count else { break }
            let value = values[slot]
            return value
        default: break
        }
        return valueAfterFiring(slot)
    }

    @inline(never) private func valueAfterFiring(_ slot: Int) -> Value {
        fireFault()
        return slot < values.count ? values[slot] : .null
    }

    /// Mirrors `value(forKeyPath:)`.
    open func value(forKeyPath keyPath: String) -> Any? {
        do { return try KeyPathReader.value(of: self, keyPath: keyPath) } catch { fatalError("\(error)") }
    }

    /// Mirrors `setValue(_:forKeyPath:)` (`NSObject`'s key-value coding): sets the key at the end of the
    /// path, through to-one relationships (`classification.name`); a composite attribute's element
    /// path (`address.city`) sets that element alone, as Core Data's namespaced key paths do. A key the
    /// entity lacks, or a path through nil or a to-many, traps (Core Data raises).
    open func setValue(_ value: Any?, forKeyPath keyPath: String) {
        if layout.slotByName[keyPath] != nil || !keyPath.contains(".") { return setValue(value, forKey: keyPath) }
        let first = String(keyPath.prefix { $0 != "." }), rest = String(keyPath.dropFirst(first.count + 1))
        guard let next = self.value(forKey: first) as? NSManagedObject else {
            fatalError("[<\(entity.name ?? "?")> setValue:forKeyPath:]: \(first) of keypath \(keyPath) is not a to-one relationship holding an object")
        }
        next.setValue(value, forKeyPath: rest)
    }

    /// Mirrors `setValue(_:forKey:)`: records the change in the context. An unknown key traps.
    open func setValue(_ value: Any?, forKey key: String) {
        checkQueue("setValue(_:forKey:)")
        do { try writeValue(value, forKey: key) } catch { fatalError("\(error)") }
    }

    /// The throwing form of ``setValue(_:forKey:)``. Not in Core Data.
    public func setValidatedValue(_ value: Any?, forKey key: String) throws {
        checkQueue("setValidatedValue(_:forKey:)")
        try writeValue(value, forKey: key)
    }

    private func writeValue(_ value: Any?, forKey key: String) throws {
        guard let slot = layout.slotByName[key] else {
            guard let property = ManagedClasses.keyValueProperty(of: type(of: self), named: key) else { throw undefinedKey(key) }
            guard let set = property.set else {
                throw CoreDataError(NSCoreDataError, "[<\(NSStringFromClass(type(of: self)))> setValue:forUndefinedKey:]: \(key) is a read-only @KeyValue property",
                                    userInfo: [NSValidationKeyErrorKey: key])
            }
            return try set(self, value)
        }
        if let r = layout.relationship(slot) { return setRelationship(slot, r, to: value) }
        let raw: Value
        switch layout.kinds[slot].attributeType {
        // A transformable attribute keeps the value whole (its transformer makes data of it at save).
        case .transformableAttributeType: raw = TransformableValue.slotValue(value)
        case .compositeAttributeType: return try setComposite(slot, value, primitive: false)
        default: raw = Value(any: value)
        }
        // A value of the wrong type is kept as given and rejected by validation at save, as Core Data does.
        setAttribute(slot, raw)
    }

    /// Mirrors `primitiveValue(forKey:)`.
    open func primitiveValue(forKey key: String) -> Any? { value(forKey: key) }

    /// Mirrors `setPrimitiveValue(_:forKey:)`: sets an attribute's value without recording a change (no
    /// `ObjectsDidChange`, not in the context's `updatedObjects`, not saved unless the object is saved
    /// for another change), as Core Data's primitive setters do; wrap it in ``willChangeValue(forKey:)``
    /// and ``didChangeValue(forKey:)`` to record it. A relationship's primitive set keeps its inverse and
    /// records the change, as ``setValue(_:forKey:)`` does (Core Data leaves the inverse to the caller).
    /// An unknown key traps.
    open func setPrimitiveValue(_ value: Any?, forKey key: String) { setPrimitive(value, forKey: key) }

    // MARK: - Key-value hooks (what they do: NSManagedObject+KeyValueHooks.swift; no KVO on Linux)

    /// Mirrors `contextShouldIgnoreUnmodeledPropertyChanges`: whether a change of a property the entity
    /// does not model, announced with ``willChangeValue(forKey:)`` / ``didChangeValue(forKey:)``, leaves
    /// the object unchanged (true, the default) or makes it updated (false: override it in a subclass);
    /// such an object is saved like any updated one (its row version advances).
    open class var contextShouldIgnoreUnmodeledPropertyChanges: Bool { true }
    /// Mirrors `willAccessValue(forKey:)`: fires the fault if the object is one (also for `nil`), so that
    /// ``primitiveValue(forKey:)`` after it reads the object's values.
    open func willAccessValue(forKey key: String?) { if isFault { fireFault() } }
    /// Mirrors `didAccessValue(forKey:)`. Linux has no key-value observing to notify: it does nothing.
    open func didAccessValue(forKey key: String?) {}
    /// Mirrors `willChangeValue(forKey:)`: a custom setter calls it before ``setPrimitiveValue(_:forKey:)``;
    /// the object keeps the key's value until ``didChangeValue(forKey:)``.
    open func willChangeValue(forKey key: String) { noteWillChange(key) }
    /// Mirrors `didChangeValue(forKey:)`: records the change of the key exactly as ``setValue(_:forKey:)``
    /// does (the object becomes updated, `ObjectsDidChange` and fetched results controllers see it, the
    /// save writes it), unless the value is the one ``willChangeValue(forKey:)`` saw.
    open func didChangeValue(forKey key: String) { recordDidChange(key) }
    /// Mirrors `willChangeValue(forKey:withSetMutation:using:)`: a custom to-many accessor calls it before
    /// changing the relationship.
    open func willChangeValue(forKey inKey: String, withSetMutation inMutationKind: NSKeyValueSetMutationKind, using inObjects: Set<AnyHashable>) {
        noteWillChange(inKey)
    }
    /// Mirrors `didChangeValue(forKey:withSetMutation:using:)`: the relationship ends as the mutation makes
    /// it, inverses following (applied here unless a primitive set did it: on Linux ``primitiveValue(forKey:)``
    /// of a to-many is a copy, not Core Data's live mutable set), and the change is recorded.
    open func didChangeValue(forKey inKey: String, withSetMutation inMutationKind: NSKeyValueSetMutationKind, using inObjects: Set<AnyHashable>) {
        applySetMutation(inKey, inMutationKind, inObjects)
        recordDidChange(inKey)
    }
    /// Mirrors `validateValue(_:forKey:)`: coerces the value to the attribute's type (handing the coerced
    /// value back) and checks the model's rules for the key, throwing what a save would (one error, or
    /// `NSValidationMultipleErrorsError`). Override it to add rules of a key. A save validates through
    /// ``validateForInsert()`` / ``validateForUpdate()``, which apply the same rules without calling this.
    open func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
        try validateModelRules(value, forKey: key)
    }
    /// ``validateValue(_:forKey:)`` called as on Apple's platforms, `try object.validateValue(&value,
    /// forKey:)` (Swift converts `&value` to its own pointer types only). Not in Core Data.
    public func validateValue(_ value: inout AnyObject?, forKey key: String) throws {
        try withUnsafeMutablePointer(to: &value) { try validateValue(AutoreleasingUnsafeMutablePointer($0), forKey: key) }
    }

    // MARK: - Life cycle hooks

    /// Mirrors `awakeFromInsert()`: called once, when the object is inserted into a context.
    open func awakeFromInsert() {}
    /// Mirrors `awakeFromFetch()`: called when the values of a fetched object are first read.
    open func awakeFromFetch() {}
    /// Mirrors `validateForInsert()`: called by `save()` for each inserted object. The default checks the
    /// model's rules (required values, types, validation predicates, relationship counts) and throws one
    /// error or `NSValidationMultipleErrorsError`. Override it to add rules of your own, calling `super`
    /// first as Apple recommends; the save then throws what it throws, and writes nothing.
    open func validateForInsert() throws {
        try NSManagedObjectContext.throwing(NSManagedObjectContext.propertyErrors(self))
    }

    /// Mirrors `validateForUpdate()`: called by `save()` for each updated object, as
    /// ``validateForInsert()`` is for inserted ones.
    open func validateForUpdate() throws {
        try NSManagedObjectContext.throwing(NSManagedObjectContext.propertyErrors(self))
    }

    /// Mirrors `validateForDelete()`: called by `save()` for each deleted object. The default refuses the
    /// delete while a relationship whose delete rule is deny still holds objects
    /// (`NSValidationRelationshipDeniedDeleteError`); reading one that is still a fault may throw the
    /// store's error.
    open func validateForDelete() throws {
        try NSManagedObjectContext.throwing(NSManagedObjectContext.deniedDeleteErrors(self))
    }

    /// Mirrors `willSave()`.
    open func willSave() {}
    /// Mirrors `didSave()`.
    open func didSave() {}
    /// Mirrors `prepareForDeletion()`.
    open func prepareForDeletion() {}
    /// Mirrors `willTurnIntoFault()`: called before the object turns into a fault (`refresh(_:mergeChanges:
    /// false)`, `refreshAllObjects()`); its values are still readable. Does nothing by default.
    open func willTurnIntoFault() {}
    /// Mirrors `didTurnIntoFault()`: called after the object turned into a fault, to clear caches.
    open func didTurnIntoFault() {}
    /// Mirrors `awake(fromSnapshotEvents:)`: called after the context reset the object's values from a
    /// snapshot: `.rollback` (`rollback()`), `.refresh` (`refresh(_:mergeChanges: true)`), `.mergePolicy`
    /// (a save's merge policy resolved a conflict of the object), the undo events (undo). Set values
    /// here with ``setPrimitiveValue(_:forKey:)`` so that they are not recorded as changes.
    open func awake(fromSnapshotEvents flags: NSSnapshotEventType) {}

    open override var description: String {
        // A composite shows as its dictionary, its elements not on their own.
        let shown = layout.properties.indices.filter { !(layout.properties[$0] is CompositeElementAttribute) }
        let state = isFault ? "<fault>" : "{" + shown.map { "\(layout.properties[$0].name) = \(Self.describe(value(shownAt: $0)))" }.joined(separator: "; ") + "}"
        return "<\(NSStringFromClass(type(of: self))): \(objectID.uriRepresentation().absoluteString)> (entity: \(entity.name ?? "?")) \(state)"
    }
}
