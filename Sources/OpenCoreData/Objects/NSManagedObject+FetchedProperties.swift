import Foundation
import OpenCoreDataPredicates

extension NSManagedObject {
    /// The value of a fetched property (``NSFetchedPropertyDescription``), as Core Data gives it: an array,
    /// fetched when the property is first read, with the request's `$FETCH_SOURCE` bound to this object and
    /// `$FETCHED_PROPERTY` to the description (the variable itself; `$FETCH_SOURCE.key` is read from the object). The array is kept until the object is refreshed
    /// (``NSManagedObjectContext/refresh(_:mergeChanges:)``, `refreshAllObjects()`), so later saves do not
    /// change it, as in Core Data.
    func fetchedValue(_ property: NSFetchedPropertyDescription) throws -> [Any] {
        if let cached = existingExtras?.fetchedValues[property.name] { return cached }
        let name = "fetched property \(property.name) of entity \(entity.name ?? "?")"
        guard let template = property.fetchRequest else { throw CoreDataError(NSCoreDataError, "\(name) has no fetch request") }
        guard let context = managedObjectContext else { throw CoreDataError(NSCoreDataError, "\(name) was read on an object in no context") }
        let request = template.copiedTemplate()
        if let predicate = template.predicate {
            let resolved = NSPredicate(node: readingSourceKeys(predicate.node))
            request.predicate = resolved.withSubstitutionVariables(["FETCH_SOURCE": self, "FETCHED_PROPERTY": property])
        }
        let results = try context.fetch(request)
        extras.fetchedValues[property.name] = results
        return results
    }

    /// `predicate` with each `$FETCH_SOURCE.key` replaced by this object's value for the key (a store
    /// compares constants; the variable alone becomes the object when substituted).
    private func readingSourceKeys(_ node: PredicateNode) -> PredicateNode {
        switch node {
        case .comparison(var c):
            c.left = readingSourceKeys(c.left)
            c.right = readingSourceKeys(c.right)
            return .comparison(c)
        case .and(let parts): return .and(parts.map(readingSourceKeys))
        case .or(let parts): return .or(parts.map(readingSourceKeys))
        case .not(let part): return .not(readingSourceKeys(part))
        case .constant, .block: return node
        }
    }

    private func readingSourceKeys(_ node: ExpressionNode) -> ExpressionNode {
        switch node {
        case .member(.variable("FETCH_SOURCE"), let path): return .constant(Value(any: value(forKeyPath: path)))
        case .function(let name, let args): return .function(name, args.map(readingSourceKeys))
        case .aggregate(let items): return .aggregate(items.map(readingSourceKeys))
        default: return node
        }
    }

    /// Forgets the arrays of fetched properties read so far: the next read fetches again.
    func forgetFetchedValues() {
        existingExtras?.fetchedValues.removeAll()
    }
}
