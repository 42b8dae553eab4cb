import Foundation
import OpenCoreDataPredicates

extension MappingModelFileReader {
    /// Sets the attribute and relationship mappings of `mapping` (in the destination entity's property
    /// order), then its mapping type.
    func fillProperties(of mapping: NSEntityMapping, from object: MappingModelDatabase.Object,
                        among mappings: [NSEntityMapping]) throws(ModelFileError) {
        let sourceEntity = mapping.sourceEntityName.flatMap { source.entitiesByName[$0] }
        let destinationEntity = mapping.destinationEntityName.flatMap { destination.entitiesByName[$0] }
        var attributes: [NSPropertyMapping] = [], relationships: [NSPropertyMapping] = []
        for (relationship, type) in [("attributemappings", "XDDEVATTRIBUTEMAPPING"), ("relationshipmappings", "XDDEVRELATIONSHIPMAPPING")] {
            for property in try database.related(object, relationship, type: type) {
                let isRelationship = type == "XDDEVRELATIONSHIPMAPPING"
                let propertyMapping = try self.propertyMapping(property, isRelationship: isRelationship, source: sourceEntity,
                                                               destination: destinationEntity, among: mappings)
                if isRelationship { relationships.append(propertyMapping) } else { attributes.append(propertyMapping) }
            }
        }
        let order = Dictionary((destinationEntity?.properties ?? []).enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        func sorted(_ list: [NSPropertyMapping]) -> [NSPropertyMapping] {
            list.enumerated().sorted { (order[$0.element.name ?? ""] ?? Int.max, $0.offset) < (order[$1.element.name ?? ""] ?? Int.max, $1.offset) }.map(\.element)
        }
        mapping.attributeMappings = sorted(attributes)
        mapping.relationshipMappings = sorted(relationships)
        mapping.mappingType = try mappingType(object, mapping)
    }

    /// One property mapping: its stored value expression, or the one Xcode generates.
    private func propertyMapping(_ object: MappingModelDatabase.Object, isRelationship: Bool, source: NSEntityDescription?,
                                 destination: NSEntityDescription?, among mappings: [NSEntityMapping]) throws(ModelFileError) -> NSPropertyMapping {
        guard let name = object.string("name"), !name.isEmpty else {
            throw database.error(object, "name", "a property mapping needs the name of a destination property")
        }
        if let destination {
            let property = destination.propertiesByName[name]
            guard isRelationship ? property is NSRelationshipDescription : property is NSAttributeDescription else {
                throw database.error(object, "name", "the destination entity \(destination.name ?? "") has no \(isRelationship ? "relationship" : "attribute") \(name)")
            }
        }
        let mapping = NSPropertyMapping(name: name, valueExpression: try expression(object, "valueexpressiondata"))
        mapping.userInfo = try userInfo(object)
        if mapping.valueExpression == nil, object.bool("autogenerateexpression") ?? true, let source {
            mapping.valueExpression = isRelationship
                ? generatedRelationshipExpression(name, source: source, destination: destination, among: mappings)
                : source.attributesByName[name] != nil ? NSExpression(node: .member(.variable("source"), name)) : nil
        }
        return mapping
    }

    /// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "<mapping>", $source.<name>)`,
    /// the mapping being the one from the source relationship's destination entity to the destination
    /// relationship's; `nil` when the source has no such relationship or no mapping joins the two.
    private func generatedRelationshipExpression(_ name: String, source: NSEntityDescription, destination: NSEntityDescription?,
                                                 among mappings: [NSEntityMapping]) -> NSExpression? {
        guard let old = source.relationshipsByName[name],
              let new = destination?.relationshipsByName[name] else { return nil }
        let from = old.destinationEntity?.name ?? old.destinationName
        let to = new.destinationEntity?.name ?? new.destinationName
        guard let joining = mappings.first(where: { $0.sourceEntityName == from && $0.destinationEntityName == to }) else { return nil }
        return NSExpression(node: .function("FUNCTION", [
            .variable("manager"), .constant(.string("destinationInstancesForEntityMappingNamed:sourceInstances:")),
            .constant(.string(joining.name ?? "")), .member(.variable("source"), name),
        ]))
    }

    /// A stored expression (a keyed archive of `NSExpression`), allowed to evaluate: the mapping model
    /// is the app's own resource, as Core Data trusts its compiled mapping models.
    func expression(_ object: MappingModelDatabase.Object, _ attribute: String) throws(ModelFileError) -> NSExpression? {
        guard let data = try database.data(object, attribute) else { return nil }
        let expression: NSExpression?
        do {
            expression = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSExpression.self, from: data)
        } catch {
            throw database.error(object, attribute, "the archived expression does not decode: \(error)")
        }
        guard let expression else { throw database.error(object, attribute, "the archive holds no expression") }
        expression.allowEvaluation()
        return expression
    }

    /// A stored `userinfodata`: a keyed archive of a dictionary of strings, numbers, dates, data, arrays
    /// and dictionaries.
    func userInfo(_ object: MappingModelDatabase.Object) throws(ModelFileError) -> [AnyHashable: Any]? {
        guard let data = try database.data(object, "userinfodata") else { return nil }
        let root: Any
        do {
            root = try ModelArchiveDecoder(archive: data).decodeRoot(as: Any.self)
        } catch {
            throw database.error(object, "userinfodata", "the archived user info does not decode: \(error)")
        }
        var info: [AnyHashable: Any] = [:]
        if let dictionary = root as? [String: Any] {
            for (key, value) in dictionary { info[key] = value }
        } else if let dictionary = root as? NSDictionary {
            for (key, value) in dictionary { info[key as? AnyHashable ?? AnyHashable("\(key)")] = value }
        } else {
            throw database.error(object, "userinfodata", "the archive holds \(type(of: root)), not a dictionary")
        }
        return info
    }
}
