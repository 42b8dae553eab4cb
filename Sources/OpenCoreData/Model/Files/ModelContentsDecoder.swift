import Foundation
import OpenCoreDataModelXML

/// Builds a model from the `contents` XML of a `.xcdatamodel` folder (the source form Xcode saves).
///
/// The document is read in two passes: the first makes every entity with its own properties, the
/// second resolves what names other entities (`parentEntity`, a relationship's destination and inverse,
/// fetch requests, configurations, index and constraint properties) now that all are known. Every error
/// names the file, the line and column of the element at fault, and the element.
struct ModelContentsDecoder {
    let file: URL
    /// The model's `<composite name>` definitions by name, which composite attributes name
    /// (`attributeType="Composite" composite="Address"`); read before the entities.
    var composites: [String: ModelXMLElement] = [:]

    init(file: URL) { self.file = file }

    /// An entity being read, with the names the second pass resolves.
    struct PendingEntity {
        let entity: NSEntityDescription
        let element: ModelXMLElement
        let parentName: String?
        var relationships: [(NSRelationshipDescription, ModelXMLElement)] = []
        var fetchedProperties: [(NSFetchedPropertyDescription, fetchRequest: ModelXMLElement)] = []
        var indexElements: [(NSFetchIndexElementDescription, ModelXMLElement)] = []
        var constraintNames: [(String, ModelXMLElement)] = []
        var name: String { entity.name ?? "" }
    }

    /// Reads `data` (the `contents` file) into `model`, which must be empty.
    func decode(_ data: Data, into model: NSManagedObjectModel) throws(ModelFileError) {
        let root: ModelXMLElement
        do {
            root = try ModelXMLParser.parse(data)
        } catch {
            throw ModelFileError(file: file, line: error.line, column: error.column, reason: error.message)
        }
        guard root.name == "model" else {
            throw fail(root, nil, "the root element is <\(root.name)>, not <model> (this is not a Core Data model file)")
        }
        if let identifier = root.attribute("userDefinedModelVersionIdentifier"), !identifier.isEmpty {
            model.versionIdentifiers = [identifier]
        }
        var reader = self
        for child in root.children where child.name == "composite" {
            let name = try required(child, "name", nil)
            if let first = reader.composites.updateValue(child, forKey: name) {
                throw fail(child, nil, "a second composite named \(name) (the first is at line \(first.line))")
            }
        }
        try reader.decodeContents(root, into: model)
    }

    /// The entities, fetch requests and configurations of the `<model>` element `root`.
    private func decodeContents(_ root: ModelXMLElement, into model: NSManagedObjectModel) throws(ModelFileError) {
        var pending: [PendingEntity] = []
        var fetchRequests: [ModelXMLElement] = []
        var configurations: [ModelXMLElement] = []
        var entityLines: [String: Int] = [:]
        for child in root.children {
            switch child.name {
            case "entity":
                let entity = try decodeEntity(child)
                if let line = entityLines.updateValue(child.line, forKey: entity.name) {
                    throw fail(child, nil, "a second entity named \(entity.name) (the first is at line \(line))")
                }
                pending.append(entity)
            case "fetchRequest": fetchRequests.append(child)
            case "configuration": configurations.append(child)
            case "elements": break  // the diagram's layout
            case "composite": break  // read first; decoded where an attribute names it
            default:
                throw fail(child, nil, "unknown element <\(child.name)> in <model>")
            }
        }
        let byName = Dictionary(uniqueKeysWithValues: pending.map { ($0.name, $0) })
        try resolveInheritance(pending, byName: byName)
        model.entities = pending.map(\.entity)
        for entity in pending { try resolveReferences(of: entity, byName: byName) }
        for entity in pending { try checkInverses(of: entity) }
        for element in fetchRequests {
            let name = try required(element, "name", nil)
            if model.fetchRequestTemplates[name] != nil {
                throw fail(element, nil, "a second fetch request template named \(name)")
            }
            model.fetchRequestTemplates[name] = try decodeFetchRequest(element, context: nil, byName: byName)
        }
        for element in configurations {
            let name = try required(element, "name", nil)
            guard !model.configurations.contains(name) else { throw fail(element, nil, "a second configuration named \(name)") }
            var members: [NSEntityDescription] = []
            for member in element.children {
                guard member.name == "memberEntity" else {
                    throw fail(member, "in configuration \(name)", "unknown element <\(member.name)> in <configuration>")
                }
                let entityName = try required(member, "name", "in configuration \(name)")
                guard let entity = byName[entityName]?.entity else {
                    throw fail(member, "in configuration \(name)", "the entity \(entityName) is not in the model")
                }
                if !members.contains(where: { $0 === entity }) { members.append(entity) }
            }
            model.namedConfigurations.append((name, members))
        }
    }

