import Foundation

/// Mirrors Core Data's `NSMigrationManager`: migrates a store from a source model to a destination model
/// by a mapping model, object by object, into a new store file. Each entity mapping's
/// ``NSEntityMigrationPolicy`` creates the destination instances (first pass), then their relationships
/// (second pass), then validates (third pass); the destination context is saved once, at the end.
///
/// Its contexts (``sourceContext``, ``destinationContext``) are used on the thread that runs
/// `migrateStore`; the source store is opened read-only and is never changed.
open class NSMigrationManager: NSObject, @unchecked Sendable {
    /// Mirrors `sourceModel`.
    open private(set) var sourceModel: NSManagedObjectModel
    /// Mirrors `destinationModel`.
    open private(set) var destinationModel: NSManagedObjectModel
    /// Mirrors `mappingModel`: the mapping of the migration running (or last run).
    open internal(set) var mappingModel = NSMappingModel()
    /// Mirrors `sourceContext`: the context the source instances are fetched into.
    open internal(set) var sourceContext = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
    /// Mirrors `destinationContext`: the context the destination instances are inserted into.
    open internal(set) var destinationContext = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
    /// Mirrors `userInfo`: for the app's policies.
    open var userInfo: [AnyHashable: Any]?
    /// Mirrors `usesStoreSpecificMigrationManager`: kept; a store of another model is migrated by this
    /// manager object by object whatever it says (the SQLite store's own in-place lightweight migration
    /// runs when a store is added with the migration options, docs/Migration.md).
    open var usesStoreSpecificMigrationManager = true
    /// Mirrors `migrationProgress`: from 0 to 1 as the migration runs (the three passes over every entity
    /// mapping's instances).
    open internal(set) var migrationProgress: Float = 0
    /// Mirrors `currentEntityMapping`: the entity mapping being run.
    open internal(set) var currentEntityMapping = NSEntityMapping()

    /// Each source instance's destination instances and back, by entity mapping name.
    var associations = MigrationAssociations()
    /// The error given to ``cancelMigrationWithError(_:)``, thrown at the next step.
    var cancellation: (any Error)?
    /// The policy of each entity mapping of the running migration, by name.
    var policies: [String: NSEntityMigrationPolicy] = [:]

    /// Mirrors `init(sourceModel:destinationModel:)`.
    public init(sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        super.init()
    }

    /// Mirrors `sourceEntity(for:)`: the source model's entity of a mapping.
    open func sourceEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.sourceEntityName.flatMap { sourceModel.entitiesByName[$0] }
    }

    /// Mirrors `destinationEntity(for:)`: the destination model's entity of a mapping.
    open func destinationEntity(for mEntity: NSEntityMapping) -> NSEntityDescription? {
        mEntity.destinationEntityName.flatMap { destinationModel.entitiesByName[$0] }
    }

    /// Mirrors `associate(sourceInstance:withDestinationInstance:for:)`: records that `destination` was
    /// made from `source` by `entityMapping` (what relationships and lookups find later).
    open func associate(sourceInstance: NSManagedObject, withDestinationInstance destination: NSManagedObject,
                        for entityMapping: NSEntityMapping) {
        associations.add(source: sourceInstance, destination: destination, mapping: entityMapping.name ?? "")
    }

    /// Mirrors `destinationInstances(forEntityMappingName:sourceInstances:)`: the instances the mapping made
    /// from `sourceInstances` (every instance it made for `nil`).
    open func destinationInstances(forEntityMappingName mappingName: String, sourceInstances: [NSManagedObject]?) -> [NSManagedObject] {
        associations.destinations(mapping: mappingName, of: sourceInstances)
    }

    /// Mirrors `sourceInstances(forEntityMappingName:destinationInstances:)`: the instances the mapping made
    /// `destinationInstances` from (every source instance it read for `nil`).
    open func sourceInstances(forEntityMappingName mappingName: String, destinationInstances: [NSManagedObject]?) -> [NSManagedObject] {
        associations.sources(mapping: mappingName, of: destinationInstances)
    }

    /// Mirrors `cancelMigrationWithError(_:)`: the running migration stops at its next step and throws
    /// `error`; the destination file is removed and the source is left as it was.
    open func cancelMigrationWithError(_ error: any Error) {
        cancellation = error
    }

    /// Mirrors `reset()`: forgets the associations and the contexts' objects of the last migration.
    open func reset() {
        associations = MigrationAssociations()
        policies = [:]
        sourceContext = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        destinationContext = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        migrationProgress = 0
        cancellation = nil
    }
}

/// Which destination instances each entity mapping made from which source instances.
struct MigrationAssociations {
    private var forward: [String: [ObjectIdentifier: [NSManagedObject]]] = [:]
    private var backward: [String: [ObjectIdentifier: [NSManagedObject]]] = [:]
    /// The mappings' sources and destinations in the order they were associated.
    private var sourcesInOrder: [String: [NSManagedObject]] = [:]
    private var destinationsInOrder: [String: [NSManagedObject]] = [:]
    /// Destination instances of a source instance, whatever the mapping (relationships look them up).
    private var anyMapping: [ObjectIdentifier: [NSManagedObject]] = [:]

    mutating func add(source: NSManagedObject, destination: NSManagedObject, mapping: String) {
        let (s, d) = (ObjectIdentifier(source), ObjectIdentifier(destination))
        if forward[mapping]?[s] == nil { sourcesInOrder[mapping, default: []].append(source) }
        if backward[mapping]?[d] == nil { destinationsInOrder[mapping, default: []].append(destination) }
        forward[mapping, default: [:]][s, default: []].append(destination)
        backward[mapping, default: [:]][d, default: []].append(source)
        anyMapping[s, default: []].append(destination)
    }

    func destinations(mapping: String, of sources: [NSManagedObject]?) -> [NSManagedObject] {
        guard let sources else { return destinationsInOrder[mapping] ?? [] }
        return sources.flatMap { forward[mapping]?[ObjectIdentifier($0)] ?? [] }
    }

    func sources(mapping: String, of destinations: [NSManagedObject]?) -> [NSManagedObject] {
        guard let destinations else { return sourcesInOrder[mapping] ?? [] }
        return destinations.flatMap { backward[mapping]?[ObjectIdentifier($0)] ?? [] }
    }

    /// The destination instances made from a source instance by any mapping.
    func destinations(of source: NSManagedObject) -> [NSManagedObject] { anyMapping[ObjectIdentifier(source)] ?? [] }
}
