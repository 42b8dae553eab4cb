import Foundation

/// The Swift types Xcode's codegen gives properties, and the spelling of names in generated code.
enum SwiftTypes {
    /// Xcode's Swift type for an attribute. With "Use Scalar Type" (`usesScalarValueType`) numbers and
    /// Booleans are plain scalars (`Int16`, `Int32`, `Int64`, `Double`, `Float`, `Bool`) and a date is a
    /// `TimeInterval`; without it they are `NSNumber?` and `Date?`. Every other type is optional whatever
    /// the model's "Optional" says, as Xcode writes it: `NSDecimalNumber?`, `String?`, `Data?`, `UUID?`,
    /// `URL?`, `NSManagedObjectID?`; a transformable attribute has its custom class (`customClassName`)
    /// or `NSObject?`; an undefined one (transient) `NSObject?`; a composite one `[String: Any]?` (Xcode
    /// 15's type for it, as in Apple's "What's new in Core Data", WWDC23).
    static func type(of attribute: CodegenModel.Attribute) -> String {
        let scalar = attribute.usesScalarValueType
        switch attribute.type {
        case .integer16: return scalar ? "Int16" : "NSNumber?"
        case .integer32: return scalar ? "Int32" : "NSNumber?"
        case .integer64: return scalar ? "Int64" : "NSNumber?"
        case .double: return scalar ? "Double" : "NSNumber?"
        case .float: return scalar ? "Float" : "NSNumber?"
        case .boolean: return scalar ? "Bool" : "NSNumber?"
        case .date: return scalar ? "TimeInterval" : "Date?"
        case .decimal: return "NSDecimalNumber?"
        case .string: return "String?"
        case .binary: return "Data?"
        case .uuid: return "UUID?"
        case .uri: return "URL?"
        case .objectID: return "NSManagedObjectID?"
        case .transformable: return (attribute.customClassName ?? "NSObject") + "?"
        case .undefined: return "NSObject?"
        case .composite: return "[String: Any]?"
        }
    }

    /// Xcode's Swift type for a relationship: the destination's class, optional, for a to-one;
    /// `NSSet?` for a to-many, `NSOrderedSet?` for an ordered one.
    static func type(of relationship: CodegenModel.Relationship, in model: CodegenModel) -> String {
        if relationship.isToMany { return relationship.isOrdered ? "NSOrderedSet?" : "NSSet?" }
        return destinationClass(of: relationship, in: model) + "?"
    }

    /// The class of a relationship's destination: its entity's class name, `NSManagedObject` when it has
    /// none.
    static func destinationClass(of relationship: CodegenModel.Relationship, in model: CodegenModel) -> String {
        model.entity(named: relationship.destinationEntity).flatMap(ModelClassGenerator.className(of:)) ?? "NSManagedObject"
    }

    /// The name with its first character upper-cased, as Xcode spells accessors (`zoos` → `addToZoos`).
    static func capitalizedFirst(_ name: String) -> String {
        guard let first = name.first else { return name }
        return first.uppercased() + name.dropFirst()
    }

    /// The name as a Swift declaration may spell it: in backquotes when it is a keyword.
    static func identifier(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// Words a declaration's name must put in backquotes.
    private static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func",
        "import", "init", "inout", "internal", "let", "open", "operator", "private", "precedencegroup",
        "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case",
        "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in",
        "repeat", "return", "throw", "switch", "where", "while", "as", "false", "is", "nil", "self", "Self",
        "super", "throws", "true", "try", "Any",
    ]
}