    // MARK: Errors and attribute values

    /// An error at an element: `context` says where the element sits ("in entity Animal").
    func fail(_ element: ModelXMLElement, _ context: String?, _ reason: String) -> ModelFileError {
        var tag = "<" + element.name
        if let name = element.attribute("name") { tag += " name=\"\(name)\"" }
        tag += ">"
        if let context { tag += " " + context }
        return ModelFileError(file: file, line: element.line, column: element.column, element: tag, reason: reason)
    }

    /// An attribute that must be present and not empty.
    func required(_ element: ModelXMLElement, _ attribute: String, _ context: String?) throws(ModelFileError) -> String {
        guard let value = element.attribute(attribute), !value.isEmpty else {
            throw fail(element, context, "the attribute \(attribute) is missing")
        }
        return value
    }

    /// A `YES`/`NO` attribute; absent is `NO`.
    func flag(_ element: ModelXMLElement, _ attribute: String, _ context: String?) throws(ModelFileError) -> Bool {
        guard let value = element.attribute(attribute) else { return false }
        switch value {
        case "YES": return true
        case "NO": return false
        default: throw fail(element, context, "\(attribute)=\"\(value)\" is neither YES nor NO")
        }
    }

    /// A whole number attribute at least `minimum`; `nil` when absent.
    func integer(_ element: ModelXMLElement, _ attribute: String, _ context: String?, minimum: Int = 0) throws(ModelFileError) -> Int? {
        guard let value = element.attribute(attribute) else { return nil }
        guard let number = Int(value), number >= minimum else {
            throw fail(element, context, "\(attribute)=\"\(value)\" is not a whole number\(minimum == 0 ? " (0 or more)" : "")")
        }
        return number
    }

    /// A `userInfo` element: `<entry key="…" value="…"/>` children.
    func decodeUserInfo(_ element: ModelXMLElement, _ context: String?) throws(ModelFileError) -> [AnyHashable: Any] {
        var info: [AnyHashable: Any] = [:]
        for entry in element.children {
            guard entry.name == "entry" else { throw fail(entry, context, "unknown element <\(entry.name)> in <userInfo>") }
            guard let key = entry.attribute("key") else { throw fail(entry, context, "the attribute key is missing") }
            guard info.updateValue(entry.attribute("value") ?? "", forKey: key) == nil else {
                throw fail(entry, context, "a second userInfo entry with the key \(key)")
            }
        }
        return info
    }

    // MARK: Entities

