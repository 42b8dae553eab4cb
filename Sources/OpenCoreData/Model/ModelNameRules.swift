import Foundation

/// The rules entity and property names follow, checked when a coordinator loads the model
/// (``NSManagedObjectModel`` validation), and the SQLite names they map to.
///
/// Core Data's run time checks few names itself: Xcode's model editor and model compiler refuse the rest.
/// A model built in code skips those, so we check here what our SQLite layout depends on:
/// - names are identifiers: an ASCII letter, then ASCII letters, digits or underscores. Xcode asks for the
///   same (and, beyond that, a lowercase first letter for properties and an uppercase one for entities,
///   which we do not require: Core Data's run time accepts both). ASCII only is stricter than Xcode:
///   SQLite ignores case only for ASCII letters and `uppercased()` may change a non-ASCII name's length
///   (`ß` → `SS`), so two names could silently share a column;
/// - no two root entities share a table (`Z` + the name upper-cased; SQLite table names ignore case);
/// - no property's column (`Z` + the name upper-cased) is one of Core Data's own (`Z_PK`, `Z_ENT`,
///   `Z_OPT`), and no two properties of an entity (inherited included) differ only in case;
/// - no property is named like a no-parameter method of `NSObject` or `NSManagedObject` (Apple's
///   `NSPropertyDescription` documentation: "you cannot give a property the name description").
enum ModelNameRules {
    /// The SQLite table of a root entity: `Z` + its name upper-cased (Core Data's naming).
    static func tableName(forRootEntityNamed name: String) -> String { "Z" + name.uppercased() }

    /// The SQLite column of an attribute: `Z` + its name upper-cased; `Z<entity number>` + the name when a
    /// sibling entity of the same hierarchy already has that column (Core Data's naming).
    static func columnName(forAttributeNamed name: String, entityNumber: Int? = nil) -> String {
        "Z" + (entityNumber.map(String.init) ?? "") + name.uppercased()
    }

    /// Core Data's order of entity and property names in the store's layout: ignoring case (ASCII), then
    /// by bytes.
    static func precedes(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.lowercased().utf8), Array(b.lowercased().utf8))
        return x != y ? x.lexicographicallyPrecedes(y) : Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
    }

    /// The columns every entity table has, which Core Data itself fills.
    static let storeColumns: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]

    /// Whether a name is an ASCII identifier: a letter, then letters, digits or underscores.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, isLetter(first) else { return false }
        return name.utf8.allSatisfy { isLetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "_") }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    static let identifierRule = "names must start with an ASCII letter and contain only ASCII letters, digits and underscores, as Xcode's model editor requires"

    /// Whether a property name is reserved: names of no-parameter methods and properties of `NSObject` and
    /// `NSManagedObject` (exact case), plus `self`, `entity` and `objectID` in any case (key paths read
    /// them as the object itself, its entity and its ID). Not exhaustive: Apple warns the list of
    /// `NSObject`'s methods is long and grows.
    static func isReservedPropertyName(_ name: String) -> Bool {
        reservedAnyCase.contains(name.lowercased()) || reserved.contains(name)
    }

    private static let reservedAnyCase: Set<String> = ["self", "entity", "objectid"]

    private static let reserved: Set<String> = [
        // NSObject
        "class", "superclass", "description", "debugDescription", "hash", "hashValue", "copy", "mutableCopy",
        "init", "new", "alloc", "dealloc", "finalize", "retain", "release", "autorelease", "retainCount", "zone",
        "isProxy", "className", "classForCoder", "classForKeyedArchiver", "classDescription", "observationInfo",
        "autoContentAccessingProxy", "objectSpecifier", "attributeKeys", "toOneRelationshipKeys",
        "toManyRelationshipKeys",
        // NSManagedObject
        "managedObjectContext", "isInserted", "isUpdated", "isDeleted", "hasChanges", "hasPersistentChangedValues",
        "isFault", "faultingState", "changedValues", "changedValuesForCurrentEvent", "awakeFromFetch",
        "awakeFromInsert", "willSave", "didSave", "willTurnIntoFault", "didTurnIntoFault", "prepareForDeletion",
        "validateForInsert", "validateForUpdate", "validateForDelete",
    ]
}
