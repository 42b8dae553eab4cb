import Foundation
import OpenCoreDataModelXML

/// The properties of an entity in a `contents` file: attributes, relationships, fetched properties,
/// fetch indexes and uniqueness constraints.
extension ModelContentsDecoder {
    /// `<attribute name attributeType optional transient derived derivationExpression defaultValueString
    /// defaultDateTimeInterval minValueString maxValueString minDateTimeInterval maxDateTimeInterval
    /// regularExpressionString usesScalarValueType allowsExternalBinaryDataStorage valueTransformerName
    /// customClassName preserveAfterDeletion allowsCloudEncryption indexed spotlightIndexingEnabled
    /// elementID versionHashModifier>` with an optional `userInfo` child. An absent `optional` means
    /// required.
    func decodeAttribute(_ element: ModelXMLElement, _ entityContext: String, composites visiting: [String] = []) throws(ModelFileError) -> NSAttributeDescription {
        let name = try required(element, "name", entityContext)
        let typeName = element.attribute("attributeType") ?? "Undefined"
        guard let type = ModelFileVocabulary.attributeType(named: typeName) else {
            let known = ModelFileVocabulary.attributeTypes.map(\.name).joined(separator: ", ")
            throw fail(element, entityContext, "unknown attributeType \"\(typeName)\" (known: \(known))")
        }
        if type == .compositeAttributeType { return try decodeComposite(element, name, entityContext, visiting: visiting) }
        let attribute: NSAttributeDescription
        if try flag(element, "derived", entityContext) {
            let derived = NSDerivedAttributeDescription()
            if let text = element.attribute("derivationExpression"), !text.isEmpty {
                do {
                    derived.derivationExpression = try NSExpression(validatingFormat: text)
                } catch {
                    throw fail(element, entityContext, "the derivationExpression does not parse: \(error)")
                }
            }
            attribute = derived
        } else {
            attribute = NSAttributeDescription()
        }
        attribute.name = name
        attribute.attributeType = type
        try decodeCommon(attribute, element, entityContext)
        attribute.usesScalarValueType = try flag(element, "usesScalarValueType", entityContext)
        attribute.allowsExternalBinaryDataStorage = try flag(element, "allowsExternalBinaryDataStorage", entityContext)
        attribute.preservesValueInHistoryOnDeletion = try flag(element, "preserveAfterDeletion", entityContext)
        attribute.allowsCloudEncryption = try flag(element, "allowsCloudEncryption", entityContext)
        attribute.valueTransformerName = element.attribute("valueTransformerName").flatMap { $0.isEmpty ? nil : $0 }
        if let custom = element.attribute("customClassName"), !custom.isEmpty { attribute.attributeValueClassName = custom }
        attribute.defaultValue = try defaultValue(of: element, type: type, entityContext)
        if let kind = ModelFileValues.boundKind(of: type) {
            let (minimum, maximum) = try bounds(of: element, type: type, kind: kind, entityContext)
            let pattern = type == .stringAttributeType ? element.attribute("regularExpressionString").flatMap { $0.isEmpty ? nil : $0 } : nil
            if let pattern {
                do { _ = try NSRegularExpression(pattern: pattern) } catch {
                    throw fail(element, entityContext, "the regularExpressionString \"\(pattern)\" is not a regular expression")
                }
            }
            let (predicates, codes) = ModelFileValues.validation(kind: kind, minimum: minimum, maximum: maximum, pattern: pattern)
            attribute.setValidationPredicates(predicates, codes: codes)
        }
        return attribute
    }

