import Foundation

/// The text of one entity's two generated files, laid out as Xcode lays out its own: the class file
/// (an empty class), then the properties file (an extension with `fetchRequest()` and the properties,
/// attributes first then relationships, each group in the model's order; one extension of accessors per
/// to-many relationship; `Identifiable` for a class whose superclass is `NSManagedObject`).
struct EntitySourceWriter {
    let model: CodegenModel
    let entity: CodegenModel.Entity
    let className: String
    let modelFileName: String

    private var entityName: String { entity.name }

    /// `Name+CoreDataClass.swift`: `public class Name: Superclass {}`. Xcode writes `@objc(Name)` above
    /// it; Linux Swift has no Objective-C names, so the line is left out.
    func classFile() -> GeneratedFile {
        let fileName = "\(className)+CoreDataClass.swift"
        var lines = header(fileName)
        lines += [
            "public class \(className): \(superclassName) {",
            "",
            "}",
        ]
        return GeneratedFile(name: fileName, contents: lines.joined(separator: "\n") + "\n")
    }

    /// `Name+CoreDataProperties.swift`: `fetchRequest()`, the properties, the to-many accessors.
    func propertiesFile() -> GeneratedFile {
        let fileName = "\(className)+CoreDataProperties.swift"
        var lines = header(fileName)
        lines.append("")
        lines += [
            "extension \(className) {",
            "",
            "    @nonobjc public class func fetchRequest() -> NSFetchRequest<\(className)> {",
            "        return NSFetchRequest<\(className)>(entityName: \(Self.stringLiteral(entityName)))",
            "    }",
            "",
        ]
        // The entity's own properties: inherited ones are its superclass's. Fetched properties are left out.
        let declarations = entity.attributes.map { (name: $0.name, type: SwiftTypes.type(of: $0)) }
            + entity.relationships.map { (name: $0.name, type: SwiftTypes.type(of: $0, in: model)) }
        for declaration in declarations {
            lines.append("    \(ModelClassGenerator.propertyAttribute) public var \(SwiftTypes.identifier(declaration.name)): \(declaration.type)")
        }
        if !declarations.isEmpty { lines.append("") }
        lines.append("}")
        for relationship in entity.relationships where relationship.isToMany {
            lines.append("")
            lines += accessors(for: relationship)
        }
        if superclassName == "NSManagedObject" {
            lines += ["", "extension \(className) : Identifiable {", "", "}"]
        }
        return GeneratedFile(name: fileName, contents: lines.joined(separator: "\n") + "\n")
    }

    /// The parent entity's class, or `NSManagedObject`.
    private var superclassName: String {
        entity.parentEntity.flatMap(model.entity(named:)).flatMap(ModelClassGenerator.className(of:)) ?? "NSManagedObject"
    }

    /// Xcode's "Generated accessors for" extension: the set forms for an unordered to-many, the indexed
    /// forms first and then the set forms (with `NSOrderedSet`) for an ordered one.
    private func accessors(for relationship: CodegenModel.Relationship) -> [String] {
        let key = SwiftTypes.capitalizedFirst(relationship.name)
        let element = SwiftTypes.destinationClass(of: relationship, in: model)
        let collection = relationship.isOrdered ? "NSOrderedSet" : "NSSet"
        var functions: [String] = []
        if relationship.isOrdered {
            functions += [
                "insertInto\(key)(_ value: \(element), at idx: Int)",
                "removeFrom\(key)(at idx: Int)",
                "insertInto\(key)(_ values: [\(element)], at indexes: NSIndexSet)",
                "removeFrom\(key)(at indexes: NSIndexSet)",
                "replace\(key)(at idx: Int, with value: \(element))",
                "replace\(key)(at indexes: NSIndexSet, with values: [\(element)])",
            ]
        }
        functions += [
            "addTo\(key)(_ value: \(element))",
            "removeFrom\(key)(_ value: \(element))",
            "addTo\(key)(_ values: \(collection))",
            "removeFrom\(key)(_ values: \(collection))",
        ]
        var lines = ["// MARK: Generated accessors for \(relationship.name)", "extension \(className) {", ""]
        for function in functions {
            lines += ["    \(ModelClassGenerator.accessorAttribute) public func \(function)", ""]
        }
        lines.append("}")
        return lines
    }

    /// The comment at the top of a file, then the imports.
    private func header(_ fileName: String) -> [String] {
        [
            "//",
            "//  \(fileName)",
            "//  Made by OpenCoreDataCodegen from \(modelFileName), entity \(entityName).",
            "//  Every build makes it again: change the model, not this file.",
            "//",
            "",
            "import Foundation",
            "import \(ModelClassGenerator.importedModule)",
            "",
        ]
    }

    /// A Swift string literal holding `text`.
    static func stringLiteral(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
