import Foundation

/// Mirrors Core Data's `NSIncrementalStoreNode`: one record of an ``NSIncrementalStore`` as the store hands
/// it to Core Data from ``NSIncrementalStore/newValuesForObject(with:with:)``: its object ID, its values by
/// property name, and its version.
///
/// Values are those of the entity's properties: attributes as value objects (`NSString`, `NSNumber`,
/// `NSDate`, `NSData`, …, or their Swift counterparts; a missing key or `NSNull` is nil); to-one
/// relationships as the related object's `NSManagedObjectID`, or `NSNull` for none (a missing key is asked
/// of ``NSIncrementalStore/newValue(forRelationship:forObjectWith:with:)``); to-many relationships are
/// always asked of that method when the relationship is first read, as in Core Data.
///
/// The version is the record's version for optimistic locking: a save compares it with the version the
/// object read (see ``NSIncrementalStore``).
open class NSIncrementalStoreNode: NSObject, @unchecked Sendable {
    /// Mirrors `objectID`: the ID of the object whose values the node holds.
    public let objectID: NSManagedObjectID
    private var values: [String: Any]
    private var storedVersion: UInt64

    /// Mirrors `init(objectID:withValues:version:)`.
    public init(objectID: NSManagedObjectID, withValues values: [String: Any], version: UInt64) {
        self.objectID = objectID
        self.values = values
        self.storedVersion = version
        super.init()
    }

    /// Mirrors `update(withValues:version:)`: replaces the node's values and version (the store brings the
    /// node up to date with a save or a fresh read).
    open func update(withValues values: [String: Any], version: UInt64) {
        self.values = values
        storedVersion = version
    }

    /// Mirrors `version`: the record's version, compared by optimistic locking.
    open var version: UInt64 { storedVersion }

    /// Mirrors `value(for:)`: the value of a property (`NSNull` as the node holds it for a to-one without
    /// destination), or `nil` when the node holds none.
    open func value(for prop: NSPropertyDescription) -> Any? {
        values[prop.name]
    }
}
