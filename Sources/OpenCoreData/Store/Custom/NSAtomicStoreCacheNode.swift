import Foundation

/// Mirrors Core Data's `NSAtomicStoreCacheNode`: one record of an atomic store, its values by property
/// name. Attribute values are the objects' values (`String`, `NSNumber`/`Int`/`Double`/`Bool`, `Date`,
/// `Data`, `UUID`, `URL`, `Decimal`, or a transformable attribute's value); a to-one relationship holds
/// the destination's cache node, a to-many a `Set` (ordered: an array or `NSOrderedSet`) of cache nodes.
open class NSAtomicStoreCacheNode: NSObject, @unchecked Sendable {
    /// Mirrors `objectID`.
    public let objectID: NSManagedObjectID

    /// Mirrors `propertyCache`: the values ``value(forKey:)`` and ``setValue(_:forKey:)`` read and write;
    /// `nil` until set or until a non-`nil` value is set for a key.
    open var propertyCache: NSMutableDictionary?

    /// Mirrors `init(objectID:)`.
    public init(objectID moid: NSManagedObjectID) {
        self.objectID = moid
        super.init()
    }

    /// Mirrors `value(forKey:)`: the value of `key` in ``propertyCache``.
    open func value(forKey key: String) -> Any? {
        propertyCache?.object(forKey: key)
    }

    /// Mirrors `setValue(_:forKey:)`: sets (or with `nil` removes) the value of `key` in ``propertyCache``,
    /// making the dictionary when a first value is set.
    open func setValue(_ value: Any?, forKey key: String) {
        guard let value else {
            propertyCache?.removeObject(forKey: key)
            return
        }
        if propertyCache == nil { propertyCache = NSMutableDictionary() }
        propertyCache?.setObject(value, forKey: key as NSString)
    }

    open override var description: String { "<NSAtomicStoreCacheNode> \(objectID)" }
}
