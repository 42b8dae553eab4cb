import Foundation

/// Mirrors Core Data's `NSPropertyDescription`: a named property of an entity.
public class NSPropertyDescription: NSObject, @unchecked Sendable {
    /// Mirrors `name`.
    public var name: String = ""
    /// Mirrors `isOptional` (default `true`, as in Core Data).
    public var isOptional: Bool = true
    /// Mirrors `isTransient`. Transient properties are kept in memory and never saved.
    public var isTransient: Bool = false
    /// Mirrors `entity`: the entity that declares the property.
    public internal(set) weak var entity: NSEntityDescription?
    /// Mirrors `userInfo`.
    public var userInfo: [AnyHashable: Any]? = nil
    /// The property's storage slot in objects of its entity and of every subentity (inherited properties
    /// come first, so a property has one slot in the whole hierarchy). Set when the model is frozen.
    var slot = -1

    public override init() { super.init() }
}