    /// `<attribute name attributeType="Composite" composite>`: the composite the model's
    /// `<composite name>` of that name defines, its `<attribute>` children the elements (which may name
    /// composites in turn, never one they are part of).
    private func decodeComposite(_ element: ModelXMLElement, _ name: String, _ entityContext: String,
                                 visiting: [String]) throws(ModelFileError) -> NSCompositeAttributeDescription {
        let typeName = try required(element, "composite", entityContext)
        guard let definition = composites[typeName] else {
            throw fail(element, entityContext, "the composite \(typeName) is not in the model (no <composite name=\"\(typeName)\">)")
        }
        guard !visiting.contains(typeName) else {
            throw fail(element, entityContext, "the composite \(typeName) contains itself: \((visiting + [typeName]).joined(separator: " → "))")
        }
        let composite = NSCompositeAttributeDescription()
        composite.name = name
        composite.compositeTypeName = typeName
        try decodeCommon(composite, element, entityContext)
        let context = "in composite \(typeName)"
        var lines: [String: Int] = [:]
        for child in definition.children {
            guard child.name == "attribute" else { throw fail(child, context, "unknown element <\(child.name)> in <composite>") }
            let attribute = try decodeAttribute(child, context, composites: visiting + [typeName])
            if let line = lines.updateValue(child.line, forKey: attribute.name) {
                throw fail(child, context, "a second element named \(attribute.name) (the first is at line \(line))")
            }
            composite.elements.append(attribute)
        }
        guard !composite.elements.isEmpty else { throw fail(definition, nil, "the composite \(typeName) has no elements") }
        return composite
    }

    /// What every property element may say: optional, transient, elementID, versionHashModifier,
    /// indexed, spotlightIndexingEnabled, userInfo; any other child element is an error.
    private func decodeCommon(_ property: NSPropertyDescription, _ element: ModelXMLElement, _ entityContext: String,
                              allowing children: Set<String> = ["userInfo"]) throws(ModelFileError) {
        property.isOptional = try flag(element, "optional", entityContext)
        property.isTransient = try flag(element, "transient", entityContext)
        property.renamingIdentifier = element.attribute("elementID")
        property.versionHashModifier = element.attribute("versionHashModifier")
        property.isIndexed = try flag(element, "indexed", entityContext)
        property.isIndexedBySpotlight = try flag(element, "spotlightIndexingEnabled", entityContext)
        for child in element.children {
            guard children.contains(child.name) else {
                throw fail(child, entityContext, "unknown element <\(child.name)> in <\(element.name)>")
            }
            if child.name == "userInfo" { property.userInfo = try decodeUserInfo(child, entityContext) }
        }
    }

