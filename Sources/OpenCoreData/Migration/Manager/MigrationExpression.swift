import Foundation
import OpenCoreDataPredicates

/// Evaluates a mapping's expressions: `FUNCTION($manager, …)` and `FUNCTION($entityPolicy, …)` call the
/// manager and the policy; `FETCH(…)` runs in the source context; anything else is an ordinary
/// `NSExpression` evaluated against `$source` with the migration's variables.
struct MigrationExpression {
    let manager: NSMigrationManager
    let policy: NSEntityMigrationPolicy?
    let bindings: [String: Any]

    func value(_ node: ExpressionNode) throws -> Any? {
        switch node {
        case .function("FUNCTION", let args) where args.count >= 2:
            guard case .constant(.string(let selector)) = args[1] else { break }
            let arguments = try args.dropFirst(2).map { try value($0) }
            switch args[0] {
            case .variable(NSMigrationManagerKey): return try manager.perform(function: selector, arguments: arguments)
            case .variable(NSMigrationEntityPolicyKey):
                guard let policy else { break }
                return try policy.perform(function: selector, arguments: arguments, manager: manager)
            default: break
            }
        case .fetch(let request, _, let countOnly):
            guard let request = try value(request) as? NSFetchRequest<NSFetchRequestResult> else {
                throw CoreDataError(NSMigrationError, "FETCH in a mapping expression needs a fetch request: \(NSExpression(node: request))")
            }
            return countOnly ? try manager.sourceContext.count(for: request) as Any : try manager.sourceContext.fetch(request) as Any
        case .variable(let name):
            return bindings[name]
        case .member(let base, let key):
            // `$source.name`: the object's own value (a relationship gives its objects).
            if let object = try value(base) as? NSManagedObject {
                let first = String(key.split(separator: ".").first ?? "")
                guard object.entity.propertiesByName[first] != nil else {
                    throw CoreDataError(NSMigrationError, "A mapping expression reads \(key) of entity \(object.entity.name ?? "?"), which has no property \(first).")
                }
                return object.value(forKeyPath: key)
            }
            if let manager = try value(base) as? NSMigrationManager, key == "sourceContext" { return manager.sourceContext }
        default:
            break
        }
        return NSExpression(node: node).expressionValue(with: bindings[NSMigrationSourceObjectKey], context: NSMutableDictionary(dictionary: bindings))
    }

    /// The managed objects of a value: one object, or a collection of them.
    static func objects(in value: Any?) -> [NSManagedObject] {
        if let object = value as? NSManagedObject { return [object] }
        return value.flatMap(NSManagedObject.toManyElements)?.compactMap { $0 as? NSManagedObject } ?? []
    }
}

extension NSMigrationManager {
    /// A mapping expression's value for one source instance.
    func evaluate(_ expression: NSExpression, source: NSManagedObject?, destination: NSManagedObject?, mapping: NSEntityMapping?,
                  property: NSPropertyMapping?, policy: NSEntityMigrationPolicy?) throws -> Any? {
        try checkCancelled()
        var bindings: [String: Any] = [NSMigrationManagerKey: self]
        bindings[NSMigrationSourceObjectKey] = source
        bindings[NSMigrationDestinationObjectKey] = destination
        bindings[NSMigrationEntityMappingKey] = mapping
        bindings[NSMigrationPropertyMappingKey] = property
        bindings[NSMigrationEntityPolicyKey] = policy
        return try MigrationExpression(manager: self, policy: policy, bindings: bindings).value(expression.node)
    }

    /// `FUNCTION($manager, "selector", arguments…)`: the manager's methods Xcode's mapping models call.
    func perform(function selector: String, arguments: [Any?]) throws -> Any? {
        func string(_ i: Int) -> String? { i < arguments.count ? arguments[i] as? String : nil }
        switch selector {
        case "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
            return MigrationExpression.objects(in: arguments.count > 1 ? arguments[1] : nil).flatMap { associations.destinations(of: $0) }
        case "destinationInstancesForEntityMappingNamed:sourceInstances:":
            return destinationInstances(forEntityMappingName: string(0) ?? "", sourceInstances: MigrationExpression.objects(in: arguments.count > 1 ? arguments[1] : nil))
        case "sourceInstancesForEntityMappingNamed:destinationInstances:":
            return sourceInstances(forEntityMappingName: string(0) ?? "", destinationInstances: MigrationExpression.objects(in: arguments.count > 1 ? arguments[1] : nil))
        case "fetchRequestForSourceEntityNamed:predicateString:":
            guard let name = string(0), sourceModel.entitiesByName[name] != nil else {
                throw CoreDataError(NSMigrationError, "fetchRequestForSourceEntityNamed: the source model has no entity \(string(0) ?? "(none)")")
            }
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: name)
            request.includesSubentities = false
            if let format = string(1) { request.predicate = try NSPredicate(validatingFormat: format) }
            return request
        default:
            throw CoreDataError(NSMigrationError, "FUNCTION($manager, \"\(selector)\") names no method of NSMigrationManager that mapping models call.")
        }
    }

    /// Throws the error given to ``cancelMigrationWithError(_:)``.
    func checkCancelled() throws {
        if let cancellation { throw cancellation }
    }
}
