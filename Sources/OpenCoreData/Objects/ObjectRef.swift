import Foundation

/// What a relationship slot holds for one object: the object's key (a row, or an unsaved object's
/// temporary key) and its entity number. Equal when the keys are equal. A to-one slot holds one as a
/// ``Value`` (`.object`), a to-many slot ``ToManyMembers`` or ``ToManyFault``.
///
/// Managed objects and object IDs turn into the same value in predicates (``PredicateIdentity``), so
/// `classification == %@`, `self IN %@` and `%@ IN zoos` compare keys in memory as SQL compares keys.
package struct ObjectRef: Hashable, @unchecked Sendable {
    let key: ObjectKey
    /// The entity number, kept in 32 bits: with it the reference is 24 bytes, so that an `AnyHashable`
    /// (a to-one slot's value) and an `Any` (`AnyHashable.base`, read by ``Value/objectRef``) hold it
    /// inline instead of in an allocated box.
    private let entityNumber: Int32
    var entityID: Int { Int(entityNumber) }

    init(key: ObjectKey, entityID: Int) {
        self.key = key
        self.entityNumber = Int32(truncatingIfNeeded: entityID)
    }

    package static func == (a: ObjectRef, b: ObjectRef) -> Bool { a.key == b.key }
    package func hash(into hasher: inout Hasher) { hasher.combine(key) }

    var value: Value { .object(ObjectRefBox.make(self)) }
}

/// Makes the `AnyHashable` a to-one slot holds without the runtime's generic path (`AnyHashable.init`
/// asks whether the type has a custom representation and which hashable base it upcasts to: two dynamic
/// casts per reference, a measurable share of reading rows with to-ones). An `AnyHashable` of an
/// ``ObjectRef`` holds the reference's three words inline, then its box's type words, which are the same
/// for every reference: those are taken once from one made the generic way, and each reference's
/// `AnyHashable` is its own words followed by them. The layout is checked once, on two references made
/// both ways (equal, equally hashed, the same `base`); should it ever differ, every reference is made
/// the generic way.
enum ObjectRefBox {
    private typealias Inline = (Int, Int, Int)
    /// The box's type words, when the layout is the expected one.
    private static let typeWords: (Int, Int)? = findTypeWords()

    @inline(__always) static func make(_ ref: ObjectRef) -> AnyHashable {
        guard let typeWords else { return AnyHashable(ref) }
        let inline = unsafeBitCast(ref, to: Inline.self)
        return unsafeBitCast((inline.0, inline.1, inline.2, typeWords.0, typeWords.1), to: AnyHashable.self)
    }

    private static func findTypeWords() -> (Int, Int)? {
        guard MemoryLayout<AnyHashable>.size == 5 * MemoryLayout<Int>.size,
              MemoryLayout<ObjectRef>.size == MemoryLayout<Inline>.size else { return nil }
        let samples = [ObjectRef(key: .permanent(root: 3, pk: 123_456_789), entityID: 7), ObjectRef(key: .temporary(42), entityID: 9)]
        let generic = AnyHashable(samples[0])
        let words = unsafeBitCast(generic, to: (Int, Int, Int, Int, Int).self)
        // The reference's key words are the first ones (held inline, not in an allocated box).
        let own = unsafeBitCast(samples[0], to: Inline.self)
        guard words.0 == own.0, words.1 == own.1 else { return nil }
        for sample in samples {
            let inline = unsafeBitCast(sample, to: Inline.self)
            let made = unsafeBitCast((inline.0, inline.1, inline.2, words.3, words.4), to: AnyHashable.self)
            let reference = AnyHashable(sample)
            guard made == reference, made.hashValue == reference.hashValue, let base = made.base as? ObjectRef,
                  base.key == sample.key, base.entityID == sample.entityID else { return nil }
        }
        return (words.3, words.4)
    }

    /// The reference `h` holds when it was made as ``make(_:)`` makes them (its type words are the
    /// reference box's), read from its words: no copy of its base as an `Any`. `nil` otherwise.
    @inline(__always) static func read(_ h: AnyHashable) -> ObjectRef? {
        guard let typeWords else { return nil }
        // The words are only read (nothing is retained through them), and used only when they are a
        // reference's, which holds nothing counted.
        let words = unsafeBitCast(h, to: (Int, Int, Int, Int, Int).self)
        guard words.3 == typeWords.0, words.4 == typeWords.1 else { return nil }
        return unsafeBitCast((words.0, words.1, words.2), to: ObjectRef.self)
    }

    /// Whether references are made without the generic path (tests).
    static var isFast: Bool { typeWords != nil }
}

/// Marks a to-many slot whose objects were not read yet: reading the relationship reads them (one query).
///
/// The objects of one batch of a batched fetch (`fetchBatchSize`) carry the batch (``batch``): firing
/// one of their to-many faults reads that relationship for every object of the batch whose fault has
/// not fired, in the same one query (see `NSManagedObjectContext.readToMany(of:slot:)`). Every fault
/// equals every other: the batch only says where to look.
struct ToManyFault: Hashable, @unchecked Sendable {
    /// The part of a batch the object was loaded with, if it came from a batched fetch. (One reference,
    /// so that `AnyHashable.base` holds the fault inline: `isToManyFault` allocates nothing.)
    let batch: BatchChunk?

    static let value = Value.object(AnyHashable(ToManyFault(batch: nil)))

    static func == (a: ToManyFault, b: ToManyFault) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}

extension Value {
    /// The reference a to-one slot holds, `nil` for anything else.
    var objectRef: ObjectRef? {
        guard case .object(let h) = self else { return nil }
        return ObjectRefBox.read(h) ?? slotContent(ObjectRef.self)
    }

    /// Whether this is a to-many slot not read yet.
    var isToManyFault: Bool {
        guard case .object(let h) = self else { return false }
        return type(of: h.base) == ToManyFault.self
    }

    /// What an `.object` holds when it is exactly a `T`, one of the relationship slots' own types
    /// (``ObjectRef``, ``ToManyFault``), else `nil`. The type is compared first and
    /// the value then read from the `Any`'s inline buffer, where a value of at most three words that
    /// moves by copying its bytes is kept: no dynamic cast (the runtime's cast cost more than the rest
    /// of reading a relationship slot).
    @inline(__always) func slotContent<T>(_: T.Type) -> T? {
        guard case .object(let h) = self else { return nil }
        let base = h.base
        guard type(of: base) == T.self else { return nil }
        guard MemoryLayout<T>.size <= 3 * MemoryLayout<Int>.size, MemoryLayout<T>.alignment <= MemoryLayout<Int>.alignment else { return base as? T }
        return withUnsafeBytes(of: base) { $0.load(as: T.self) }
    }

    /// Nil, or an empty to-many: what an inserted object's untouched slot holds.
    var isNullOrEmpty: Bool {
        switch self {
        case .null: return true
        case .set(let s): return s.isEmpty
        case .array(let a): return a.isEmpty
        case .collection: return toManyMembers?.count == 0
        default: return false
        }
    }

    /// How many objects a loaded to-many slot holds (0 for anything else), without reading them.
    var referenceCount: Int { toManyMembers?.count ?? 0 }

    /// The references a loaded to-many slot holds, in order for an ordered one.
    var objectRefs: [ObjectRef] { toManyMembers?.refs ?? [] }
}

extension NSManagedObject: PredicateIdentity {
    package var predicateIdentity: Value { ObjectRef(key: objectID.key, entityID: layout.entityID).value }
}

extension NSManagedObjectID: PredicateIdentity {
    package var predicateIdentity: Value { ObjectRef(key: key, entityID: entity.layout?.entityID ?? 0).value }
}