    /// `<entity name representedClassName parentEntity isAbstract codeGenerationType elementID versionHashModifier>`
    /// with `attribute`, `relationship`, `fetchedProperty`, `fetchIndex`, `uniquenessConstraints`,
    /// `compoundIndexes` and `userInfo` children.
    func decodeEntity(_ element: ModelXMLElement) throws(ModelFileError) -> PendingEntity {
        let name = try required(element, "name", nil)
        let context = "in entity \(name)"
        let entity = NSEntityDescription()
        entity.name = name
        entity.managedObjectClassName = element.attribute("representedClassName").flatMap { $0.isEmpty ? nil : $0 } ?? "NSManagedObject"
        entity.isAbstract = try flag(element, "isAbstract", nil)
        entity.codeGenerationType = element.attribute("codeGenerationType")
        entity.renamingIdentifier = element.attribute("elementID")
        entity.versionHashModifier = element.attribute("versionHashModifier")
        let parent = element.attribute("parentEntity")
        if parent == "" { throw fail(element, nil, "parentEntity is empty") }
        var result = PendingEntity(entity: entity, element: element, parentName: parent)
        var properties: [NSPropertyDescription] = []
        var propertyLines: [String: Int] = [:]
        func add(_ property: NSPropertyDescription, _ child: ModelXMLElement) throws(ModelFileError) {
            if let line = propertyLines.updateValue(child.line, forKey: property.name) {
                throw fail(child, context, "a second property named \(property.name) (the first is at line \(line))")
            }
            properties.append(property)
        }
        for child in element.children {
            switch child.name {
            case "attribute":
                try add(try decodeAttribute(child, context), child)
            case "relationship":
                let relationship = try decodeRelationship(child, context)
                try add(relationship, child)
                result.relationships.append((relationship, child))
            case "fetchedProperty":
                let (property, request) = try decodeFetchedProperty(child, context)
                try add(property, child)
                result.fetchedProperties.append((property, request))
            case "fetchIndex":
                let index = try decodeFetchIndex(child, context, into: &result)
                guard !entity.indexes.contains(where: { $0.name == index.name }) else {
                    throw fail(child, context, "a second fetch index named \(index.name)")
                }
                entity.indexes.append(index)
            case "compoundIndexes":
                try decodeCompoundIndexes(child, context, into: &result)
            case "uniquenessConstraints":
                try decodeUniquenessConstraints(child, context, into: &result)
            case "userInfo":
                entity.userInfo = try decodeUserInfo(child, context)
            default:
                throw fail(child, context, "unknown element <\(child.name)> in <entity>")
            }
        }
        entity.properties = properties
        return result
    }

    /// `parentEntity` names an entity of the file, and following parents never comes back.
    func resolveInheritance(_ pending: [PendingEntity], byName: [String: PendingEntity]) throws(ModelFileError) {
        for item in pending {
            guard let parentName = item.parentName else { continue }
            guard byName[parentName] != nil else {
                throw fail(item.element, nil, "the parentEntity \(parentName) is not in the model")
            }
            var chain = [item.name]
            var current: String? = parentName
            while let name = current {
                if chain.contains(name) {
                    throw fail(item.element, nil, "parentEntity cycle: \((chain + [name]).joined(separator: " → "))")
                }
                chain.append(name)
                current = byName[name]?.parentName
            }
        }
        for item in pending {
            let children = pending.filter { $0.parentName == item.name }.map(\.entity)
            if !children.isEmpty { item.entity.subentities = children }
        }
    }

    /// Destinations and inverses of relationships, fetched properties' requests, index and constraint
    /// properties: each names something that must be in the model.
    func resolveReferences(of item: PendingEntity, byName: [String: PendingEntity]) throws(ModelFileError) {
        let context = "in entity \(item.name)"
        for (relationship, element) in item.relationships {
            let destinationName = try required(element, "destinationEntity", context)
            guard let destination = byName[destinationName]?.entity else {
                throw fail(element, context, "the destination entity \(destinationName) is not in the model")
            }
            relationship.destinationEntity = destination
            guard let inverseName = element.attribute("inverseName") else {
                if element.attribute("inverseEntity") != nil {
                    throw fail(element, context, "inverseEntity without inverseName")
                }
                continue
            }
            let inverseEntityName = element.attribute("inverseEntity") ?? destinationName
            guard let inverseEntity = byName[inverseEntityName]?.entity else {
                throw fail(element, context, "the inverseEntity \(inverseEntityName) is not in the model")
            }
            guard let inverse = inverseEntity.relationshipsByName[inverseName] else {
                throw fail(element, context, "the inverse \(inverseName) is not a relationship of entity \(inverseEntityName)")
            }
            relationship.inverseRelationship = inverse
        }
        for (property, request) in item.fetchedProperties {
            property.fetchRequest = try decodeFetchRequest(request, context: "in fetched property \(property.name) \(context)", byName: byName)
        }
        let properties = item.entity.propertiesByName
        for (element, xml) in item.indexElements {
            guard let name = element.propertyName else { continue }  // an expression element
            guard let property = properties[name] else {
                throw fail(xml, context, "the indexed property \(name) is not a property of entity \(item.name)")
            }
            element.property = property
        }
        for (name, xml) in item.constraintNames where properties[name] == nil {
            throw fail(xml, context, "the constraint's property \(name) is not a property of entity \(item.name)")
        }
    }

