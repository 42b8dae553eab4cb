import Foundation
import OpenCoreDataModelXML

/// The objects of an Xcode mapping model file (`Name.xcmappingmodel/xcmapping.xml`): Xcode saves the
/// mapping editor's document as a Core Data XML store, a `<database>` of `<object type="XDDEV…" id="…">`
/// elements, each with `<attribute name="…" type="…">value</attribute>` and
/// `<relationship name="…" idrefs="id id…">` children.
struct MappingModelDatabase {
    /// One `<object>`: its type (`XDDEVMAPPINGMODEL`, `XDDEVENTITYMAPPING`, `XDDEVATTRIBUTEMAPPING`,
    /// `XDDEVRELATIONSHIPMAPPING`), its attributes' text and its relationships' object ids, in file order.
    struct Object {
        let type: String
        let id: String
        let element: ModelXMLElement
        var attributes: [String: ModelXMLElement] = [:]
        var relationships: [String: [String]] = [:]

        /// An attribute's text, `nil` when the object does not have it.
        func string(_ name: String) -> String? { attributes[name]?.text }

        /// A `bool` attribute (`1` or `0`); `nil` when absent.
        func bool(_ name: String) -> Bool? { string(name).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) == "1" } }

        /// Where the object is, for errors: `<object type="XDDEVENTITYMAPPING" id="z105">`.
        var label: String { "<object type=\"\(type)\" id=\"\(id)\">" }
    }

    let file: URL
    let objects: [String: Object]

    /// Parses the file's XML. Not XML, or not a `<database>` of objects, is an error naming the place.
    init(_ data: Data, file: URL) throws(ModelFileError) {
        self.file = file
        let root: ModelXMLElement
        do {
            root = try ModelXMLParser.parse(data)
        } catch {
            throw ModelFileError(file: file, line: error.line, column: error.column, reason: error.message)
        }
        guard root.name == "database" else {
            throw ModelFileError(file: file, line: root.line, column: root.column, element: "<\(root.name)>",
                                 reason: "not a mapping model: expected the <database> Xcode saves in xcmapping.xml")
        }
        var objects: [String: Object] = [:]
        for element in root.children where element.name == "object" {
            let object = try Self.object(element, file: file)
            guard objects.updateValue(object, forKey: object.id) == nil else {
                throw ModelFileError(file: file, line: element.line, column: element.column, element: object.label, reason: "a second object with this id")
            }
        }
        self.objects = objects
    }

    private static func object(_ element: ModelXMLElement, file: URL) throws(ModelFileError) -> Object {
        guard let type = element.attribute("type"), let id = element.attribute("id") else {
            throw ModelFileError(file: file, line: element.line, column: element.column, element: "<object>", reason: "an object needs a type and an id")
        }
        var object = Object(type: type, id: id, element: element)
        for child in element.children {
            guard let name = child.attribute("name") else { continue }
            switch child.name {
            case "attribute": object.attributes[name] = child
            case "relationship": object.relationships[name] = (child.attribute("idrefs") ?? "").split(separator: " ").map(String.init)
            default: break
            }
        }
        return object
    }

    /// The objects of a type, in id order.
    func objects(ofType type: String) -> [Object] {
        objects.values.filter { $0.type == type }.sorted { $0.id.compare($1.id, options: .numeric) == .orderedAscending }
    }

    /// The objects a relationship of `object` names, each of `type`; an id naming no such object is an error.
    func related(_ object: Object, _ relationship: String, type: String) throws(ModelFileError) -> [Object] {
        var related: [Object] = []
        for id in object.relationships[relationship] ?? [] {
            guard let target = objects[id], target.type == type else {
                throw ModelFileError(file: file, line: object.element.line, column: object.element.column, element: object.label,
                                     reason: "its \(relationship) name \(id), which is not an \(type) object of the file")
            }
            related.append(target)
        }
        return related
    }

    /// A `binary` attribute's bytes (base64 text, line breaks and tabs allowed); `nil` when absent.
    func data(_ object: Object, _ name: String) throws(ModelFileError) -> Data? {
        guard let attribute = object.attributes[name] else { return nil }
        let text = attribute.text.filter { !$0.isWhitespace }
        guard let data = Data(base64Encoded: text) else {
            throw ModelFileError(file: file, line: attribute.line, column: attribute.column, element: "\(name) of \(object.label)",
                                 reason: "not base64 data")
        }
        return data
    }

    /// An error about an attribute of an object (or the object, when it lacks the attribute).
    func error(_ object: Object, _ attribute: String, _ reason: String) -> ModelFileError {
        let element = object.attributes[attribute] ?? object.element
        return ModelFileError(file: file, line: element.line, column: element.column, element: "\(attribute) of \(object.label)", reason: reason)
    }
}
