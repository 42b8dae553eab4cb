import Foundation

/// Fetch request templates (a model file's `fetchRequest` elements) and configurations (its
/// `configuration` elements), as Core Data's `NSManagedObjectModel` keeps them.
extension NSManagedObjectModel {
    /// Mirrors `fetchRequestTemplatesByName`.
    public var fetchRequestTemplatesByName: [String: NSFetchRequest<NSFetchRequestResult>] { fetchRequestTemplates }

    /// Mirrors `fetchRequestTemplate(forName:)`: the stored template itself, its `$VARIABLES` unreplaced.
    /// Core Data's template is immutable; change a copy (``fetchRequestFromTemplate(withName:substitutionVariables:)``).
    public func fetchRequestTemplate(forName name: String) -> NSFetchRequest<NSFetchRequestResult>? {
        fetchRequestTemplates[name]
    }

    /// Mirrors `fetchRequestFromTemplate(withName:substitutionVariables:)`: a new request like the
    /// template whose predicate has each `$VARIABLE` replaced by its value in `variables` (a variable
    /// without a value stays, as on Darwin, and fails the fetch). `nil` when there is no such template.
    ///
    /// The result is an `NSFetchRequest<NSFetchRequestResult>`, as in Core Data; on Linux a Swift generic
    /// class does not cast to `NSFetchRequest<Animal>`, so fetch it as it is and cast the results
    /// (`try context.fetch(request) as! [Animal]`).
    public func fetchRequestFromTemplate(withName name: String, substitutionVariables variables: [String: Any]) -> NSFetchRequest<NSFetchRequestResult>? {
        guard let template = fetchRequestTemplates[name] else { return nil }
        let request = template.copiedTemplate()
        request.predicate = template.predicate?.withSubstitutionVariables(variables)
        return request
    }

    /// Mirrors `setFetchRequestTemplate(_:forName:)`: stores (or with `nil` removes) a template. Traps once a
    /// coordinator has loaded the model, as Core Data raises for a model in use.
    public func setFetchRequestTemplate(_ fetchRequest: NSFetchRequest<NSFetchRequestResult>?, forName name: String) {
        precondition(!isFrozen, "Can't modify an immutable model: a coordinator has loaded it")
        fetchRequestTemplates[name] = fetchRequest
    }

    /// Mirrors `configurations`: the names of the model's configurations (Core Data's default
    /// configuration, every entity, has no name here).
    public var configurations: [String] { namedConfigurations.map(\.name) }

    /// Mirrors `entities(forConfigurationName:)`: the entities of a configuration; every entity for `nil`
    /// or `"Default"` (`PF_DEFAULT_CONFIGURATION_NAME`); `nil` for a name the model does not have.
    public func entities(forConfigurationName configuration: String?) -> [NSEntityDescription]? {
        guard let configuration, configuration != "Default" || configurations.contains("Default") else { return entities }
        return namedConfigurations.first(where: { $0.name == configuration })?.entities
    }

    /// Mirrors `setEntities(_:forConfigurationName:)`.
    public func setEntities(_ entities: [NSEntityDescription], forConfigurationName configuration: String) {
        precondition(!isFrozen, "Can't modify an immutable model: a coordinator has loaded it")
        if let index = namedConfigurations.firstIndex(where: { $0.name == configuration }) {
            namedConfigurations[index].entities = entities
        } else {
            namedConfigurations.append((configuration, entities))
        }
    }
}

extension NSFetchRequest {
    /// A new request with the template's settings (entity, predicate, sorting, limits, result shape, flags).
    func copiedTemplate() -> NSFetchRequest<ResultType> {
        let copy = NSFetchRequest<ResultType>()
        if let entity { copy.entity = entity } else { copy.entityName = entityName }
        copy.predicate = predicate
        copy.sortDescriptors = sortDescriptors
        copy.fetchLimit = fetchLimit
        copy.fetchOffset = fetchOffset
        copy.fetchBatchSize = fetchBatchSize
        copy.resultType = resultType
        copy.propertiesToFetch = propertiesToFetch
        copy.propertiesToGroupBy = propertiesToGroupBy
        copy.havingPredicate = havingPredicate
        copy.returnsDistinctResults = returnsDistinctResults
        copy.includesSubentities = includesSubentities
        copy.includesPendingChanges = includesPendingChanges
        copy.includesPropertyValues = includesPropertyValues
        copy.returnsObjectsAsFaults = returnsObjectsAsFaults
        copy.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
        copy.shouldRefreshRefetchedObjects = shouldRefreshRefetchedObjects
        return copy
    }
}
