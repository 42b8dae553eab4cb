import Foundation
@testable import OpenCoreData
@testable import OpenCoreDataPredicates

/// Every stored setting of a model as lines of text, so that two models compare by `==` and a difference
/// shows as the first differing line. Order matters where the model keeps one (entities, properties,
/// configurations); templates and `userInfo` are sorted.
enum ModelDump {
    static func lines(_ model: NSManagedObjectModel) -> [String] {
        var out = ["model ids=\(model.versionIdentifiers.map { "\($0)" }.sorted())"]
        for e in model.entities {
            out.append("entity \(e.name ?? "nil") class=\(e.managedObjectClassName ?? "nil") parent=\(e.superentity?.name ?? "-") abstract=\(e.isAbstract) rename=\(e.renamingIdentifier ?? "-") hashmod=\(e.versionHashModifier ?? "-") codegen=\(e.codeGenerationType ?? "-") info=\(info(e.userInfo))")
            out.append("  subentities=\(e.subentities.map { $0.name ?? "?" })")
            for p in e.properties where p.entity === e {
                var line = "  \(p.name) optional=\(p.isOptional) transient=\(p.isTransient) indexed=\(p.isIndexed) spotlight=\(p.isIndexedBySpotlight) rename=\(p.renamingIdentifier ?? "-") hashmod=\(p.versionHashModifier ?? "-") info=\(info(p.userInfo))"
                line += " validation=\(p.validationPredicates.map(\.predicateFormat)) warnings=\(p.validationWarnings.map { "\($0)" })"
                switch p {
                case let r as NSRelationshipDescription:
                    let inverse = r.inverseRelationship.map { "\($0.entity?.name ?? "?").\($0.name)" } ?? r.inverseName ?? "-"
                    line += " relationship to=\(r.destinationEntity?.name ?? r.destinationName ?? "?") inverse=\(inverse) min=\(r.minCount) max=\(r.maxCount) ordered=\(r.isOrdered) rule=\(r.deleteRule)"
                case let a as NSAttributeDescription:
                    let value = a.defaultValue.map { PredicatePrinter.format(ExpressionNode.constant(a.attributeType.coerce(Value(any: $0)) ?? .string("UNCOERCIBLE"))) } ?? "-"
                    line += " attribute type=\(a.attributeType.rawValue) default=\(value) scalar=\(a.usesScalarValueType) external=\(a.allowsExternalBinaryDataStorage) transformer=\(a.valueTransformerName ?? "-") class=\(a.attributeValueClassName ?? "-") preserve=\(a.preservesValueInHistoryOnDeletion) cloud=\(a.allowsCloudEncryption)"
                    if let d = a as? NSDerivedAttributeDescription { line += " derived=\(d.derivationExpression?.description ?? "nil")" }
                case let f as NSFetchedPropertyDescription:
                    line += " fetched " + (f.fetchRequest.map(request) ?? "nil")
                default:
                    line += " \(type(of: p))"
                }
                out.append(line)
            }
            for index in e.indexes {
                out.append("  index \(index.name) " + index.elements.map { element in
                    let what = (element.property as? NSExpressionDescription).map { "expr(\($0.expression?.description ?? "nil"):\($0.expressionResultType.rawValue))" } ?? element.propertyName ?? "?"
                    return "\(what)/\(element.collationType)/\(element.isAscending ? "asc" : "desc")"
                }.joined(separator: ","))
            }
            for constraint in e.uniquenessConstraints {
                out.append("  unique \(constraint.map { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name ?? "?" })")
            }
        }
        for name in model.fetchRequestTemplatesByName.keys.sorted() {
            out.append("template \(name) " + request(model.fetchRequestTemplatesByName[name]!))
        }
        for name in model.configurations {
            out.append("configuration \(name) \(model.entities(forConfigurationName: name)!.map { $0.name ?? "?" })")
        }
        return out
    }

    static func request(_ r: NSFetchRequest<NSFetchRequestResult>) -> String {
        "entity=\(r.entityName ?? "nil") predicate=\(r.predicate?.predicateFormat ?? "nil") limit=\(r.fetchLimit) batch=\(r.fetchBatchSize) result=\(r.resultType.rawValue) flags=\([r.includesSubentities, r.includesPropertyValues, r.includesPendingChanges, r.returnsObjectsAsFaults, r.returnsDistinctResults])"
    }

    static func info(_ info: [AnyHashable: Any]?) -> String {
        guard let info, !info.isEmpty else { return "-" }
        return "[" + info.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ";") + "]"
    }

    /// The first line where two models differ, `nil` if they are equal.
    static func difference(_ a: NSManagedObjectModel, _ b: NSManagedObjectModel) -> String? {
        let x = lines(a), y = lines(b)
        for i in 0..<max(x.count, y.count) {
            let l = i < x.count ? x[i] : "(none)", r = i < y.count ? y[i] : "(none)"
            if l != r { return "line \(i):\n  before: \(l)\n  after:  \(r)" }
        }
        return nil
    }
}
