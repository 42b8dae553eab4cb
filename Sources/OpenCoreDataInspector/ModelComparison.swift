import Foundation
import OpenCoreData

/// A store's metadata compared with every version of a model: which version wrote the store, or entity by
/// entity what differs. Core Data decides the same way whether a model opens a store: each entity's
/// version hash (`NSEntityDescription.versionHash`, `NSManagedObjectModel.entityVersionHashesByName`)
/// against the store's `NSStoreModelVersionHashes`.
package struct ModelComparison {
    /// How one entity differs between the store and a model version.
    package enum Difference: Equatable, Sendable {
        /// Both have the entity; its version hashes differ.
        case hashDiffers(entity: String, store: Data, model: Data)
        /// The store records the entity; the model version has no such entity.
        case onlyInStore(String)
        /// The model version has the entity; the store records none.
        case onlyInModel(String)
        /// A store written by OpenCoreData before it recorded Core Data's entity hashes: its one model hash.
        case modelHashDiffers(store: String, model: String)
    }

    /// One version of the model and how it differs from the store (nothing: it matches).
    package struct Version {
        package let name: String
        package let model: NSManagedObjectModel
        package let differences: [Difference]
        package var matches: Bool { differences.isEmpty }
    }

    package let modelPath: String
    /// Every version, in version order (one for a lone `.xcdatamodel`).
    package let versions: [Version]
    /// The version Xcode marks current (`.xccurrentversion`).
    package let currentName: String
    /// True when the store records no entity hashes: only entity names (from `Z_PRIMARYKEY`) were compared.
    package let namesOnly: Bool
    /// True when the store, written by OpenCoreData before it wrote Core Data's metadata, records that
    /// version's one model hash (`NSStoreModelVersionHash`), compared as a whole.
    package let hasFormerModelHash: Bool

    /// The first version that matches the store.
    package var matching: Version? { versions.first(where: \.matches) }

    /// The version with the fewest differences (the current one among equals): the one to show in detail.
    package var closest: Version? {
        versions.min { a, b in
            a.differences.count != b.differences.count ? a.differences.count < b.differences.count : a.name == currentName && b.name != currentName
        }
    }

    /// Reads the model at `modelPath` (an `.xcdatamodeld` with all its versions, or an `.xcdatamodel`) and
    /// compares each version with the store.
    package init(store: StoreSummary, modelPath: String) throws(InspectorError) {
        let model: NSManagedObjectModel
        do {
            model = try NSManagedObjectModel(validatingContentsOf: URL(fileURLWithPath: modelPath))
        } catch {
            throw .modelFile(modelPath, "\(error)")
        }
        self.modelPath = modelPath
        let fallbackName = URL(fileURLWithPath: modelPath).deletingPathExtension().lastPathComponent
        currentName = model.versionName ?? fallbackName
        let models = model.versions.isEmpty ? [model] : model.versions
        namesOnly = store.entityVersionHashes == nil
        hasFormerModelHash = namesOnly && store.metadata["NSStoreModelVersionHash"] is String
        versions = models.map { version in
            Version(name: version.versionName ?? fallbackName, model: version, differences: Self.differences(store, version))
        }
    }

    /// Entity by entity, in name order: hashes that differ, entities on one side only. A store without
    /// entity hashes is compared by entity names and, if it has one, OpenCoreData's former model hash.
    static func differences(_ store: StoreSummary, _ model: NSManagedObjectModel) -> [Difference] {
        let modelHashes = model.entityVersionHashesByName
        let storeNames = store.entityVersionHashes.map { Set($0.keys) } ?? Set(store.entities.map(\.name))
        var result: [Difference] = []
        for name in storeNames.union(modelHashes.keys).sorted() {
            switch (storeNames.contains(name), modelHashes[name]) {
            case (true, nil): result.append(.onlyInStore(name))
            case (false, _): result.append(.onlyInModel(name))
            case (true, let hash?):
                if let stored = store.entityVersionHashes?[name], stored != hash {
                    result.append(.hashDiffers(entity: name, store: stored, model: hash))
                }
            }
        }
        if store.entityVersionHashes == nil, let former = store.metadata["NSStoreModelVersionHash"] as? String, former != model.versionHash {
            result.append(.modelHashDiffers(store: former, model: model.versionHash))
        }
        return result
    }
}
