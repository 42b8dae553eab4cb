import Foundation
import Synchronization

/// The stand-in for Core Data's `@NSManaged` on a property of an `NSManagedObject` subclass (Linux has no
/// `@NSManaged`: it type-checks, but the accessors it promises are never made and the link fails).
///
///     final class Animal: NSManagedObject {
///         @Managed var commonName: String?
///         @Managed var classification: Classification?
///         @Managed var zoos: NSSet?
///     }
///
/// The generated getter and setter read and write the object's storage slot directly (the slot is found
/// once per class and entity, not by name on each access); they fire faults, keep inverses and record
/// changes exactly as `value(forKey:)` / `setValue(_:forKey:)` do. As with `@NSManaged`, the class may
/// describe a newer version of the model than an object's (a migration's source model, an old store
/// opened with its own model): loading any version works, and only accessing a property the object's
/// entity lacks (or has as another kind of property) traps, naming the class, the property, the entity
/// and its model, as Core Data raises an unrecognized selector then. When a coordinator loads the model,
/// a property the entity lacks or of a type that does not fit is a logged warning naming the class, the
/// property and the entity. Supported types are Xcode's (see
/// docs/ModelClasses.md): `String`, integers, `Double`, `Float`, `Bool`, `Decimal`, `NSNumber`,
/// `NSDecimalNumber`, `Date`, `Data`, `UUID`, `URL` (optional or not), custom types of transformable
/// attributes, an `NSManagedObject` subclass for a to-one, `NSSet`, `Set<Destination>` or `NSOrderedSet`
/// for a to-many.
@attached(accessor, names: named(get), named(set))
@attached(peer, names: prefixed(__managed_), prefixed(__managedRecord_))
public macro Managed() = #externalMacro(module: "OpenCoreDataMacros", type: "ManagedMacro")

/// The stand-in for `@NSManaged` on the to-many accessor functions Xcode generates
/// (`addToZoos(_:)`, `removeFromZoos(_:)` for one object or an `NSSet`/`NSOrderedSet`, and for ordered
/// relationships `insertIntoZoos(_:at:)`, `removeFromZoos(at:)`, `replaceZoos(at:with:)` with an index or
/// an `NSIndexSet`). Declare the function without a body, as Xcode does; the macro writes it.
///
/// Swift cannot give one macro both a property's accessors and a function's body (a macro with both
/// roles is rejected on either declaration), so functions take this second name.
@attached(body)
@attached(peer, names: arbitrary)
public macro ManagedAccessor() = #externalMacro(module: "OpenCoreDataMacros", type: "ManagedAccessorMacro")

/// Not in Core Data, and not API: what the code the `@Managed` and `@ManagedAccessor` macros expand into
/// calls — the property's slot cache, its section record, the typed getters and setters
/// (NSManagedObject+Managed.swift), the records' reporters (Model/ManagedClasses.swift) and the attribute
/// value conversions (ManagedAttributeValue.swift). Core Data's `@NSManaged` accessors are made by its
/// runtime; these are ours. Nothing here is meant to be called by hand, and it may change in any release.
///
/// Why public and not `@_spi(ManagedMacroSupport)`: a macro's expansion is type-checked with the imports
/// of the file it lands in, and an SPI declaration is visible only in a file that says
/// `@_spi(ManagedMacroSupport) import OpenCoreData`. A port keeps a plain `import OpenCoreData`, and a
/// macro cannot add an import. Measured with Swift 6.3.1 on a probe package (a macro expanding into a
/// call of an `@_spi` function): with a plain import the expansion fails ("cannot find '…' in scope";
/// qualified with the module's name, "module … has no member named '…'"); it compiles only with the
/// `@_spi` import in the client's file, and an `@_spi(…) @_exported import` in the library re-exports the
/// SPI only to clients that import it with `@_spi` themselves. So the plumbing is public, in this one
/// underscored namespace, hidden from documentation; its members are not Core Data's.
@_documentation(visibility: internal)
public enum _ManagedMacroSupport {
    /// A record the `@Managed` macro places in the `ocd_managed` linker section, one per property or
    /// accessor. Called once, when a model first resolves its classes, it reports the property (class,
    /// name, declared type) to the collector it is given.
    public typealias SectionRecord = @convention(c) (UnsafeMutableRawPointer) -> Void
}

extension _ManagedMacroSupport {
    /// The per-property state the `@Managed` macro generates (a `static let` beside the property): the
    /// property's name and the storage slot it was last found at, with the layout it was found in. Core
    /// Data's dynamic `@NSManaged` accessors keep the same kind of cache per class.
    public final class Property: Sendable {
        let name: String
        /// `layout serial << 24 | slot`; 0 before the first access (serials start at 1). Every model a
        /// coordinator loads has layouts of its own serials, so objects of two versions of a model that
        /// bind the same class (each slot numbered by its own version) never read each other's slot.
        private let cached = Atomic<Int>(0)

        /// Made by the `@Managed` macro's expansion.
        public init(_ name: String) { self.name = name }

