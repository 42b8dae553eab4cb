import Foundation

/// The properties `NSManagedObject` itself declares, reached by key as Objective-C's key-value coding
/// reaches them on Apple platforms: `value(forKey: "entity")`, the key path `entity.name`, and in-memory
/// predicates and sorts (`entity == %@`, `isInserted == YES`). A key the entity (or a `@KeyValue`
/// property) also names is the entity's. Both the property name and the Objective-C getter name work
/// (`inserted` and `isInserted`), as on Apple platforms.
enum ManagedObjectOwnKey: Int, CaseIterable {
    case entity, objectID, managedObjectContext, isInserted, isUpdated, isDeleted, isFault, hasChanges
    case hasPersistentChangedValues, faultingState
    /// `NSObject`'s `self`: the object itself.
    case object

    init?(key: String) {
        switch key {
        case "entity": self = .entity
        case "objectID": self = .objectID
        case "managedObjectContext": self = .managedObjectContext
        case "isInserted", "inserted": self = .isInserted
        case "isUpdated", "updated": self = .isUpdated
        case "isDeleted", "deleted": self = .isDeleted
        case "isFault", "fault": self = .isFault
        case "hasChanges": self = .hasChanges
        case "hasPersistentChangedValues": self = .hasPersistentChangedValues
        case "faultingState": self = .faultingState
        case "self": self = .object
        default: return nil
        }
    }

    /// The property's value on `object`, as key-value coding hands it out (Booleans and numbers as
    /// `NSNumber`); reading it fires no fault.
    func value(of object: NSManagedObject) -> Any? {
        switch self {
        case .entity: object.entity
        case .objectID: object.objectID
        case .managedObjectContext: object.managedObjectContext
        case .isInserted: NSNumber(value: object.isInserted)
        case .isUpdated: NSNumber(value: object.isUpdated)
        case .isDeleted: NSNumber(value: object.isDeleted)
        case .isFault: NSNumber(value: object.isFault)
        case .hasChanges: NSNumber(value: object.hasChanges)
        case .hasPersistentChangedValues: NSNumber(value: object.hasPersistentChangedValues)
        case .faultingState: NSNumber(value: object.faultingState)
        case .object: object
        }
    }

    /// Where compiled predicates find these keys (``NSManagedObject/predicateSlot(forKey:)``): past any
    /// slot a layout or `@KeyValue` property can have.
    static let firstSlot = 1 << 40

    var slot: Int { Self.firstSlot + rawValue }

    init?(slot: Int) {
        guard slot >= Self.firstSlot else { return nil }
        self.init(rawValue: slot - Self.firstSlot)
    }

    /// Why a fetch cannot use the key `key` of an object in SQL, or `nil` when `key` is not one of
    /// these properties. (`entity` compared with an entity is translated, as Core Data translates it:
    /// PredicateTranslator.)
    static func sqlRefusal(_ key: String, keyPath: String, entityName: String) -> CoreDataError? {
        guard Self(key: key) != nil else { return nil }
        return CoreDataError(NSCoreDataError,
                             "unsupported in a fetch of entity \(entityName): the key path \(keyPath) reads \(key), a property of the object in memory, which the store cannot evaluate in SQL; evaluate the predicate in memory (filtered(using:) on the fetched objects)",
                             userInfo: [NSValidationKeyErrorKey: keyPath])
    }
}