    /// `defaultValueString` in the type's notation; for dates `defaultDateTimeInterval` (seconds since
    /// 2001-01-01).
    private func defaultValue(of element: ModelXMLElement, type: NSAttributeType, _ context: String) throws(ModelFileError) -> Any? {
        if type == .dateAttributeType {
            guard let text = element.attribute("defaultDateTimeInterval") else { return nil }
            guard let seconds = ModelFileValues.parseDouble(text) else {
                throw fail(element, context, "defaultDateTimeInterval=\"\(text)\" is not a number of seconds")
            }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        guard let text = element.attribute("defaultValueString") else { return nil }
        guard let value = ModelFileValues.parseDefault(text, type: type) else {
            throw fail(element, context, "defaultValueString=\"\(text)\" is not a value of type \(ModelFileVocabulary.name(of: type))")
        }
        return value?.anyValue
    }

    /// The minimum and maximum: `minValueString`/`maxValueString` (a whole number for integer attributes,
    /// a `Double` for the others, a length for strings and data), `minDateTimeInterval`/`maxDateTimeInterval`
    /// for dates.
    private func bounds(of element: ModelXMLElement, type: NSAttributeType, kind: ModelFileValues.BoundKind,
                        _ context: String) throws(ModelFileError) -> (Value?, Value?) {
        func bound(_ name: String) throws(ModelFileError) -> Value? {
            guard let text = element.attribute(name), !text.isEmpty else { return nil }
            switch kind {
            case .date:
                guard let seconds = ModelFileValues.parseDouble(text) else {
                    throw fail(element, context, "\(name)=\"\(text)\" is not a number of seconds")
                }
                return .date(Date(timeIntervalSinceReferenceDate: seconds))
            case .length:
                guard let length = Int64(text), length >= 0 else {
                    throw fail(element, context, "\(name)=\"\(text)\" is not a length (a whole number, 0 or more)")
                }
                return .int(length)
            case .number:
                if [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType].contains(type) {
                    guard let i = Int64(text) else { throw fail(element, context, "\(name)=\"\(text)\" is not a whole number") }
                    return .int(i)
                }
                guard let d = ModelFileValues.parseDouble(text) else {
                    throw fail(element, context, "\(name)=\"\(text)\" is not a number")
                }
                return .double(d)
            }
        }
        if kind == .date { return (try bound("minDateTimeInterval"), try bound("maxDateTimeInterval")) }
        return (try bound("minValueString"), try bound("maxValueString"))
    }

    /// `<relationship name destinationEntity inverseName inverseEntity toMany ordered minCount maxCount
    /// deletionRule optional transient elementID versionHashModifier>`. Destination and inverse are
    /// resolved once every entity is read.
    func decodeRelationship(_ element: ModelXMLElement, _ entityContext: String) throws(ModelFileError) -> NSRelationshipDescription {
        let relationship = NSRelationshipDescription()
        relationship.name = try required(element, "name", entityContext)
        try decodeCommon(relationship, element, entityContext)
        let toMany = try flag(element, "toMany", entityContext)
        relationship.maxCount = toMany ? try integer(element, "maxCount", entityContext) ?? 0 : 1
        if !toMany, let count = try integer(element, "maxCount", entityContext), count != 1 {
            throw fail(element, entityContext, "maxCount=\"\(count)\" on a to-one relationship (toMany is not YES)")
        }
        relationship.minCount = try integer(element, "minCount", entityContext) ?? 0
        relationship.isOrdered = try flag(element, "ordered", entityContext)
        if let rule = element.attribute("deletionRule") {
            guard let known = ModelFileVocabulary.deleteRules.first(where: { $0.name == rule }) else {
                throw fail(element, entityContext, "unknown deletionRule \"\(rule)\" (known: Nullify, Cascade, Deny, No Action)")
            }
            relationship.deleteRule = known.rule
        }
        return relationship
    }

    /// `<fetchedProperty name optional>` holding one `<fetchRequest name entity predicateString>`.
    func decodeFetchedProperty(_ element: ModelXMLElement, _ entityContext: String) throws(ModelFileError) -> (NSFetchedPropertyDescription, ModelXMLElement) {
        let property = NSFetchedPropertyDescription()
        property.name = try required(element, "name", entityContext)
        try decodeCommon(property, element, entityContext, allowing: ["userInfo", "fetchRequest"])
        let requests = element.children.filter { $0.name == "fetchRequest" }
        guard requests.count == 1 else {
            throw fail(requests.count > 1 ? requests[1] : element, entityContext,
                       requests.isEmpty ? "a fetched property without its <fetchRequest>" : "a fetched property with two <fetchRequest>s")
        }
        return (property, requests[0])
    }

    /// `<fetchIndex name>` with `<fetchIndexElement property type order>` (or `expression` and
    /// `expressionType` instead of `property`) children.
    func decodeFetchIndex(_ element: ModelXMLElement, _ entityContext: String, into entity: inout PendingEntity) throws(ModelFileError) -> NSFetchIndexDescription {
        let name = try required(element, "name", entityContext)
        var elements: [NSFetchIndexElementDescription] = []
        for child in element.children {
            guard child.name == "fetchIndexElement" else {
                throw fail(child, entityContext, "unknown element <\(child.name)> in <fetchIndex>")
            }
            let typeName = child.attribute("type") ?? "Binary"
            guard let type = ModelFileVocabulary.indexTypes.first(where: { $0.name == typeName })?.type else {
                throw fail(child, entityContext, "unknown index type \"\(typeName)\" (known: Binary, RTree)")
            }
            let ascending: Bool
            switch child.attribute("order") ?? "ascending" {
            case "ascending": ascending = true
            case "descending": ascending = false
            case let other: throw fail(child, entityContext, "order=\"\(other)\" is neither ascending nor descending")
            }
            let indexElement: NSFetchIndexElementDescription
            if let property = child.attribute("property"), !property.isEmpty {
                indexElement = NSFetchIndexElementDescription(propertyName: property, collationType: type, ascending: ascending)
                entity.indexElements.append((indexElement, child))
            } else if let text = child.attribute("expression"), !text.isEmpty {
                let description = NSExpressionDescription()
                do {
                    description.expression = try NSExpression(validatingFormat: text)
                } catch {
                    throw fail(child, entityContext, "the index expression does not parse: \(error)")
                }
                let typeName = child.attribute("expressionType") ?? "Undefined"
                guard let resultType = ModelFileVocabulary.attributeType(named: typeName) else {
                    throw fail(child, entityContext, "unknown expressionType \"\(typeName)\"")
                }
                description.expressionResultType = resultType
                description.name = text
                indexElement = NSFetchIndexElementDescription(property: description, collationType: type)
                indexElement.isAscending = ascending
            } else {
                throw fail(child, entityContext, "a fetch index element needs a property or an expression")
            }
            elements.append(indexElement)
        }
        guard !elements.isEmpty else { throw fail(element, entityContext, "a fetch index without elements") }
        return NSFetchIndexDescription(name: name, elements: elements)
    }

    /// `<compoundIndexes>` (Xcode 8 and earlier): `<compoundIndex>` children of `<index value>`s, read
    /// into the entity's `compoundIndexes` (property names), which makes them fetch indexes named
    /// `compoundIndex1`, `compoundIndex2`… Each name is checked against the entity's properties.
    func decodeCompoundIndexes(_ element: ModelXMLElement, _ entityContext: String, into entity: inout PendingEntity) throws(ModelFileError) {
        var lists: [[String]] = []
        var nodes: [[ModelXMLElement]] = []
        for child in element.children {
            guard child.name == "compoundIndex" else {
                throw fail(child, entityContext, "unknown element <\(child.name)> in <compoundIndexes>")
            }
            var names: [String] = []
            for index in child.children {
                guard index.name == "index" else { throw fail(index, entityContext, "unknown element <\(index.name)> in <compoundIndex>") }
                names.append(try required(index, "value", entityContext))
            }
            guard !names.isEmpty else { throw fail(child, entityContext, "a compound index without properties") }
            lists.append(names)
            nodes.append(child.children)
        }
        entity.entity.compoundIndexes += lists
        for (index, xml) in zip(entity.entity.indexes.suffix(lists.count), nodes) {
            for (indexElement, node) in zip(index.elements, xml) { entity.indexElements.append((indexElement, node)) }
        }
    }

    /// `<uniquenessConstraints>` of `<uniquenessConstraint>`s of `<constraint value>`s: each constraint a
    /// list of property names.
    func decodeUniquenessConstraints(_ element: ModelXMLElement, _ entityContext: String, into entity: inout PendingEntity) throws(ModelFileError) {
        for child in element.children {
            guard child.name == "uniquenessConstraint" else {
                throw fail(child, entityContext, "unknown element <\(child.name)> in <uniquenessConstraints>")
            }
            var names: [Any] = []
            for constraint in child.children {
                guard constraint.name == "constraint" else {
                    throw fail(constraint, entityContext, "unknown element <\(constraint.name)> in <uniquenessConstraint>")
                }
                let name = try required(constraint, "value", entityContext)
                entity.constraintNames.append((name, constraint))
                names.append(name)
            }
            guard !names.isEmpty else { throw fail(child, entityContext, "a uniqueness constraint without properties") }
            entity.entity.uniquenessConstraints.append(names)
        }
    }
}
