import Foundation

/// Where a composite attribute lives in an entity's storage: the slot of the composite itself (which
/// holds ``CompositeLayout/marker``, never a value) and the slots of its leaf elements (each a
/// ``CompositeElementAttribute`` with a column of its own), as the tree its elements make.
struct CompositeLayout {
    let slot: Int
    let attribute: NSCompositeAttributeDescription
    let tree: CompositeTree

    /// What a composite's slot holds: reading it (``NSManagedObject/value(at:)``) makes the composite's
    /// value from its elements' slots instead.
    static let marker = Value.object(AnyHashable(CompositeSlotMarker()))

    /// The composite's value read from `values` (an object's, a snapshot, a row): its dictionary, or
    /// `.null` when every element is nil.
    func value(in values: [Value]) -> Value {
        tree.dictionary(values).map { .object(AnyHashable(CompositeValue(dictionary: $0))) } ?? .null
    }
}

/// The contents of a composite's slot (see ``CompositeLayout/marker``).
struct CompositeSlotMarker: Hashable {}

/// A composite's elements by name: a leaf's slot, or a nested composite's own tree.
struct CompositeTree {
    enum Node {
        case leaf(slot: Int)
        indirect case nested(NSCompositeAttributeDescription, CompositeTree)
    }

    let elements: [(name: String, node: Node)]

    /// The tree of `composite`, whose leaves are in `slotByName` under their key paths (`prefix` + `.` + name).
    init(_ composite: NSCompositeAttributeDescription, prefix: String, slotByName: [String: Int], depth: Int = 0) {
        elements = depth >= CompositeLimits.depth ? [] : composite.elements.compactMap { element in
            let path = prefix + "." + element.name
            if let nested = element as? NSCompositeAttributeDescription {
                return (element.name, .nested(nested, CompositeTree(nested, prefix: path, slotByName: slotByName, depth: depth + 1)))
            }
            return slotByName[path].map { (element.name, .leaf(slot: $0)) }
        }
    }

    /// Every leaf slot, in element order.
    var leafSlots: [Int] {
        elements.flatMap { element -> [Int] in
            switch element.node {
            case .leaf(let slot): return [slot]
            case .nested(_, let tree): return tree.leafSlots
            }
        }
    }

    /// The dictionary of the non-nil elements in `values`, nested composites as dictionaries; `nil`
    /// when every element is nil.
    func dictionary(_ values: [Value]) -> [String: Any]? {
        var result: [String: Any] = [:]
        for (name, node) in elements {
            switch node {
            case .leaf(let slot):
                guard slot < values.count, let value = values[slot].anyValue else { continue }
                result[name] = value
            case .nested(_, let tree):
                if let nested = tree.dictionary(values) { result[name] = nested }
            }
        }
        return result.isEmpty ? nil : result
    }

    /// The value each leaf gets from a value given for the composite (`setValue(_:forKey:)`): a
    /// dictionary keyed by element names (a missing key is nil), or nil for all. Throws for anything
    /// else, or a key that names no element.
    func leafValues(of given: Any?, keyPath: String) throws -> [(slot: Int, value: Any?)] {
        let unwrapped = given.flatMap(flattenOptional).flatMap { $0 is NSNull ? nil : $0 }
        guard let unwrapped else {
            return leafSlots.map { ($0, nil) }
        }
        guard let dictionary = Self.stringKeyed(unwrapped) else {
            throw CoreDataError(NSManagedObjectValidationError,
                                "the value of the composite attribute \(keyPath) must be a dictionary of its elements' values ([String: Any]), not \(type(of: unwrapped))",
                                userInfo: [NSValidationKeyErrorKey: keyPath])
        }
        let names = Set(elements.map(\.name))
        if let unknown = dictionary.keys.sorted().first(where: { !names.contains($0) }) {
            throw CoreDataError(NSManagedObjectValidationError,
                                "the composite attribute \(keyPath) has no element \"\(unknown)\" (its elements: \(elements.map(\.name).joined(separator: ", ")))",
                                userInfo: [NSValidationKeyErrorKey: keyPath])
        }
        var result: [(slot: Int, value: Any?)] = []
        for (name, node) in elements {
            switch node {
            case .leaf(let slot): result.append((slot, dictionary[name]))
            case .nested(_, let tree): result += try tree.leafValues(of: dictionary[name], keyPath: keyPath + "." + name)
            }
        }
        return result
    }

    /// A dictionary with string keys, from the forms a caller may hand one over in.
    private static func stringKeyed(_ value: Any) -> [String: Any]? {
        if let d = value as? [String: Any] { return d }
        if let d = value as? NSDictionary {
            var result: [String: Any] = [:]
            for (key, element) in d {
                guard let key = key as? String else { return nil }
                result[key] = element
            }
            return result
        }
        if let d = value as? [AnyHashable: Any] {
            var result: [String: Any] = [:]
            for (key, element) in d {
                guard let key = key.base as? String else { return nil }
                result[key] = element
            }
            return result
        }
        return nil
    }
}

/// A composite's value as a ``Value``: the dictionary, compared as `NSDictionary` compares.
struct CompositeValue: OpaqueValueBox, @unchecked Sendable {
    let dictionary: [String: Any]
    var boxedValue: Any { dictionary }

    static func == (a: CompositeValue, b: CompositeValue) -> Bool {
        NSDictionary(dictionary: a.dictionary).isEqual(NSDictionary(dictionary: b.dictionary))
    }

    func hash(into hasher: inout Hasher) { hasher.combine(dictionary.keys.sorted()) }
}
