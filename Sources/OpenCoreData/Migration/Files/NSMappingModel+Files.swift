import Foundation

/// Reading Xcode's mapping model files (`.xcmappingmodel` folders) without Xcode's mapping model compiler
/// (docs/Migration.md, "Mapping model files").
extension NSMappingModel {
    /// Mirrors `init?(contentsOf:)`: the mapping model in an Xcode `.xcmappingmodel` folder (its
    /// `xcmapping.xml`), read as Xcode's compiler reads it; `nil` for anything else or a file that does not
    /// read, as Core Data returns `nil` (``init(validatingContentsOf:)`` says why).
    ///
    /// Differences from Core Data: Core Data reads the compiled `.cdm` Xcode makes of the folder; a `.cdm`
    /// is not read here (there is no sample of the format to establish it). The two model versions the file
    /// names (`sourcemodelpath`, `destinationmodelpath`, relative to the Xcode project) must be found in a
    /// folder enclosing the mapping model, whole or by their last path components
    /// (`Model.xcdatamodeld/Model 2.xcdatamodel` beside it in a bundle): the entities' version hashes and the
    /// generated expressions come from them, as the compiler takes them.
    public convenience init?(contentsOf url: URL?) {
        guard let url else { return nil }
        do {
            try self.init(validatingContentsOf: url)
        } catch {
            modelLogger.error("NSMappingModel(contentsOf:): \(error)")
            return nil
        }
    }

    /// Mirrors `init?(contentsOfURL:)`, the older spelling of ``init(contentsOf:)``.
    public convenience init?(contentsOfURL url: URL?) {
        self.init(contentsOf: url)
    }

    /// Not in Core Data: as ``init(contentsOf:)``, but throws a ``ModelFileError`` naming the file, the
    /// line and column and the object at fault (not XML, no mapping model object, an entity the model
    /// versions lack, an archived expression that does not decode, a model version not found…).
    public convenience init(validatingContentsOf url: URL) throws {
        let model = try MappingModelFileReader.read(url)
        self.init()
        entityMappings = model.entityMappings
    }

    /// Mirrors `init?(from:forSourceModel:destinationModel:)`: the mapping model, among those in the
    /// bundles (the main bundle for `nil`), whose entity mappings' source and destination entity version
    /// hashes are those of the two models' entities; `nil` when there is none (or a model is `nil`).
    /// Bundles are searched through their resource folders and every folder below (model folders
    /// excepted), in path order; a mapping model that does not read is skipped (the reason is logged).
    public convenience init?(from bundles: [Bundle]?, forSourceModel sourceModel: NSManagedObjectModel?,
                             destinationModel: NSManagedObjectModel?) {
        guard let sourceModel, let destinationModel,
              let found = MappingModelBundleLookup.mappingModel(in: bundles ?? [Bundle.main], from: sourceModel, to: destinationModel) else {
            return nil
        }
        self.init()
        entityMappings = found.entityMappings
    }

    /// Mirrors `init?(fromBundles:forSourceModel:destinationModel:)`, the older spelling of
    /// ``init(from:forSourceModel:destinationModel:)``.
    public convenience init?(fromBundles bundles: [Bundle]?, forSourceModel sourceModel: NSManagedObjectModel?,
                             destinationModel: NSManagedObjectModel?) {
        self.init(from: bundles, forSourceModel: sourceModel, destinationModel: destinationModel)
    }
}

/// Where mapping models are found: the `.xcmappingmodel` folders anywhere in bundles' resources.
enum MappingModelBundleLookup {
    /// The first mapping model (in path order) that maps `source` to `destination`.
    static func mappingModel(in bundles: [Bundle], from source: NSManagedObjectModel, to destination: NSManagedObjectModel) -> NSMappingModel? {
        var seen = Set<String>()
        let folders = bundles.flatMap { ModelBundleLookup.resourceFolders(of: $0) }.flatMap { mappingFolders(in: $0) }
            .filter { seen.insert($0.path).inserted }
        for folder in folders {
            do {
                let model = try MappingModelFileReader.read(folder)
                if matches(model, source, destination) { return model }
            } catch {
                modelLogger.error("NSMappingModel(from:forSourceModel:destinationModel:): skipped \(error)")
            }
        }
        return nil
    }

    /// Every entity mapping's entities have the two models' version hashes (and there is one at least).
    static func matches(_ mapping: NSMappingModel, _ source: NSManagedObjectModel, _ destination: NSManagedObjectModel) -> Bool {
        let mappings = mapping.entityMappings ?? []
        return !mappings.isEmpty && mappings.allSatisfy { m in
            m.sourceEntityName.map { source.entitiesByName[$0]?.versionHash == m.sourceEntityVersionHash } ?? true
                && m.destinationEntityName.map { destination.entitiesByName[$0]?.versionHash == m.destinationEntityVersionHash } ?? true
        }
    }

    /// The `.xcmappingmodel` folders in `folder` and below, sorted by path; model folders are not entered.
    static func mappingFolders(in folder: URL) -> [URL] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isDirectoryKey]) else { return [] }
        var found: [URL] = []
        for case let url as URL in walker {
            switch url.pathExtension {
            case "xcmappingmodel":
                found.append(url.standardizedFileURL)
                walker.skipDescendants()
            case "xcdatamodeld", "xcdatamodel", "momd":
                walker.skipDescendants()
            default:
                break
            }
        }
        return found.sorted { $0.path < $1.path }
    }
}
