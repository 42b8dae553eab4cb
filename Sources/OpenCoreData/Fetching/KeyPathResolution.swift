import Foundation

/// Where a key path appears in a fetch request. It decides what a key path may reach (a transient
/// property is fine for a section name, not for SQL) and how errors name the place.
enum KeyPathUse {
    case predicate, sortDescriptor, sectionNameKeyPath, propertiesToFetch, propertiesToGroupBy
    /// The key path of a derived attribute's `derivationExpression`, which the store computes.
    case derivation

    /// Appended to "keypath … not found in entity …".
    var placeSuffix: String {
        switch self {
        case .predicate: return ""
        case .sortDescriptor: return " (sort descriptor)"
        case .sectionNameKeyPath: return " (sectionNameKeyPath)"
        case .propertiesToFetch: return " (propertiesToFetch)"
        case .propertiesToGroupBy: return " (propertiesToGroupBy)"
        case .derivation: return " (derivationExpression)"
        }
    }

    /// What a transient property cannot do here ("cannot be used in a fetch predicate").
    var transientRefusal: String {
        switch self {
        case .predicate: return "cannot be used in a fetch predicate"
        case .sortDescriptor: return "cannot be used in a sort descriptor of a fetch"
        case .sectionNameKeyPath: return ""
        case .propertiesToFetch: return "cannot be fetched into a dictionary"
        case .propertiesToGroupBy: return "cannot be used in propertiesToGroupBy"
        case .derivation: return "cannot be the source of a derived attribute"
        }
    }

    /// Section names are computed in memory, from the objects: a transient property is fine there.
    var allowsTransient: Bool { self == .sectionNameKeyPath }
}

/// `@sum`, `@avg`, `@min`, `@max` of a to-many key path (`animals.@max.weight`).
enum KeyPathAggregate: String {
    case sum = "@sum", avg = "@avg", min = "@min", max = "@max"

    /// The evaluator's function of the same meaning (`sum:`, …).
    var functionName: String {
        switch self {
        case .sum: return "sum:"
        case .avg: return "average:"
        case .min: return "min:"
        case .max: return "max:"
        }
    }
}

/// A key that Foundation's key-value coding answers on a string attribute's value (`name.length`), which
/// a fetch predicate may apply to the attribute: `length` counts UTF-16 units, as `NSString`'s does.
enum StringValueKey: String {
    case length, uppercaseString, lowercaseString
}

/// A key path resolved against the model: the relationships it crosses (hops) and what it reads at the
/// end. `classification.order` is one to-one hop and the attribute `order` of `Classification`;
/// `zoos.@count` is one to-many hop and its count; `classification` alone is one hop ending at the object.
package struct ResolvedKeyPath {
    /// One relationship crossed.
    struct Hop {
        let name: String
        let relationship: RelationshipLayout
        var isToMany: Bool { relationship.isToMany }
        var destination: NSEntityDescription { relationship.destination }
    }

    /// What the key path reads once the hops are crossed.
    enum Terminal {
        /// The object the hops reach (the evaluated object itself when there are none).
        case object
        /// An attribute of the entity the hops reach; `column` is `nil` for a transient one.
        case attribute(slot: Int, type: NSAttributeType, column: String?)
        /// `@count` of the last hop, a to-many relationship.
        case count
        /// `@sum`/`@avg`/`@min`/`@max` over the last hop (a to-many) of a single-valued key path of its
        /// destination.
        indirect case aggregate(KeyPathAggregate, ResolvedKeyPath)
    }

    /// The key path as written.
    let text: String
    let hops: [Hop]
    let terminal: Terminal
    /// A Foundation key read from the terminal string attribute's value (`name.length`), in predicates.
    var valueKey: StringValueKey? = nil

    /// True when the key path gives one value per object: every hop is to-one, except the last when
    /// `@count` or an aggregate consumes it.
    var isSingleValued: Bool { fanOut == nil }

    /// The index of the first to-many hop that no collection operator consumes.
    var fanOut: Int? {
        hops.indices.first { i in
            guard hops[i].isToMany else { return false }
            if i == hops.count - 1 {
                switch terminal {
                case .count, .aggregate: return false
                case .object, .attribute: return true
                }
            }
            return true
        }
    }

    /// The hierarchies (root entity numbers) whose rows the key path reads, its aggregate's included.
    var relatedRoots: Set<Int> {
        var roots = Set(hops.map { $0.destination.layout.rootEntityID })
        if case .aggregate(_, let inner) = terminal { roots.formUnion(inner.relatedRoots) }
        return roots
    }

    /// The type of the value read, when it is an attribute (directly or through an aggregate).
    var attributeType: NSAttributeType? {
        switch terminal {
        case .attribute(_, let type, _):
            guard let valueKey else { return type }
            return valueKey == .length ? .integer64AttributeType : .stringAttributeType
        case .count: return .integer64AttributeType
        case .aggregate(let f, let inner): return f == .avg ? .doubleAttributeType : inner.attributeType
        case .object: return nil
        }
    }
}

