import Foundation

/// Writes a model as the `contents` XML of a `.xcdatamodel` folder, in the form Xcode saves, so that
/// ``ModelContentsDecoder`` reads back an equal model (the round trip is tested on random models).
///
/// Entities, properties and configurations keep the model's order; fetch request templates and
/// `userInfo` entries are sorted by name. Something the format cannot hold is an error naming the element,
/// never silently dropped.
struct ModelContentsEncoder {
    let file: URL

    func encode(_ model: NSManagedObjectModel) throws(ModelFileError) -> Data {
        var out = XMLText()
        out.line("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>")
        let identifiers = model.versionIdentifiers.map { $0.base }
        guard identifiers.count <= 1, identifiers.allSatisfy({ $0 is String }) else {
            throw fail("<model>", "versionIdentifiers must be one string at most (a model file keeps one userDefinedModelVersionIdentifier)")
        }
        try out.open("model", [
            ("type", "com.apple.IDECoreDataModeler.DataModel"), ("documentVersion", "1.0"),
            ("lastSavedToolsVersion", "1"), ("systemVersion", "OpenCoreData"), ("minimumToolsVersion", "Automatic"),
            ("sourceLanguage", "Swift"), ("userDefinedModelVersionIdentifier", identifiers.first as? String ?? ""),
        ], in: "<model>", file: file)
        let composites = CompositeTypeNames()
        for entity in model.entities { try encodeEntity(entity, model: model, composites: composites, into: &out) }
        out.text += composites.definitions(indent: out.indent)
        for name in model.fetchRequestTemplates.keys.sorted() {
            try encodeFetchRequest(model.fetchRequestTemplates[name]!, name: name, context: nil, into: &out)
        }
        for (name, entities) in model.namedConfigurations {
            let tag = "<configuration name=\"\(name)\">"
            try out.open("configuration", [("name", name)], in: tag, file: file)
            for entity in entities {
                guard let entityName = entity.name, model.entities.contains(where: { $0 === entity }) else {
                    throw fail(tag, "a member entity is not in the model")
                }
                try out.empty("memberEntity", [("name", entityName)], in: tag, file: file)
            }
            out.close("configuration")
        }
        out.close("model")
        return Data(out.text.utf8)
    }

