import Foundation
import OpenCoreDataModelXML

extension CodegenModel {
    /// Reads the model in a `.xcdatamodeld` folder (its current version: the one `.xccurrentversion`
    /// names, else the only one, else the one named like the folder) or a `.xcdatamodel` folder, with the
    /// rules of OpenCoreData's reader for what generation needs: every entity named, every `attributeType`
    /// known, every parent and destination in the model. What generation does not read (defaults,
    /// predicates, indexes…) is not checked here; loading the model at run time checks it.
    public init(contentsOf url: URL) throws(ModelClassGenerationError) {
        let url = url.standardizedFileURL
        let folder: URL
        switch url.pathExtension {
        case "xcdatamodeld": folder = url.appendingPathComponent(try Self.currentVersion(of: url), isDirectory: true)
        case "xcdatamodel": folder = url
        default: throw ModelClassGenerationError(file: url, reason: "not a model: expected a .xcdatamodeld or .xcdatamodel folder")
        }
        let contents = folder.appendingPathComponent("contents")
        guard let data = FileManager.default.contents(atPath: contents.path) else {
            throw ModelClassGenerationError(file: contents, reason: "cannot read the model's contents file")
        }
        try self.init(contents: data, file: contents)
    }

    /// Reads the text of a `contents` file; `file` names it in errors.
    public init(contents data: Data, file: URL) throws(ModelClassGenerationError) {
        let root: ModelXMLElement
        do {
            root = try ModelXMLParser.parse(data)
        } catch {
            throw ModelClassGenerationError(file: file, line: error.line, column: error.column, reason: error.message)
        }
        guard root.name == "model" else {
            throw ModelClassGenerationError(file: file, line: root.line, column: root.column, element: "<\(root.name)>",
                                            reason: "expected a <model> element")
        }
        var entities: [Entity] = []
        for element in root.children where element.name == "entity" {
            entities.append(try Self.entity(element, file: file))
        }
        func fail(_ element: ModelXMLElement, _ what: String, _ reason: String) -> ModelClassGenerationError {
            ModelClassGenerationError(file: file, line: element.line, column: element.column, element: what, reason: reason)
        }
        let names = Set(entities.map(\.name))
        for (entity, element) in zip(entities, root.children.filter { $0.name == "entity" }) {
            if let parent = entity.parentEntity, !names.contains(parent) {
                throw fail(element, "<entity name=\"\(entity.name)\">", "the parent entity \(parent) is not in the model")
            }
            for (relationship, child) in zip(entity.relationships, element.children.filter { $0.name == "relationship" })
            where !names.contains(relationship.destinationEntity) {
                throw fail(child, "<relationship name=\"\(relationship.name)\"> in entity \(entity.name)",
                           "the destination entity \(relationship.destinationEntity) is not in the model")
            }
        }
        self.init(entities: entities)
    }

    /// `<entity name representedClassName parentEntity isAbstract codeGenerationType>` and its
    /// `<attribute>` and `<relationship>` children (others are not generated).
    private static func entity(_ element: ModelXMLElement, file: URL) throws(ModelClassGenerationError) -> Entity {
        func fail(_ element: ModelXMLElement, _ what: String, _ reason: String) -> ModelClassGenerationError {
            ModelClassGenerationError(file: file, line: element.line, column: element.column, element: what, reason: reason)
        }
        guard let name = element.attribute("name"), !name.isEmpty else { throw fail(element, "<entity>", "the entity has no name") }
        var entity = Entity(name: name,
                            representedClassName: element.attribute("representedClassName").flatMap { $0.isEmpty ? nil : $0 },
                            parentEntity: element.attribute("parentEntity").flatMap { $0.isEmpty ? nil : $0 },
                            isAbstract: element.attribute("isAbstract") == "YES",
                            codeGenerationType: element.attribute("codeGenerationType"))
        for child in element.children {
            switch child.name {
            case "attribute":
                guard let attributeName = child.attribute("name"), !attributeName.isEmpty else {
                    throw fail(child, "<attribute> in entity \(name)", "the attribute has no name")
                }
                let typeName = child.attribute("attributeType") ?? "Undefined"
                guard let type = AttributeType(rawValue: typeName) else {
                    let known = AttributeType.allCases.map(\.rawValue).joined(separator: ", ")
                    throw fail(child, "<attribute name=\"\(attributeName)\"> in entity \(name)",
                               "unknown attributeType \"\(typeName)\" (known: \(known))")
                }
                entity.attributes.append(Attribute(
                    name: attributeName, type: type, usesScalarValueType: child.attribute("usesScalarValueType") == "YES",
                    customClassName: child.attribute("customClassName").flatMap { $0.isEmpty ? nil : $0 }))
            case "relationship":
                guard let relationshipName = child.attribute("name"), !relationshipName.isEmpty else {
                    throw fail(child, "<relationship> in entity \(name)", "the relationship has no name")
                }
                guard let destination = child.attribute("destinationEntity"), !destination.isEmpty else {
                    throw fail(child, "<relationship name=\"\(relationshipName)\"> in entity \(name)", "the relationship has no destinationEntity")
                }
                entity.relationships.append(Relationship(
                    name: relationshipName, destinationEntity: destination,
                    isToMany: child.attribute("toMany") == "YES", isOrdered: child.attribute("ordered") == "YES"))
            default:
                continue
            }
        }
        return entity
    }

    /// The current version's folder name in a `.xcdatamodeld`.
    private static func currentVersion(of url: URL) throws(ModelClassGenerationError) -> String {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: url.path).filter({ $0.hasSuffix(".xcdatamodel") }),
              !names.isEmpty else {
            throw ModelClassGenerationError(file: url, reason: "the folder holds no .xcdatamodel version")
        }
        let file = url.appendingPathComponent(".xccurrentversion")
        guard let data = FileManager.default.contents(atPath: file.path) else {
            if names.count == 1 { return names[0] }
            let own = url.deletingPathExtension().lastPathComponent + ".xcdatamodel"
            if names.contains(own) { return own }
            throw ModelClassGenerationError(file: url, reason: "no .xccurrentversion file says which of the \(names.count) versions is current")
        }
        let name: String?
        if data.starts(with: Array("bplist".utf8)) {
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
            name = plist?["_XCCurrentVersionName"] as? String
        } else {
            let root: ModelXMLElement
            do {
                root = try ModelXMLParser.parse(data)
            } catch {
                throw ModelClassGenerationError(file: file, line: error.line, column: error.column, reason: error.message)
            }
            let entries = root.children.first?.children ?? []
            name = entries.indices.first { entries[$0].name == "key" && entries[$0].text == "_XCCurrentVersionName" }
                .flatMap { $0 + 1 < entries.count && entries[$0 + 1].name == "string" ? entries[$0 + 1].text : nil }
        }
        guard let name, !name.isEmpty else {
            throw ModelClassGenerationError(file: file, reason: "no _XCCurrentVersionName string")
        }
        guard names.contains(name) else {
            throw ModelClassGenerationError(file: file, reason: "the current version \(name) is not in the folder")
        }
        return name
    }
}
