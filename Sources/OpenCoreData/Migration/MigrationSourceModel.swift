import Foundation

/// Finding the model a store was made with, as Core Data's automatic migration does: among the other
/// versions of the versioned model folder (`.xcdatamodeld`, `.momd`) the destination model was read
/// from, then among the models of `Bundle.allBundles`
/// (``NSManagedObjectModel/mergedModel(from:forStoreMetadata:)``).
enum MigrationSourceModel {
    /// The model whose entity version hashes are the metadata's, or `NSMigrationMissingSourceModelError`
    /// (134130) naming where it looked. `known`, a source model the caller already knows (a staged
    /// migration's current stage model), is tried first.
    static func find(for metadata: [String: Any], destination: NSManagedObjectModel, path: String,
                     known: NSManagedObjectModel? = nil) throws -> NSManagedObjectModel {
        if let known, known.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) { return known }
        var versions = destination.versions.filter { $0 !== destination }
        func match() -> NSManagedObjectModel? {
            versions.sorted { ($0.versionName ?? "").compare($1.versionName ?? "", options: .numeric) == .orderedAscending }
                .first { $0.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) }
        }
        if let found = match() { return found }
        // A version taken from another's `versions` knows its folder, not its siblings: read them.
        if let folder = destination.versionedFolder, let read = try? NSManagedObjectModel(validatingContentsOf: folder) {
            versions = read.versions.filter { $0.versionName != destination.versionName }
            if let found = match() { return found }
        }
        if let match = NSManagedObjectModel.mergedModel(from: Bundle.allBundles, forStoreMetadata: metadata) {
            return match
        }
        let looked = versions.isEmpty ? "the model was not read from a versioned model folder"
            : "versions \(versions.compactMap(\.versionName).joined(separator: ", ")) of its model folder"
        throw CoreDataError(NSMigrationMissingSourceModelError,
                            "Can't find the model for the source store at \(path): no model matches its entity version hashes (looked at \(looked), and the models of Bundle.allBundles); it was left untouched.",
                            userInfo: [NSFilePathErrorKey: path, "metadata": metadata])
    }

    /// A laid-out copy of `model` for reading the store with: every entity's class is `NSManagedObject`,
    /// so the app's classes (which describe the newest version) are not checked against an older one.
    static func layoutCopy(of model: NSManagedObjectModel) throws -> NSManagedObjectModel {
        let copy = try NSManagedObjectModel(modelFileContents: model.modelFileContents())
        for entity in copy.entities {
            entity.managedObjectClassName = "NSManagedObject"
            entity.classModules = []
        }
        try copy.freeze()
        return copy
    }
}