        /// What the accessor expects of the slot (checked at the first access per layout; the model's load
        /// only warns, against the classes the entities resolve to).
        enum Expectation { case attribute, toOne, toMany }

        /// The slot of the property in the object's entity.
        @inline(__always)
        func slot(in object: NSManagedObject, _ expectation: Expectation) -> Int {
            slotAndKind(in: object, expectation) & Self.slotMask
        }

        /// Whether the property is a primitive accessor (`primitiveName` of attribute `name`), with its slot.
        @inline(__always)
        func primitiveSlot(in object: NSManagedObject, _ expectation: Expectation) -> (slot: Int, isPrimitive: Bool) {
            let packed = slotAndKind(in: object, expectation)
            return (packed & Self.slotMask, packed & Self.primitiveBit != 0)
        }

        /// The slot, and ``primitiveBit`` for a primitive accessor.
        @inline(__always)
        private func slotAndKind(in object: NSManagedObject, _ expectation: Expectation) -> Int {
            // The cache is read first and the layout's serial after, with nothing in between that could
            // release the layout: the compiler then reads the serial without retaining the layout.
            let packed = cached.load(ordering: .relaxed)
            if packed >> 24 == object.layout.serial { return packed & 0xFF_FFFF }
            return resolve(in: object, object.layout, expectation)
        }

        private static let slotMask = 0x7F_FFFF
        private static let primitiveBit = 0x80_0000

        /// The model's name of a property declared `primitiveName` (Core Data's primitive accessor of
        /// `name`), when the entity has no property of the declared name: `name`; else the declared name.
        static func modelName<V>(of declared: String, in properties: [String: V]) -> (name: String, isPrimitive: Bool) {
            guard properties[declared] == nil, declared.hasPrefix("primitive"), declared.count > 9 else { return (declared, false) }
            let rest = declared.dropFirst(9)
            let name = rest.prefix(1).lowercased() + rest.dropFirst()
            return properties[name] == nil ? (declared, false) : (name, true)
        }

        /// Finds the property's slot in `layout` and caches it. A property the object's entity lacks, or
        /// has as another kind of property, traps here, at its first access on an object of that model
        /// (never when the model loads: the class may describe a newer version of the model than the
        /// object's), as Core Data's dynamic accessors raise an unrecognized selector then.
        private func resolve(in object: NSManagedObject, _ layout: EntityLayout, _ expectation: Expectation) -> Int {
            let (name, isPrimitive) = Self.modelName(of: self.name, in: layout.slotByName)
            guard let slot = layout.slotByName[name] else {
                fatalError("-[\(className(object)) \(self.name)]: unrecognized selector sent to instance: @Managed property \(self.name) of class \(className(object)) is not a property of entity \(entityName(object)) in \(Self.modelDescription(object)), which lacks it (the class may describe another version of the model)")
            }
            guard !isPrimitive || expectation == .attribute else {
                fatalError("class \(className(object)): @Managed property \(self.name): primitive accessors are supported for attributes only, and \(name) of entity \(entityName(object)) is \(layout.kinds[slot].summary)")
            }
            guard Self.fits(layout.kinds[slot], expectation) else {
                fatalError("class \(className(object)): @Managed property \(name) is declared as \(expectation), but in \(Self.modelDescription(object)) \(name) of entity \(entityName(object)) is \(layout.kinds[slot].summary) (the class may describe another version of the model)")
            }
            let packed = slot | (isPrimitive ? Self.primitiveBit : 0)
            if slot <= Self.slotMask { cached.store(layout.serial << 24 | packed, ordering: .relaxed) }
            return packed
        }

        private func className(_ object: NSManagedObject) -> String { NSStringFromClass(type(of: object)) }
        private func entityName(_ object: NSManagedObject) -> String { object.entity.name ?? "?" }

        /// Whether a slot of kind `kind` is what an accessor expecting `expectation` reads.
        private static func fits(_ kind: SlotKind, _ expectation: Expectation) -> Bool {
            switch (kind, expectation) {
            case (.attribute, .attribute), (.toOne, .toOne), (.toMany, .toMany): return true
            default: return false
            }
        }

        /// "the object's model (version "v1")", for messages.
        static func modelDescription(_ object: NSManagedObject) -> String {
            let version = object.entity.managedObjectModel?.versionName
            return "the object's model" + (version.map { " (version \"\($0)\")" } ?? "")
        }
    }
}

extension _ManagedMacroSupport.Property.Expectation: CustomStringConvertible {
    var description: String {
        switch self {
        case .attribute: return "an attribute"
        case .toOne: return "a to-one relationship"
        case .toMany: return "a to-many relationship"
        }
    }
}

extension SlotKind {
    /// "a String attribute", "a to-one relationship to Classification", for messages.
    var summary: String {
        switch self {
        case .attribute(let type): return "an attribute of type \(type.name)"
        case .toOne(let r): return "a to-one relationship to \(r.destination.name ?? "?")"
        case .toMany(let r): return "a to-many relationship to \(r.destination.name ?? "?")\(r.isOrdered ? " (ordered)" : "")"
        }
    }
}
