import Foundation

extension NSMigrationManager {
    /// Mirrors `migrateStore(from:type:options:mapping:to:type:options:)`: migrates the store at
    /// `sourceURL` (of ``sourceModel``) into a new store at `destinationURL` (of ``destinationModel``) by
    /// `mapping`. The source is opened read-only and left as it was. The destination must not exist yet;
    /// if the migration fails or is cancelled, it is removed and nothing is left there.
    public func migrateStore(from sourceURL: URL, type sourceType: NSPersistentStore.StoreType, options sourceOptions: [AnyHashable: Any]? = nil,
                             mapping: NSMappingModel, to destinationURL: URL, type destinationType: NSPersistentStore.StoreType,
                             options destinationOptions: [AnyHashable: Any]? = nil) throws {
        try migrateStore(from: sourceURL, sourceType: sourceType.rawValue, options: sourceOptions, with: mapping,
                         toDestinationURL: destinationURL, destinationType: destinationType.rawValue, destinationOptions: destinationOptions)
    }

    /// Mirrors `migrateStore(from:sourceType:options:with:toDestinationURL:destinationType:destinationOptions:)`,
    /// the older spelling. A `nil` mapping is the one Core Data infers between the two models.
    public func migrateStore(from sourceURL: URL, sourceType: String, options sourceOptions: [AnyHashable: Any]?,
                               with mapping: NSMappingModel?, toDestinationURL destinationURL: URL, destinationType: String,
                               destinationOptions: [AnyHashable: Any]?) throws {
        let mapping = try mapping ?? NSMappingModel.inferredMappingModel(forSourceModel: sourceModel, destinationModel: destinationModel)
        reset()
        mappingModel = mapping
        if FileManager.default.fileExists(atPath: destinationURL.path) {
            throw CoreDataError(NSMigrationManagerDestinationStoreError,
                                "The migration's destination \(destinationURL.path) exists already; migrate into a new file.",
                                userInfo: [NSFilePathErrorKey: destinationURL.path])
        }
        let source = try NSPersistentStoreCoordinator(validatingModel: sourceModel)
        let destination = try NSPersistentStoreCoordinator(validatingModel: destinationModel)
        defer {
            for store in source.persistentStores { try? source.remove(store) }
            for store in destination.persistentStores { try? destination.remove(store) }
        }
        do {
            try addStores(source, sourceURL, sourceType, sourceOptions, destination, destinationURL, destinationType, destinationOptions)
            try runPasses(mapping)
            try saveDestination()
        } catch {
            sourceContext.reset()
            destinationContext.reset()
            for store in destination.persistentStores { try? destination.remove(store) }
            try? destination.destroyPersistentStore(at: destinationURL, ofType: destinationType == NSInMemoryStoreType ? NSSQLiteStoreType : destinationType)
            throw error
        }
        migrationProgress = 1
    }

    private func addStores(_ source: NSPersistentStoreCoordinator, _ sourceURL: URL, _ sourceType: String, _ sourceOptions: [AnyHashable: Any]?,
                           _ destination: NSPersistentStoreCoordinator, _ destinationURL: URL, _ destinationType: String,
                           _ destinationOptions: [AnyHashable: Any]?) throws {
        var readOnly = sourceOptions ?? [:]
        readOnly[NSReadOnlyPersistentStoreOption] = true
        do {
            try source.addPersistentStore(ofType: sourceType, configurationName: nil, at: sourceURL, options: readOnly)
        } catch {
            throw CoreDataError(NSMigrationManagerSourceStoreError, "The migration's source store \(sourceURL.path) cannot be opened with the source model: \(error.localizedDescription)",
                                userInfo: [NSFilePathErrorKey: sourceURL.path, NSUnderlyingErrorKey: error])
        }
        do {
            try destination.addPersistentStore(ofType: destinationType, configurationName: nil, at: destinationURL, options: destinationOptions)
        } catch {
            throw CoreDataError(NSMigrationManagerDestinationStoreError, "The migration's destination store \(destinationURL.path) cannot be made: \(error.localizedDescription)",
                                userInfo: [NSFilePathErrorKey: destinationURL.path, NSUnderlyingErrorKey: error])
        }
        sourceContext.persistentStoreCoordinator = source
        destinationContext.persistentStoreCoordinator = destination
    }