/// A key path used as a collection (`ANY zoos.name`, `%@ IN zoos`, `SUBQUERY(zoos, …)`): to-one hops
/// to the owner, the one to-many relationship whose objects are the elements, and a single-valued key
/// path read from each element.
struct CollectionKeyPath {
    let text: String
    let owner: [ResolvedKeyPath.Hop]
    let toMany: ResolvedKeyPath.Hop
    let element: ResolvedKeyPath
}

/// Resolves key paths against the model, for one use in one fetch. Every error names the entity the
/// key path starts from and, when it fails further on, the entity and key where it failed.
struct KeyPathResolver {
    let use: KeyPathUse

    /// Every hop and the terminal of `text`, read from objects of `entity` (named `entityName`), without
    /// judging how many values it gives.
    func resolve(_ text: String, from entity: EntityLayout, named entityName: String) throws -> ResolvedKeyPath {
        let components = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        return try resolve(components[...], text: text, from: entity, named: entityName, base: entityName)
    }

    private func resolve(_ components: ArraySlice<String>, text: String, from start: EntityLayout, named startName: String,
                         base: String) throws -> ResolvedKeyPath {
        var hops: [ResolvedKeyPath.Hop] = []
        var layout = start
        var entityName = startName
        var index = components.startIndex
        func notFound(_ detail: String?) -> CoreDataError {
            CoreDataError(NSCoreDataError, "keypath \(text) not found in entity \(base)\(use.placeSuffix)" + (detail.map { ": " + $0 } ?? ""),
                          userInfo: [NSValidationKeyErrorKey: text])
        }
        while index < components.endIndex {
            let key = components[index]
            var isLast = index == components.endIndex - 1
            if key.hasPrefix("@") {
                guard let last = hops.last, last.isToMany, index > components.startIndex, components[index - 1] == last.name else {
                    throw unsupported(text, base, "\(key) must follow a to-many relationship")
                }
                if key == "@count" {
                    guard isLast else { throw unsupported(text, base, "nothing may follow @count") }
                    return ResolvedKeyPath(text: text, hops: hops, terminal: .count)
                }
                guard let aggregate = KeyPathAggregate(rawValue: key) else {
                    throw unsupported(text, base, "the collection operator \(key)")
                }
                guard !isLast else { throw unsupported(text, base, "\(key) needs a key path after it (\(key).weight)") }
                let inner = try resolve(components[(index + 1)...], text: components[(index + 1)...].joined(separator: "."),
                                        from: layout, named: entityName, base: entityName)
                guard inner.isSingleValued else { throw toManyNotAllowed(text, base) }
                try Self.check(aggregate, of: inner, text: text, base: base)
                return ResolvedKeyPath(text: text, hops: hops, terminal: .aggregate(aggregate, inner))
            }
            guard var slot = layout.slotByName[key] else {
                // The object's own properties (`isDeleted`, `entity.name`) are read in memory only.
                if let refusal = ManagedObjectOwnKey.sqlRefusal(key, keyPath: text, entityName: base) { throw refusal }
                throw notFound(index == components.startIndex ? nil : "entity \(entityName) has no property \(key)")
            }
            // A composite is read through its elements (`address.city`), each a column of its own.
            if case .attribute(.compositeAttributeType) = layout.kinds[slot] {
                (slot, index) = try compositeElement(components, at: index, in: layout, entityName: entityName, text: text)
                isLast = index == components.endIndex - 1
            }
            let property = layout.properties[slot]
            if property is NSFetchedPropertyDescription {
                throw CoreDataError(NSCoreDataError, "fetched property \(key) of entity \(entityName) cannot be used in a fetch (its value is no column: read it on the object)",
                                    userInfo: [NSValidationKeyErrorKey: text])
            }
            if property.isTransient, !use.allowsTransient {
                let keyPath = index == components.startIndex ? "" : " (keypath \(text))"
                throw CoreDataError(NSCoreDataError, "transient property \(key) of entity \(entityName)\(keyPath) \(use.transientRefusal)",
                                    userInfo: [NSValidationKeyErrorKey: text])
            }
            switch layout.kinds[slot] {
            case .attribute(let type):
                let terminal = ResolvedKeyPath.Terminal.attribute(slot: slot, type: type, column: layout.columns[slot])
                if isLast { return ResolvedKeyPath(text: text, hops: hops, terminal: terminal) }
                // `name.length`: Foundation's keys of a string, in predicates (SQL and memory agree).
                if use == .predicate, type == .stringAttributeType, index + 2 == components.endIndex,
                   let valueKey = StringValueKey(rawValue: components[index + 1]) {
                    return ResolvedKeyPath(text: text, hops: hops, terminal: terminal, valueKey: valueKey)
                }
                throw notFound("\(key) is an attribute of entity \(entityName), not a relationship")
            case .toOne(let r), .toMany(let r):
                hops.append(ResolvedKeyPath.Hop(name: key, relationship: r))
                layout = r.destination.layout
                entityName = r.destination.name ?? "?"
            }
            index += 1
        }
        guard !hops.isEmpty else { throw notFound(nil) }
        return ResolvedKeyPath(text: text, hops: hops, terminal: .object)
    }

