import Foundation

/// A model against a store's metadata, and models merged into one (Core Data's `isConfiguration(withName:
/// compatibleWithStoreMetadata:)`, `init(byMerging:)` and their metadata forms).
extension NSManagedObjectModel {
    /// The entities whose version hashes differ between this model and a store's metadata, by name, each
    /// marked when only one side has it: what an incompatible-model error names.
    func entitiesDiffering(fromStoreMetadata metadata: [String: Any]) -> [String] {
        let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Any] ?? [:]
        let computed = entityVersionHashesByName
        return Set(stored.keys).union(computed.keys).sorted().filter { (stored[$0] as? Data) != computed[$0] }.map { name in
            stored[name] == nil ? "\(name) (not in the store)" : computed[name] == nil ? "\(name) (not in the model)" : name
        }
    }

    /// Mirrors `isConfiguration(withName:compatibleWithStoreMetadata:)`: whether the metadata's
    /// `NSStoreModelVersionHashes` are this model's entity version hashes, byte for byte.
    ///
    /// Core Data compares every entity of the model whatever the configuration (what its stores record);
    /// so do we, and for a named configuration we also accept metadata that lists exactly that
    /// configuration's entities. `false` when the metadata has no hashes or says they were made by a newer
    /// algorithm (`NSStoreModelVersionHashesVersion` above 3); for an older one (below 3) only the entity
    /// names are compared, as Core Data does, the hashes being of another algorithm.
    public func isConfiguration(withName configuration: String?, compatibleWithStoreMetadata metadata: [String: Any]) -> Bool {
        let algorithm = (metadata[storeModelVersionHashesVersionKey] as? NSNumber)?.intValue
            ?? (metadata[storeModelVersionHashesVersionKey] as? Int)
        if let algorithm, algorithm > 3 { return false }
        guard let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Any] else { return false }
        var candidates = [entities]
        if let configuration, configuration != "PF_DEFAULT_CONFIGURATION_NAME",
           let members = namedConfigurations.first(where: { $0.name == configuration })?.entities {
            candidates.append(members)
        }
        return candidates.contains { members in
            guard members.count == stored.count else { return false }
            return members.allSatisfy { e in
                guard let name = e.name, let hash = stored[name] else { return false }
                if let algorithm, algorithm < 3 { return true }
                return (hash as? Data) == e.versionHash
            }
        }
    }

    /// Mirrors `init(byMerging:)`: one model holding the entities, configurations and fetch request
    /// templates of all the models (copies: the models given are left as they are). `nil` when two models
    /// have an entity or a template of the same name (Core Data raises an exception for two different
    /// entities of one name; it accepts two identical ones, which we refuse too), or when a model holds
    /// what a model file cannot (a block predicate): the copies are made through the model file format.
    public convenience init?(byMerging models: [NSManagedObjectModel]?) {
        self.init()
        do {
            let copies = try (models ?? []).map(Self.fileCopy)
            try ModelBundleLookup.merge(copies, into: self)
        } catch {
            modelLogger.error("init(byMerging:): \(error)")
            return nil
        }
    }

    /// Mirrors `init(byMerging:forStoreMetadata:)`: the models merged as by ``init(byMerging:)``, or `nil`
    /// when the result does not match the metadata's entity version hashes (see
    /// ``isConfiguration(withName:compatibleWithStoreMetadata:)``).
    public convenience init?(byMerging models: [NSManagedObjectModel], forStoreMetadata metadata: [String: Any]) {
        self.init(byMerging: models)
        guard isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) else { return nil }
    }

    /// Mirrors `mergedModel(from:forStoreMetadata:)`: from each model folder at the top level of the bundles
    /// (the main bundle for `nil`), the first version (in version order) whose entity hashes all appear in
    /// the metadata, merged into one; `nil` when the result does not match the metadata exactly. Core
    /// Data looks among the compiled versions of each `.momd`; we among the versions of each
    /// `.xcdatamodeld` (see ``mergedModel(from:)``).
    public class func mergedModel(from bundles: [Bundle]?, forStoreMetadata metadata: [String: Any]) -> NSManagedObjectModel? {
        guard let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Any] else { return nil }
        do {
            var chosen: [NSManagedObjectModel] = []
            for url in ModelBundleLookup.modelFolders(in: bundles ?? [Bundle.main]) {
                let model = try NSManagedObjectModel(validatingContentsOf: url)
                let versions = model.versions.isEmpty ? [model] : model.versions
                if let match = versions.first(where: { $0.entitiesMatch(stored) }) { chosen.append(match) }
            }
            let merged = chosen.count == 1 ? chosen[0] : try ModelBundleLookup.merge(chosen)
            return merged.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) ? merged : nil
        } catch {
            modelLogger.error("mergedModel(from:forStoreMetadata:): \(error)")
            return nil
        }
    }

    /// Whether every entity's hash is among the stored ones.
    private func entitiesMatch(_ stored: [String: Any]) -> Bool {
        entities.allSatisfy { e in e.name.map { (stored[$0] as? Data) == e.versionHash } ?? false }
    }

    /// A copy of the model, made by writing and reading its model file.
    private static func fileCopy(_ model: NSManagedObjectModel) throws -> NSManagedObjectModel {
        let copy = try NSManagedObjectModel(modelFileContents: model.modelFileContents())
        let originals = model.entitiesByName
        for e in copy.entities { e.classModules = originals[e.name ?? ""]?.classModules ?? [] }
        return copy
    }
}