    /// `.xccurrentversion`: the property list naming the current version's folder.
    static func currentVersionPlist(_ versionFolderName: String) -> Data {
        let escaped = XMLText.escape(versionFolderName) ?? versionFolderName
        return Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>_XCCurrentVersionName</key>
        \t<string>\(escaped)</string>
        </dict>
        </plist>

        """.utf8)
    }

    func fail(_ element: String, _ reason: String) -> ModelFileError {
        ModelFileError(file: file, element: element, reason: reason)
    }

    // MARK: Entities

    private func encodeEntity(_ entity: NSEntityDescription, model: NSManagedObjectModel, composites: CompositeTypeNames,
                              into out: inout XMLText) throws(ModelFileError) {
        guard let name = entity.name, !name.isEmpty else { throw fail("<entity>", "an entity has no name") }
        let tag = "<entity name=\"\(name)\">"
        var attributes: [(String, String)] = [("name", name)]
        if let className = entity.managedObjectClassName, className != "NSManagedObject", !className.isEmpty {
            attributes.append(("representedClassName", className))
        }
        if let parent = entity.superentity {
            guard let parentName = parent.name, model.entities.contains(where: { $0 === parent }) else {
                throw fail(tag, "the superentity is not in the model")
            }
            attributes.append(("parentEntity", parentName))
        }
        if entity.isAbstract { attributes.append(("isAbstract", "YES")) }
        if let id = entity.renamingIdentifier { attributes.append(("elementID", id)) }
        if let modifier = entity.versionHashModifier { attributes.append(("versionHashModifier", modifier)) }
        if let codegen = entity.codeGenerationType { attributes.append(("codeGenerationType", codegen)) }
        attributes.append(("syncable", "YES"))
        try out.open("entity", attributes, in: tag, file: file)
        let context = "in entity \(name)"
        for property in entity.properties where property.entity === entity {
            switch property {
            case let relationship as NSRelationshipDescription: try encodeRelationship(relationship, context, into: &out)
            case let attribute as NSAttributeDescription: try encodeAttribute(attribute, context, composites: composites, into: &out)
            case let fetched as NSFetchedPropertyDescription: try encodeFetchedProperty(fetched, context, into: &out)
            default:
                throw fail("<\(property.name)> \(context)", "a \(type(of: property)) cannot be written in a model file")
            }
        }
        for index in entity.indexes { try encodeIndex(index, context, into: &out) }
        if !entity.uniquenessConstraints.isEmpty {
            try out.open("uniquenessConstraints", [], in: tag, file: file)
            for constraint in entity.uniquenessConstraints {
                try out.open("uniquenessConstraint", [], in: tag, file: file)
                for member in constraint {
                    let memberName: String
                    switch member {
                    case let text as String: memberName = text
                    case let property as NSPropertyDescription: memberName = property.name
                    default: throw fail(tag, "a uniqueness constraint member is neither a property name nor a property")
                    }
                    try out.empty("constraint", [("value", memberName)], in: tag, file: file)
                }
                out.close("uniquenessConstraint")
            }
            out.close("uniquenessConstraints")
        }
        try encodeUserInfo(entity.userInfo, tag, into: &out)
        out.close("entity")
    }

    private func encodeUserInfo(_ info: [AnyHashable: Any]?, _ tag: String, into out: inout XMLText) throws(ModelFileError) {
        guard let info, !info.isEmpty else { return }
        var entries: [(String, String)] = []
        for (key, value) in info {
            guard let key = key.base as? String, let value = value as? String else {
                throw fail(tag, "userInfo holds a key or value that is not a string (a model file keeps strings only)")
            }
            entries.append((key, value))
        }
        try out.open("userInfo", [], in: tag, file: file)
        for (key, value) in entries.sorted(by: { $0.0 < $1.0 }) {
            try out.empty("entry", [("key", key), ("value", value)], in: tag, file: file)
        }
        out.close("userInfo")
    }

    /// The attributes every property element may carry, after `name`: optional, transient.
    private func common(_ property: NSPropertyDescription) -> [(String, String)] {
        var attributes: [(String, String)] = [("name", property.name)]
        if property.isOptional { attributes.append(("optional", "YES")) }
        if property.isTransient { attributes.append(("transient", "YES")) }
        return attributes
    }

    /// The attributes every property element may carry at its end: indexes, renaming, hash modifier.
    private func trailing(_ property: NSPropertyDescription) -> [(String, String)] {
        var attributes: [(String, String)] = []
        if property.isIndexed { attributes.append(("indexed", "YES")) }
        if property.isIndexedBySpotlight { attributes.append(("spotlightIndexingEnabled", "YES")) }
        if let id = property.renamingIdentifier { attributes.append(("elementID", id)) }
        if let modifier = property.versionHashModifier { attributes.append(("versionHashModifier", modifier)) }
        return attributes
    }

    /// An element with attributes and, when there is a `userInfo`, that child.
    private func encodeProperty(_ element: String, _ attributes: [(String, String)], _ property: NSPropertyDescription,
                                _ tag: String, children: (inout XMLText) throws(ModelFileError) -> Void = { _ in },
                                into out: inout XMLText) throws(ModelFileError) {
        let hasUserInfo = !(property.userInfo ?? [:]).isEmpty
        var hasChildren = hasUserInfo
        var inner = XMLText(indent: out.indent + 1)
        try children(&inner)
        hasChildren = hasChildren || !inner.text.isEmpty
        guard hasChildren else { return try out.empty(element, attributes, in: tag, file: file) }
        try out.open(element, attributes, in: tag, file: file)
        out.text += inner.text
        try encodeUserInfo(property.userInfo, tag, into: &out)
        out.close(element)
    }

    // MARK: Properties

    private func encodeAttribute(_ attribute: NSAttributeDescription, _ context: String, composites: CompositeTypeNames,
                                 into out: inout XMLText) throws(ModelFileError) {
        let tag = "<attribute name=\"\(attribute.name)\"> \(context)"
        let type = attribute.attributeType
        var attributes = common(attribute)
        attributes.append(("attributeType", ModelFileVocabulary.name(of: type)))
        if let composite = attribute as? NSCompositeAttributeDescription {
            attributes.append(("composite", try compositeTypeName(composite, tag, composites)))
            return try encodeProperty("attribute", attributes + trailing(attribute), attribute, tag, into: &out)
        }
        if type == .compositeAttributeType { throw fail(tag, "an attribute of type Composite must be an NSCompositeAttributeDescription") }
        let kind = ModelFileValues.boundKind(of: type)
        if !attribute.validationPredicates.isEmpty {
            let bounds: (minimum: Value?, maximum: Value?, pattern: String?)
            switch ModelFileValues.bounds(of: attribute.validationPredicates, kind: kind) {
            case .success(let found): bounds = found
            case .failure(let error):
                throw fail(tag, "the validation predicate \(error.predicate.predicateFormat) cannot be written in a model file (it keeps a minimum, a maximum and, for strings, a regular expression)")
            }
            let (minimumName, maximumName) = kind == .date ? ("minDateTimeInterval", "maxDateTimeInterval") : ("minValueString", "maxValueString")
            if let minimum = bounds.minimum { attributes.append((minimumName, Self.formatBound(minimum))) }
            if let maximum = bounds.maximum { attributes.append((maximumName, Self.formatBound(maximum))) }
            if let pattern = bounds.pattern {
                guard type == .stringAttributeType else { throw fail(tag, "a regular expression is kept for string attributes only") }
                attributes.append(("regularExpressionString", pattern))
            }
        }
        if let value = attribute.defaultValue {
            guard let coerced = type.coerce(Value(any: value)) else {
                throw fail(tag, "the default value \(value) is not a \(ModelFileVocabulary.name(of: type))")
            }
            switch coerced {
            case .null: break
            case .date(let date):
                attributes.append(("defaultDateTimeInterval", ModelFileValues.formatNumber(date.timeIntervalSinceReferenceDate)))
            default:
                let untextual: Set<NSAttributeType> = [.binaryDataAttributeType, .transformableAttributeType, .objectIDAttributeType, .undefinedAttributeType]
                guard !untextual.contains(type), let text = ModelFileValues.formatDefault(coerced) else {
                    throw fail(tag, "a default value of type \(ModelFileVocabulary.name(of: type)) cannot be written in a model file")
                }
                attributes.append(("defaultValueString", text))
            }
        }
        if attribute.usesScalarValueType { attributes.append(("usesScalarValueType", "YES")) }
        if let derived = attribute as? NSDerivedAttributeDescription {
            attributes.append(("derived", "YES"))
            if let expression = derived.derivationExpression { attributes.append(("derivationExpression", expression.description)) }
        }
        if attribute.allowsExternalBinaryDataStorage { attributes.append(("allowsExternalBinaryDataStorage", "YES")) }
        if let transformer = attribute.valueTransformerName { attributes.append(("valueTransformerName", transformer)) }
        if let className = attribute.customClassName { attributes.append(("customClassName", className)) }
        if attribute.preservesValueInHistoryOnDeletion { attributes.append(("preserveAfterDeletion", "YES")) }
        if attribute.allowsCloudEncryption { attributes.append(("allowsCloudEncryption", "YES")) }
        try encodeProperty("attribute", attributes + trailing(attribute), attribute, tag, into: &out)
    }

    /// The name of a composite's `<composite>` definition, which is written (once for equal ones) after
    /// the entities: the name it was read with, else the attribute's name capitalized (`address` →
    /// `Address`), numbered when another definition already has that name.
    private func compositeTypeName(_ composite: NSCompositeAttributeDescription, _ tag: String,
                                   _ names: CompositeTypeNames) throws(ModelFileError) -> String {
        guard names.depth < CompositeLimits.depth else { throw fail(tag, "composites nest more than \(CompositeLimits.depth) deep (or one contains itself)") }
        guard !composite.elements.isEmpty else { throw fail(tag, "the composite attribute has no elements") }
        names.depth += 1
        defer { names.depth -= 1 }
        var body = XMLText(indent: 1)
        let context = "in composite attribute \(composite.name)"
        for element in composite.elements { try encodeAttribute(element, context, composites: names, into: &body) }
        let base = composite.compositeTypeName ?? composite.name.prefix(1).uppercased() + composite.name.dropFirst()
        return names.name(base: base, body: body.text)
    }

    /// A minimum or maximum in the file's notation.
    static func formatBound(_ value: Value) -> String {
        if case .date(let date) = value { return ModelFileValues.formatNumber(date.timeIntervalSinceReferenceDate) }
        return ModelFileValues.formatDefault(value) ?? ""
    }

    private func encodeRelationship(_ relationship: NSRelationshipDescription, _ context: String, into out: inout XMLText) throws(ModelFileError) {
        let tag = "<relationship name=\"\(relationship.name)\"> \(context)"
        var attributes = common(relationship)
        if relationship.isToMany { attributes.append(("toMany", "YES")) }
        if relationship.isOrdered { attributes.append(("ordered", "YES")) }
        if relationship.minCount != 0 { attributes.append(("minCount", String(relationship.minCount))) }
        if !relationship.isToMany || relationship.maxCount != 0 { attributes.append(("maxCount", String(relationship.maxCount))) }
        let rule = ModelFileVocabulary.deleteRules.first(where: { $0.rule == relationship.deleteRule })!.name
        attributes.append(("deletionRule", rule))
        guard let destination = relationship.destinationEntity?.name ?? relationship.destinationName else {
            throw fail(tag, "the relationship has no destination entity")
        }
        attributes.append(("destinationEntity", destination))
        if let inverse = relationship.inverseRelationship {
            attributes.append(("inverseName", inverse.name))
            attributes.append(("inverseEntity", inverse.entity?.name ?? destination))
        } else if let inverseName = relationship.inverseName {
            attributes.append(("inverseName", inverseName))
            attributes.append(("inverseEntity", destination))
        }
        try encodeProperty("relationship", attributes + trailing(relationship), relationship, tag, into: &out)
    }

    private func encodeFetchedProperty(_ property: NSFetchedPropertyDescription, _ context: String, into out: inout XMLText) throws(ModelFileError) {
        let tag = "<fetchedProperty name=\"\(property.name)\"> \(context)"
        guard let request = property.fetchRequest else { throw fail(tag, "the fetched property has no fetch request") }
        try encodeProperty("fetchedProperty", common(property) + trailing(property), property, tag, children: { inner throws(ModelFileError) in
            try encodeFetchRequest(request, name: "fetchedPropertyFetchRequest", context: tag, into: &inner)
        }, into: &out)
    }

    private func encodeIndex(_ index: NSFetchIndexDescription, _ context: String, into out: inout XMLText) throws(ModelFileError) {
        let tag = "<fetchIndex name=\"\(index.name)\"> \(context)"
        guard !index.elements.isEmpty else { throw fail(tag, "a fetch index without elements") }
        guard index.partialIndexPredicate == nil else { throw fail(tag, "a partial index predicate cannot be written in a model file") }
        try out.open("fetchIndex", [("name", index.name)], in: tag, file: file)
        for element in index.elements {
            var attributes: [(String, String)]
            if let description = element.property as? NSExpressionDescription {
                guard let expression = description.expression else { throw fail(tag, "an index expression element without an expression") }
                attributes = [("expression", expression.description),
                              ("expressionType", ModelFileVocabulary.name(of: description.expressionResultType))]
            } else if let name = element.propertyName {
                attributes = [("property", name)]
            } else {
                throw fail(tag, "an index element names no property")
            }
            attributes.append(("type", element.collationType == .binary ? "Binary" : "RTree"))
            attributes.append(("order", element.isAscending ? "ascending" : "descending"))
            try out.empty("fetchIndexElement", attributes, in: tag, file: file)
        }
        out.close("fetchIndex")
    }

    // MARK: Fetch requests

    private func encodeFetchRequest(_ request: NSFetchRequest<NSFetchRequestResult>, name: String, context: String?,
                                    into out: inout XMLText) throws(ModelFileError) {
        let tag = "<fetchRequest name=\"\(name)\">" + (context.map { " in " + $0 } ?? "")
        guard let entity = request.entityName ?? request.entity?.name else { throw fail(tag, "the fetch request names no entity") }
        let unwritable = [
            (request.sortDescriptors?.isEmpty == false, "sortDescriptors"), (request.fetchOffset != 0, "fetchOffset"),
            (request.propertiesToFetch != nil, "propertiesToFetch"), (request.propertiesToGroupBy != nil, "propertiesToGroupBy"),
            (request.havingPredicate != nil, "havingPredicate"),
            (request.relationshipKeyPathsForPrefetching != nil, "relationshipKeyPathsForPrefetching"),
            (request.shouldRefreshRefetchedObjects, "shouldRefreshRefetchedObjects"),
        ].filter(\.0).map(\.1)
        guard unwritable.isEmpty else {
            throw fail(tag, "\(unwritable.joined(separator: ", ")) cannot be written in a model file's fetch request")
        }
        var attributes: [(String, String)] = [("name", name), ("entity", entity)]
        if let predicate = request.predicate { attributes.append(("predicateString", predicate.predicateFormat)) }
        if request.fetchLimit > 0 { attributes.append(("fetchLimit", String(request.fetchLimit))) }
        if request.fetchBatchSize > 0 { attributes.append(("fetchBatchSize", String(request.fetchBatchSize))) }
        if request.resultType != .managedObjectResultType { attributes.append(("resultType", String(request.resultType.rawValue))) }
        for (flag, keyPath) in ModelFileVocabulary.fetchRequestFlags where request[keyPath: keyPath] {
            attributes.append((flag, "YES"))
        }
        try out.empty("fetchRequest", attributes, in: tag, file: file)
    }
}

/// The `<composite>` definitions of a model being written: each name with its elements' XML.
final class CompositeTypeNames {
    private var bodies: [String: String] = [:]
    private var order: [String] = []
    /// How deep the composite being written is nested.
    var depth = 0

    /// `base`, or `base` numbered, for a definition whose elements are `body`: the name an equal
    /// definition already has, else a name no other definition has.
    func name(base: String, body: String) -> String {
        var name = base, number = 1
        while let existing = bodies[name] {
            if existing == body { return name }
            number += 1
            name = base + String(number)
        }
        bodies[name] = body
        order.append(name)
        return name
    }

    /// The `<composite name>` elements, in the order they were named (nested ones first).
    func definitions(indent: Int) -> String {
        let pad = String(repeating: "    ", count: indent)
        return order.map { name in
            let escaped = XMLText.escape(name) ?? name
            let lines = bodies[name]!.split(separator: "\n", omittingEmptySubsequences: true).map { pad + $0 + "\n" }.joined()
            return pad + "<composite name=\"\(escaped)\">\n" + lines + pad + "</composite>\n"
        }.joined()
    }
}

/// Indented XML text, four spaces a level, as Xcode writes it.
struct XMLText {
    var text = ""
    var indent = 0

    mutating func line(_ content: String) {
        text += String(repeating: "    ", count: indent) + content + "\n"
    }

    mutating func open(_ name: String, _ attributes: [(String, String)], in tag: String, file: URL) throws(ModelFileError) {
        line("<" + name + (try Self.attributes(attributes, in: tag, file: file)) + ">")
        indent += 1
    }

    mutating func empty(_ name: String, _ attributes: [(String, String)], in tag: String, file: URL) throws(ModelFileError) {
        line("<" + name + (try Self.attributes(attributes, in: tag, file: file)) + "/>")
    }

    mutating func close(_ name: String) {
        indent -= 1
        line("</" + name + ">")
    }

    private static func attributes(_ attributes: [(String, String)], in tag: String, file: URL) throws(ModelFileError) -> String {
        var out = ""
        for (name, value) in attributes {
            guard let escaped = escape(value) else {
                throw ModelFileError(file: file, element: tag, reason: "the \(name) holds a NUL character, which XML cannot hold")
            }
            out += " \(name)=\"\(escaped)\""
        }
        return out
    }

    /// The text with `& < > "` and tab, newline, carriage return (which an attribute value would turn into
    /// spaces) as references; `nil` if it holds a NUL.
    static func escape(_ value: String) -> String? {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\0": return nil
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += "&#\(scalar.value);"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
