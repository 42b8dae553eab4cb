import Foundation

/// Mirrors Core Data's `NSCompositeAttributeDescription` (iOS 17, macOS 14): an attribute made of other
/// attributes, its ``elements``, whose value is a dictionary keyed by the elements' names
/// (`value(forKey: "address")` → `["street": …, "city": …]`). Elements may be composites themselves.
///
///     let address = NSCompositeAttributeDescription()
///     address.name = "address"
///     address.elements = [NSAttributeDescription(name: "street", type: .stringAttributeType),
///                         NSAttributeDescription(name: "city", type: .stringAttributeType)]
///
/// As in Core Data, each element is stored in a column of its own (SQLite stores only), so predicates
/// and sort descriptors reach an element by its namespaced key path (`address.city == "Paris"`), in a
/// fetch and in memory alike. Each element's rules apply (required, minimum, maximum, pattern) when the
/// composite has a value or is required itself. docs/ModelFiles.md ("Composite attributes") gives the
/// columns' names, the model file's form and what could not be confirmed against Core Data.
open class NSCompositeAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    /// Mirrors `elements`: the composed attribute descriptions, in order. Their names must differ (in
    /// more than case); a composite needs at least one. Checked when a coordinator loads the model.
    public var elements: [NSAttributeDescription] = []
    /// The composite's type name in a model file (Xcode's `<composite name="…">`, which an attribute
    /// names with `composite="…"`); `nil` for a composite made in code (the writer then names it).
    var compositeTypeName: String?
    /// The leaves of the elements tree, flattened: set when the model is frozen (see
    /// ``CompositeElementAttribute``).
    var flattened: [CompositeElementAttribute] = []

    /// Mirrors `init()`: a composite attribute with no elements; ``NSAttributeDescription/attributeType`` is
    /// `.compositeAttributeType`.
    public override init() {
        super.init()
        attributeType = .compositeAttributeType
    }

    /// Mirrors `init(coder:)` (`NSSecureCoding`): also the elements (`NSCompositeElements`).
    public required init?(coder: NSCoder) {
        super.init(coder: coder)
        guard decodeComposite(from: coder) else { return nil }
    }

    /// Mirrors `encode(with:)` (`NSCoding`): also the elements (`NSCompositeElements`).
    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(elements as NSArray, forKey: "NSCompositeElements")
    }

    /// Mirrors `defaultValue`: a composite's default is made of its elements' defaults (a dictionary of
    /// those that have one, nested composites included), `nil` when none has one. Setting it has no
    /// effect: set the elements' defaults.
    public override var defaultValue: Any? {
        get { Self.defaults(of: elements, depth: 0) }
        set {}
    }

    private static func defaults(of elements: [NSAttributeDescription], depth: Int) -> [String: Any]? {
        guard depth < CompositeLimits.depth else { return nil }
        var result: [String: Any] = [:]
        for element in elements {
            let value = (element as? NSCompositeAttributeDescription).map { defaults(of: $0.elements, depth: depth + 1) as Any? } ?? element.defaultValue
            if let value = value.flatMap(flattenOptional) { result[element.name] = value }
        }
        return result.isEmpty ? nil : result
    }

    public override var description: String {
        "(\(name), Composite, \(isOptional ? "optional" : "required"), elements \(elements))"
    }
}

enum CompositeLimits {
    /// How deep composites may nest (a deeper nesting, or a composite that contains itself, is a model error).
    static let depth = 32
}

/// Not in Core Data: the description of one leaf element of a composite as an entity's storage sees it
/// — a slot and a SQLite column of its own, named by its key path (`address.city`, nested
/// `address.geo.latitude`) — so that rows, SQL, validation and change tracking treat it as a plain
/// attribute. Made when the model is frozen, from the element's settings.
final class CompositeElementAttribute: NSAttributeDescription, @unchecked Sendable {
    /// The composite attribute of the entity this leaf belongs to.
    unowned let composite: NSCompositeAttributeDescription
    /// The element names from the composite down to the leaf (`["geo", "latitude"]`).
    let path: [String]
    /// The element description it was made from.
    let element: NSAttributeDescription

    init(composite: NSCompositeAttributeDescription, path: [String], element: NSAttributeDescription) {
        self.composite = composite
        self.path = path
        self.element = element
        super.init()
        name = ([composite.name] + path).joined(separator: ".")
        attributeType = element.attributeType
        isOptional = element.isOptional
        defaultValue = element.defaultValue
        valueTransformerName = element.valueTransformerName
        customClassName = element.customClassName
        isIndexed = element.isIndexed
        setValidation(from: element)
        entity = composite.entity
    }

    /// Never archived: a leaf is made when the model is frozen.
    required init?(coder: NSCoder) { nil }

    /// `ZADDRESS_CITY`: `Z`, then the composite's and the elements' names joined by `_`, upper-cased.
    var columnBaseName: String { ([composite.name] + path).joined(separator: "_") }
}

extension NSCompositeAttributeDescription {
    /// Every leaf of the elements tree with its path of element names, depth first, in element order.
    func leaves(depth: Int = 0, prefix: [String] = []) -> [(path: [String], element: NSAttributeDescription)] {
        guard depth < CompositeLimits.depth else { return [] }
        return elements.flatMap { element -> [(path: [String], element: NSAttributeDescription)] in
            if let nested = element as? NSCompositeAttributeDescription {
                return nested.leaves(depth: depth + 1, prefix: prefix + [element.name])
            }
            return [(prefix + [element.name], element)]
        }
    }
}
