import Foundation

/// Writes the Swift classes Xcode's "Class Definition" and "Category/Extension" codegen would write for a
/// model's entities, for the `OpenCoreDataCodegen` build-tool plugin (docs/ModelFiles.md, "Generated
/// classes"). Not in Core Data: Xcode does this inside the IDE.
///
/// Per entity, by its `codeGenerationType`:
/// - `"class"`: `Name+CoreDataClass.swift` (the class) and `Name+CoreDataProperties.swift`;
/// - `"category"`: `Name+CoreDataProperties.swift` only (the app writes the class);
/// - anything else (absent: Xcode's "Manual/None"): nothing.
///
/// `Name` is the entity's class name (`representedClassName` without a module prefix). The text follows
/// Xcode's shape line by line, with the changes Linux needs: no `@objc(Name)` line, `@Managed` for
/// `@NSManaged` properties, ``accessorAttribute`` for the to-many accessors, and `import OpenCoreData`
/// for `import CoreData`.
public struct ModelClassGenerator: Sendable {
    /// The attribute written before every generated property: the macro that stores it in the object.
    public static let propertyAttribute = "@Managed"
    /// The attribute written before every generated to-many accessor (`addToZoos(_:)`…): the macro that
    /// gives it a body.
    public static let accessorAttribute = "@ManagedAccessor"
    /// The module the generated files import besides Foundation.
    public static let importedModule = "OpenCoreData"

    /// The model's name as the header comments give it (`Zoo.xcdatamodeld`).
    public let modelFileName: String
    /// When set, every entity is generated as if its `codeGenerationType` were `"class"`: Xcode's
    /// "Create NSManagedObject Subclass…" for a model whose classes are written by hand.
    public var generatesEveryEntity: Bool

    /// The model.
    public let model: CodegenModel

    /// A generator for `model`, read from a file named `modelFileName` (only used in header comments).
    public init(model: CodegenModel, modelFileName: String, generatesEveryEntity: Bool = false) {
        self.model = model
        self.modelFileName = modelFileName
        self.generatesEveryEntity = generatesEveryEntity
    }

    /// What an entity's codegen setting asks for.
    public enum Generation: Sendable, Equatable {
        /// `codeGenerationType="class"`: the class and its properties.
        case classDefinition
        /// `codeGenerationType="category"`: the properties only.
        case categoryExtension
    }

    /// The generation the entity asks for; `nil` for none (manual).
    public func generation(for entity: CodegenModel.Entity) -> Generation? {
        if generatesEveryEntity { return .classDefinition }
        switch entity.codeGenerationType {
        case "class": return .classDefinition
        case "category": return .categoryExtension
        default: return nil
        }
    }

    /// The generated files, entity by entity in the model's order (class file before properties file).
    /// Throws ``ModelClassGenerationError`` when an entity to generate has no class name, or when two of
    /// them would make files of one name.
    public func files() throws(ModelClassGenerationError) -> [GeneratedFile] {
        var files: [GeneratedFile] = []
        var owners: [String: String] = [:]
        for entity in model.entities {
            guard let generation = generation(for: entity) else { continue }
            let entityName = entity.name
            guard let className = Self.className(of: entity) else {
                throw ModelClassGenerationError(
                    entity: entityName,
                    reason: "its codegen is \(entity.codeGenerationType ?? "class"), but it has no class name (set representedClassName, Xcode's Class Name)")
            }
            guard Self.isIdentifier(className) else {
                throw ModelClassGenerationError(entity: entityName, reason: "its class name \(className) is not a Swift identifier")
            }
            if let other = owners.updateValue(entityName, forKey: className) {
                throw ModelClassGenerationError(entity: entityName, reason: "entity \(other) has the same class name, \(className)")
            }
            let writer = EntitySourceWriter(model: model, entity: entity, className: className, modelFileName: modelFileName)
            if generation == .classDefinition { files.append(writer.classFile()) }
            files.append(writer.propertiesFile())
        }
        return files
    }

    /// The names of the files ``files()`` makes, without making them.
    public func fileNames() throws(ModelClassGenerationError) -> [String] { try files().map(\.name) }

    /// The Swift class name of an entity: its `representedClassName` after the last `.` (Xcode writes
    /// `Module.Name` or `.Name` for a class in a module); `nil` when the entity has no class of its own.
    public static func className(of entity: CodegenModel.Entity) -> String? {
        guard let name = entity.representedClassName, !name.isEmpty, name != "NSManagedObject" else { return nil }
        let last = name.split(separator: ".", omittingEmptySubsequences: false).last.map(String.init) ?? name
        return last.isEmpty ? nil : last
    }

    /// Whether `text` can name a Swift type or member without backquotes.
    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || CharacterSet.letters.contains(first) else { return false }
        return text.unicodeScalars.allSatisfy { $0 == "_" || CharacterSet.alphanumerics.contains($0) }
    }
}

/// One generated source file: its name (`Animal+CoreDataProperties.swift`) and its text.
public struct GeneratedFile: Sendable, Equatable {
    /// The file name, without a folder.
    public var name: String
    /// The Swift source.
    public var contents: String

    /// A file named `name` holding `contents`.
    public init(name: String, contents: String) {
        self.name = name
        self.contents = contents
    }
}

/// Why the classes of a model could not be generated: the file and the place in it when known, the
/// element or entity at fault, and the reason. Its description reads like a compiler's diagnostic:
/// `/app/Zoo.xcdatamodeld/Zoo.xcdatamodel/contents:4:9: <attribute name="age"> in entity Animal: unknown attributeType "Integer 12" (…)`.
public struct ModelClassGenerationError: Error, CustomStringConvertible, Sendable {
    /// The file (or folder) at fault, when the error is about a file.
    public let file: URL?
    /// The 1-based line of the element at fault.
    public let line: Int?
    /// The 1-based column where the element at fault starts.
    public let column: Int?
    /// The element at fault and where it sits (`<entity name="Animal">`, `entity Animal`).
    public let element: String?
    /// What is wrong.
    public let reason: String

    /// An error about a place in a file.
    public init(file: URL?, line: Int? = nil, column: Int? = nil, element: String? = nil, reason: String) {
        self.file = file
        self.line = line
        self.column = column
        self.element = element
        self.reason = reason
    }

    /// An error about an entity, wherever it came from.
    public init(entity: String, reason: String) {
        self.init(file: nil, element: "entity \(entity)", reason: reason)
    }

    /// `file:line:column: element: reason`, leaving out what is not known.
    public var description: String { location + (element.map { $0 + ": " } ?? "") + reason }

    /// `file:line:column: ` (or less, or nothing).
    public var location: String {
        guard let file else { return "" }
        return file.path + (line.map { ":\($0)" } ?? "") + (column.map { ":\($0)" } ?? "") + ": "
    }
}