    /// A relationship's inverse points back: its destination is this entity (or one related to it by
    /// inheritance), and its own inverse, if it names one, is this relationship.
    func checkInverses(of item: PendingEntity) throws(ModelFileError) {
        let context = "in entity \(item.name)"
        for (relationship, element) in item.relationships {
            guard let inverse = relationship.inverseRelationship, let inverseEntity = inverse.entity else { continue }
            if let back = inverse.destinationEntity, !(item.entity.isKindOf(entity: back) || back.isKindOf(entity: item.entity)) {
                throw fail(element, context, "the inverse \(inverseEntity.name ?? "?").\(inverse.name) leads to entity \(back.name ?? "?"), not back to \(item.name)")
            }
            if let other = inverse.inverseRelationship, other !== relationship {
                throw fail(element, context, "the inverse \(inverseEntity.name ?? "?").\(inverse.name) names \(other.entity?.name ?? "?").\(other.name) as its own inverse")
            }
        }
    }

    // MARK: Fetch requests

    /// `<fetchRequest name entity predicateString fetchLimit fetchBatchSize resultType includeSubentities
    /// includePropertyValues includePendingChanges returnObjectsAsFaults returnDistinctResults>`; an
    /// absent flag is NO.
    func decodeFetchRequest(_ element: ModelXMLElement, context: String?,
                            byName: [String: PendingEntity]) throws(ModelFileError) -> NSFetchRequest<NSFetchRequestResult> {
        if let child = element.children.first {
            throw fail(child, context, "unknown element <\(child.name)> in <fetchRequest>")
        }
        let request = NSFetchRequest<NSFetchRequestResult>()
        let entityName = try required(element, "entity", context)
        guard let entity = byName[entityName]?.entity else {
            throw fail(element, context, "the entity \(entityName) is not in the model")
        }
        request.entity = entity
        if let format = element.attribute("predicateString"), !format.isEmpty {
            do {
                request.predicate = try NSPredicate(validatingFormat: format)
            } catch {
                throw fail(element, context, "the predicateString does not parse: \(error)")
            }
        }
        request.fetchLimit = try integer(element, "fetchLimit", context) ?? 0
        request.fetchBatchSize = try integer(element, "fetchBatchSize", context) ?? 0
        if let text = element.attribute("resultType") {
            if let raw = UInt(text), [0, 1, 2, 4].contains(raw) {
                request.resultType = NSFetchRequestResultType(rawValue: raw)
            } else if let named = ModelFileVocabulary.resultTypes.first(where: { $0.name == text }) {
                request.resultType = named.type
            } else {
                throw fail(element, context, "resultType=\"\(text)\" is not a result type (0, 1, 2 or 4)")
            }
        }
        for (name, keyPath) in ModelFileVocabulary.fetchRequestFlags {
            request[keyPath: keyPath] = try flag(element, name, context)
        }
        if element.attribute(ModelFileVocabulary.pendingChangesAlias) != nil {
            request.includesPendingChanges = try flag(element, ModelFileVocabulary.pendingChangesAlias, context)
        }
        return request
    }
}