    /// The slot of the composite element a key path names from `index` (`address.geo.latitude`: the
    /// composite `address`, then element names down to a leaf), and the index of the leaf's name.
    private func compositeElement(_ components: ArraySlice<String>, at index: Int, in layout: EntityLayout, entityName: String,
                                  text: String) throws -> (slot: Int, index: Int) {
        var name = components[index]
        for end in (index + 1)..<components.endIndex {
            name += "." + components[end]
            if let slot = layout.slotByName[name], layout.properties[slot] is CompositeElementAttribute { return (slot, end) }
        }
        let composite = layout.properties[layout.slotByName[components[index]]!] as? NSCompositeAttributeDescription
        let elements = composite?.leaves().map { ([components[index]] + $0.path).joined(separator: ".") } ?? []
        let reason = index + 1 == components.endIndex
            ? "composite attribute \(components[index]) of entity \(entityName) cannot be used whole here; use its elements' key paths (\(elements.joined(separator: ", ")))"
            : "composite attribute \(components[index]) of entity \(entityName) has no element \(components[(index + 1)...].joined(separator: ".")) (its elements: \(elements.joined(separator: ", ")))"
        throw CoreDataError(NSCoreDataError, "keypath \(text) not found in entity \(entityName)\(use.placeSuffix): \(reason)",
                            userInfo: [NSValidationKeyErrorKey: text])
    }

    /// A key path that must give one value per object: to-many relationships only under `@count` or an
    /// aggregate; otherwise Core Data's "to-many key not allowed here".
    func single(_ text: String, from entity: EntityLayout, named entityName: String) throws -> ResolvedKeyPath {
        try single(resolve(text, from: entity, named: entityName), entityName: entityName)
    }

    /// `path` if it gives one value per object, else Core Data's "to-many key not allowed here".
    func single(_ path: ResolvedKeyPath, entityName: String) throws -> ResolvedKeyPath {
        guard path.isSingleValued else { throw toManyNotAllowed(path.text, entityName) }
        return path
    }

    /// The collection form of a resolved key path (`nil` when it gives one value).
    func collection(_ path: ResolvedKeyPath, entityName: String) throws -> CollectionKeyPath? {
        guard let k = path.fanOut else { return nil }
        let rest = path.text.split(separator: ".", omittingEmptySubsequences: false).dropFirst(k + 1).joined(separator: ".")
        let element = ResolvedKeyPath(text: rest, hops: Array(path.hops[(k + 1)...]), terminal: path.terminal,
                                      valueKey: path.valueKey)
        guard element.isSingleValued else {
            throw toManyNotAllowed(path.text, entityName, detail: "a key path may cross one to-many relationship outside @count and the aggregates; use SUBQUERY to go further")
        }
        return CollectionKeyPath(text: path.text, owner: Array(path.hops[..<k]), toMany: path.hops[k], element: element)
    }

    /// Core Data's error for a to-many key path where one value is needed.
    func toManyNotAllowed(_ text: String, _ entityName: String, detail: String? = nil) -> CoreDataError {
        let hint = detail ?? (use == .predicate ? "use ANY, ALL, NONE, @count, an aggregate or SUBQUERY" : "a to-many relationship gives many values")
        return CoreDataError(NSCoreDataError, "to-many key not allowed here: keypath \(text) in entity \(entityName)\(use.placeSuffix) (\(hint))",
                             userInfo: [NSValidationKeyErrorKey: text])
    }

    private func unsupported(_ text: String, _ entityName: String, _ why: String) -> CoreDataError {
        CoreDataError(NSCoreDataError, "unsupported keypath \(text) in entity \(entityName)\(use.placeSuffix): \(why)",
                      userInfo: [NSValidationKeyErrorKey: text])
    }

    /// `@sum`/`@avg` need numbers; `@min`/`@max` numbers, dates or strings.
    private static func check(_ aggregate: KeyPathAggregate, of inner: ResolvedKeyPath, text: String, base: String) throws {
        let kind = inner.attributeType?.valueKind
        let allowed: [ValueKind] = aggregate == .sum || aggregate == .avg ? [.number] : [.number, .date, .string]
        guard let kind, allowed.contains(kind) else {
            throw CoreDataError(NSCoreDataError, "unsupported keypath \(text) in entity \(base): \(aggregate.rawValue) of \(inner.text), which is not \(aggregate == .sum || aggregate == .avg ? "a number" : "a number, date or string")",
                                userInfo: [NSValidationKeyErrorKey: text])
        }
    }
}