    /// The three passes over the entity mappings: instances, relationships, validation.
    private func runPasses(_ mapping: NSMappingModel) throws {
        let mappings = mapping.entityMappings ?? []
        let sources = try mappings.map { try sourceInstances(of: $0) }
        let policies = try mappings.map { try policy(for: $0) }
        let steps = Float(max(1, sources.reduce(0) { $0 + $1.count } * 2 + mappings.count))
        var done: Float = 0
        func step() throws {
            try checkCancelled()
            done += 1
            migrationProgress = min(done / steps, 0.99)
        }
        for (index, entityMapping) in mappings.enumerated() {
            currentEntityMapping = entityMapping
            try policies[index].begin(entityMapping, with: self)
            for instance in sources[index] {
                try policies[index].createDestinationInstances(forSource: instance, in: entityMapping, manager: self)
                try step()
            }
            try policies[index].endInstanceCreation(forMapping: entityMapping, manager: self)
        }
        for (index, entityMapping) in mappings.enumerated() {
            currentEntityMapping = entityMapping
            for instance in destinationInstances(forEntityMappingName: entityMapping.name ?? "", sourceInstances: nil) {
                try policies[index].createRelationships(forDestination: instance, in: entityMapping, manager: self)
                try step()
            }
            try policies[index].endRelationshipCreation(forMapping: entityMapping, manager: self)
        }
        for (index, entityMapping) in mappings.enumerated() {
            currentEntityMapping = entityMapping
            try policies[index].performCustomValidation(forMapping: entityMapping, manager: self)
            try policies[index].end(entityMapping, manager: self)
            try step()
        }
    }

    /// The instances an entity mapping migrates: its source expression's (a fetch of the source entity,
    /// without subentities, which have mappings of their own); none for an added or removed entity.
    private func sourceInstances(of mapping: NSEntityMapping) throws -> [NSManagedObject] {
        switch mapping.mappingType {
        case .copyEntityMappingType, .transformEntityMappingType, .customEntityMappingType: break
        default: return []
        }
        guard let name = mapping.sourceEntityName, sourceModel.entitiesByName[name] != nil else {
            throw CoreDataError(NSMigrationError, "The entity mapping \(mapping.name ?? "?") names the source entity \(mapping.sourceEntityName ?? "(none)"), which the source model does not have.")
        }
        guard let expression = mapping.sourceExpression else {
            let request = NSFetchRequest<NSManagedObject>(entityName: name)
            request.includesSubentities = false
            return try sourceContext.fetch(request)
        }
        let value = try evaluate(expression, source: nil, destination: nil, mapping: mapping, property: nil, policy: nil)
        return MigrationExpression.objects(in: value)
    }

    /// The policy an entity mapping names (`entityMigrationPolicyClassName`), or the default one.
    private func policy(for mapping: NSEntityMapping) throws -> NSEntityMigrationPolicy {
        guard let name = mapping.entityMigrationPolicyClassName, !name.isEmpty, name != "NSEntityMigrationPolicy" else {
            return NSEntityMigrationPolicy()
        }
        guard let policyClass = NSClassFromString(name) as? NSEntityMigrationPolicy.Type else {
            throw CoreDataError(NSEntityMigrationPolicyError,
                                "The entity mapping \(mapping.name ?? "?") names the migration policy class \(name), which is not an NSEntityMigrationPolicy subclass this program has (on Linux give the module-qualified name, MyApp.\(name.split(separator: ".").last ?? ""))")
        }
        return policyClass.init()
    }

    /// Saves the destination context; a failure (validation of the migrated objects) is the migration's.
    private func saveDestination() throws {
        try checkCancelled()
        do {
            try destinationContext.save()
        } catch {
            throw CoreDataError(NSMigrationError, "The migrated objects cannot be saved: \(error.localizedDescription)",
                                userInfo: [NSUnderlyingErrorKey: error])
        }
    }
}
