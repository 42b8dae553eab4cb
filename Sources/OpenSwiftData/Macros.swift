import Foundation

/// Mirrors SwiftData's `@Model()`: makes a class a persistent model. Each stored `var` (not `@Transient`)
/// is kept in the model's backing data (the managed object's storage once the model is inserted); the
/// class gains ``PersistentModel`` and `Observable`, `init(backingData:)`, ``PersistentModel/schemaMetadata``.
/// Each persisted property needs its type written out.
@attached(member, names: named(_$backingData), named(persistentBackingData), named(_$modelStorage), named(_$realizesBackingData),
          named(schemaMetadata), named(init), named(_$observationRegistrar))
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel, Observable)
public macro Model() = #externalMacro(module: "OpenCoreDataMacros", type: "ModelMacro")

/// Mirrors SwiftData's `@_PersistedProperty`, which `@Model` puts on each stored property: accessors over
/// the backing data, observed, and the property's slot cache (a `static let`).
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_), prefixed(_$slot_))
public macro _PersistedProperty() = #externalMacro(module: "OpenCoreDataMacros", type: "PersistedPropertyMacro")

/// Mirrors SwiftData's `@Attribute(_:originalName:hashModifier:)`: the options of a persisted property,
/// the name it had in the previous schema version, and its version hash modifier.
@attached(peer)
public macro Attribute(_ options: Schema.Attribute.Option..., originalName: String? = nil, hashModifier: String? = nil)
    = #externalMacro(module: "OpenCoreDataMacros", type: "PropertyMarkerMacro")

/// Mirrors SwiftData's `@Relationship(_:deleteRule:minimumModelCount:maximumModelCount:originalName:inverse:hashModifier:)`.
@attached(peer)
public macro Relationship(_ options: Schema.Relationship.Option..., deleteRule: Schema.Relationship.DeleteRule = .nullify,
                          minimumModelCount: Int? = 0, maximumModelCount: Int? = 0, originalName: String? = nil,
                          inverse: AnyKeyPath? = nil, hashModifier: String? = nil)
    = #externalMacro(module: "OpenCoreDataMacros", type: "PropertyMarkerMacro")

/// Mirrors SwiftData's `@Transient()`: a stored property `@Model` does not persist (it needs a default value).
@attached(peer)
public macro Transient() = #externalMacro(module: "OpenCoreDataMacros", type: "PropertyMarkerMacro")

/// Mirrors SwiftData's `_SwiftDataNoType`: the empty value of the storage each persisted property's `init`
/// accessor initializes (the value itself lives in the backing data).
public struct _SwiftDataNoType: Sendable {
    /// Mirrors `init()`.
    public init() {}
}

/// Mirrors SwiftData's `#Unique`: inside a `@Model` class, the properties whose values (together) no two
/// models share. `@Model` reads it; it declares nothing itself.
@freestanding(declaration)
public macro Unique<T: PersistentModel>(_ constraints: [PartialKeyPath<T>]...) = #externalMacro(module: "OpenCoreDataMacros", type: "ModelConstraintMacro")

/// Mirrors SwiftData's `#Index` with key paths: inside a `@Model` class, the properties to index.
@freestanding(declaration)
public macro Index<T: PersistentModel>(_ indices: [PartialKeyPath<T>]...) = #externalMacro(module: "OpenCoreDataMacros", type: "ModelConstraintMacro")

/// Mirrors SwiftData's `#Index` with index kinds (`.binary`, `.rtree`).
@freestanding(declaration)
public macro Index<T: PersistentModel>(_ indices: Schema.Index<T>.Types<T>...) = #externalMacro(module: "OpenCoreDataMacros", type: "ModelConstraintMacro")
