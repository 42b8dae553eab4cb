import Foundation

/// Composite attributes when a model is frozen: the checks of their elements, and the flattening of
/// each composite into leaf attributes (``CompositeElementAttribute``) that have slots and columns of
/// their own.
extension NSManagedObjectModel {
    /// An entity's properties as its storage sees them: each composite followed by its leaves.
    static func storageProperties(of e: NSEntityDescription) -> [NSPropertyDescription] {
        e.properties.flatMap { p -> [NSPropertyDescription] in
            guard let c = p as? NSCompositeAttributeDescription else { return [p] }
            return [c] + c.flattened
        }
    }

    /// The first composite attribute of the model, if any (atomic and incremental stores refuse them).
    var firstCompositeAttribute: (entity: String, attribute: String)? {
        for e in entities {
            if let c = e.properties.first(where: { ($0 as? NSAttributeDescription)?.attributeType == .compositeAttributeType }) {
                return (e.name ?? "?", c.name)
            }
        }
        return nil
    }

    /// Makes the leaves of every composite an entity declares (once per model: a frozen model keeps them).
    func flattenComposites() {
        for e in entities {
            for case let c as NSCompositeAttributeDescription in e.properties where c.entity === e {
                c.flattened = c.leaves().map { CompositeElementAttribute(composite: c, path: $0.path, element: $0.element) }
            }
        }
    }

    /// The checks of an attribute of type composite (`fail` makes the error): an
    /// ``NSCompositeAttributeDescription`` that is not transient, with elements (nested composites
    /// checked the same way) whose names are identifiers that differ in more than case, of types a
    /// composite can hold, with default values of their types. `columns` holds the entity's columns
    /// so far; the leaves' columns are added, and one that another property already has is an error.
    static func checkComposite(_ a: NSAttributeDescription, entityName: String, columns: inout [String: String],
                               fail: (String) -> CoreDataError) throws {
        guard let c = a as? NSCompositeAttributeDescription else {
            throw fail("entity \(entityName): attribute \(a.name) is of type Composite but is not an NSCompositeAttributeDescription (make one and set its elements)")
        }
        guard c.attributeType == .compositeAttributeType else {
            throw fail("entity \(entityName): composite attribute \(a.name) has the attributeType \(c.attributeType.name); a composite's type is compositeAttributeType")
        }
        if c.isTransient {
            throw fail("entity \(entityName): composite attribute \(a.name) is transient; composite attributes are stored (their elements have columns)")
        }
        try checkElements(of: c, path: c.name, entityName: entityName, depth: 0, fail: fail)
        for leaf in c.leaves() {
            let keyPath = ([c.name] + leaf.path).joined(separator: ".")
            let column = ModelNameRules.columnName(forAttributeNamed: ([c.name] + leaf.path).joined(separator: "_"))
            if let other = columns.updateValue(keyPath, forKey: column) {
                throw fail("entity \(entityName): the composite element \(keyPath) and \(other) would both be stored in the SQLite column \(column)")
            }
        }
    }

    private static func checkElements(of c: NSCompositeAttributeDescription, path: String, entityName: String, depth: Int,
                                      fail: (String) -> CoreDataError) throws {
        let place = "entity \(entityName): composite attribute \(path)"
        guard depth < CompositeLimits.depth else {
            throw fail("\(place) nests composites more than \(CompositeLimits.depth) deep (or contains itself)")
        }
        guard !c.elements.isEmpty else { throw fail("\(place) has no elements") }
        var names: [String: String] = [:]
        for element in c.elements {
            guard ModelNameRules.isIdentifier(element.name) else {
                throw fail("\(place): the element name \"\(element.name)\" is not a valid identifier (\(ModelNameRules.identifierRule))")
            }
            if let other = names.updateValue(element.name, forKey: element.name.lowercased()) {
                guard other != element.name else { throw fail("\(place) has two elements named \(element.name)") }
                throw fail("\(place): the elements \"\(other)\" and \"\(element.name)\" differ only in case; both would be the same SQLite column")
            }
            let elementPlace = "\(place): element \(element.name)"
            if element is NSDerivedAttributeDescription { throw fail("\(elementPlace) is a derived attribute, which a composite cannot hold") }
            if element.isTransient { throw fail("\(elementPlace) is transient; a composite's elements are stored") }
            if let nested = element as? NSCompositeAttributeDescription {
                try checkElements(of: nested, path: path + "." + element.name, entityName: entityName, depth: depth + 1, fail: fail)
                continue
            }
            switch element.attributeType {
            case .undefinedAttributeType, .objectIDAttributeType:
                throw fail("\(elementPlace) is of type \(element.attributeType.name), which a composite cannot hold (Core Data's rule)")
            case .compositeAttributeType:
                throw fail("\(elementPlace) is of type Composite but is not an NSCompositeAttributeDescription")
            case .binaryDataAttributeType where element.allowsExternalBinaryDataStorage:
                throw fail("\(elementPlace) allows external binary data storage, which a composite's element cannot (Core Data's rule)")
            default: break
            }
            if let d = element.defaultValue, element.attributeType.coerce(Value(any: d)) == nil {
                throw fail("\(elementPlace): the default value is not a \(element.attributeType.name)")
            }
        }
    }

    /// A composite's part of the model's signature (``versionHash``): its leaves' key paths, types and
    /// optionality, so that a store whose columns were made for other elements is not opened.
    static func compositeSignature(_ c: NSCompositeAttributeDescription) -> String {
        "{" + c.leaves().map { leaf in
            "\(leaf.path.joined(separator: ".")):\(leaf.element.attributeType.rawValue):\(leaf.element.isOptional ? 1 : 0)"
        }.joined(separator: ",") + "}"
    }
}
