import Foundation
import OpenCoreData

/// What `--fetch ENTITY [--where FORMAT] [--sort KEY]… [--limit N]` asks for.
package struct FetchOptions: Equatable, Sendable {
    package var entity: String
    /// An `NSPredicate` format string, without arguments (values written in it).
    package var predicate: String?
    /// Sort keys (key paths), in order; a leading `-` sorts that key descending.
    package var sort: [String]
    package var limit: Int?

    package init(entity: String, predicate: String? = nil, sort: [String] = [], limit: Int? = nil) {
        self.entity = entity
        self.predicate = predicate
        self.sort = sort
        self.limit = limit
    }

    /// The sort descriptors: `name` ascending, `-name` descending.
    func sortDescriptors() throws(InspectorError) -> [NSSortDescriptor] {
        try sort.map { key throws(InspectorError) in
            let descending = key.hasPrefix("-")
            let path = descending ? String(key.dropFirst()) : key
            guard !path.isEmpty else { throw .request("--sort: \"\(key)\" names no key (write KEY, or -KEY for descending)") }
            return NSSortDescriptor(key: path, ascending: !descending)
        }
    }
}

/// The objects a fetch found, as cells: one column per stored attribute and relationship of the entity.
package struct FetchedRows {
    package let entity: String
    package let versionName: String
    package let predicate: NSPredicate?
    package let sortDescriptors: [NSSortDescriptor]
    /// `objectID` first, then the entity's properties in the model's order.
    package let columns: [String]
    package let rows: [[Cell]]

    /// Fetches through the Core Data API: an `NSPersistentContainer` on the store with the model version
    /// that matches it (else the current version), the store added with `NSReadOnlyPersistentStoreOption`,
    /// then an `NSFetchRequest` with `NSPredicate(format:)` and `NSSortDescriptor`s on a background context.
    /// Every entity's class is set to `NSManagedObject`: the app's classes are not here, and values are
    /// read with `value(forKey:)`.
    package init(store: StoreSummary, comparison: ModelComparison, options: FetchOptions) throws(InspectorError) {
        let version = comparison.matching ?? comparison.versions.first { $0.name == comparison.currentName } ?? comparison.versions[0]
        guard let entity = version.model.entitiesByName[options.entity] else {
            let names = version.model.entities.compactMap(\.name).sorted().joined(separator: ", ")
            throw .request("unknown entity \"\(options.entity)\": model version \"\(version.name)\" has \(names)")
        }
        let request = NSFetchRequest<NSManagedObject>(entityName: options.entity)
        if let format = options.predicate {
            do {
                request.predicate = try NSPredicate(validatingFormat: format)
            } catch {
                throw .request("--where: \(error)")
            }
        }
        request.sortDescriptors = try options.sortDescriptors()
        if let limit = options.limit { request.fetchLimit = limit }
        self.entity = options.entity
        versionName = version.name
        predicate = request.predicate
        sortDescriptors = request.sortDescriptors ?? []
        let properties = entity.properties.filter { ($0 is NSAttributeDescription || $0 is NSRelationshipDescription) && !$0.isTransient }
        columns = ["objectID"] + properties.map(\.name)
        rows = try Self.fetch(request, store: store.path, model: version.model, properties: properties)
    }

    private static func fetch(_ request: NSFetchRequest<NSManagedObject>, store path: String, model: NSManagedObjectModel,
                              properties: [NSPropertyDescription]) throws(InspectorError) -> [[Cell]] {
        for entity in model.entities { entity.managedObjectClassName = "NSManagedObject" }
        let container = NSPersistentContainer(name: "ocd-store", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: path))
        description.setOption(NSNumber(value: true), forKey: NSReadOnlyPersistentStoreOption)
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw .openRefused(path, Self.describe(loadError)) }
        defer { for store in container.persistentStoreCoordinator.persistentStores { try? container.persistentStoreCoordinator.remove(store) } }
        let context = container.newBackgroundContext()
        let result = context.performAndWait { () -> Result<[[Cell]], InspectorError> in
            do {
                let objects = try context.fetch(request)
                return .success(objects.map { object in [.object(Cell.id(object))] + properties.map { Cell($0, of: object) } })
            } catch {
                return .failure(.request("the fetch failed: \(Self.describe(error))"))
            }
        }
        return try result.get()
    }

    /// An error with its Core Data code (`CoreDataError` is an `NSError` in `NSCocoaErrorDomain`).
    static func describe(_ error: Error) -> String {
        let ns = error as NSError
        return ns.domain == NSCocoaErrorDomain ? "\(error) (Core Data error \(ns.code))" : "\(error)"
    }
}
