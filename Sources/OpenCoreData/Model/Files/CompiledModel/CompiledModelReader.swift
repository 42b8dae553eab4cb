import Foundation

/// Reads the models Xcode's model compiler makes: a `.mom` file (one version, a keyed archive of the
/// model) and a `.momd` folder (the versions as `.mom` files, the current one named by its
/// `VersionInfo.plist`). docs/ModelFiles.md, "Compiled models".
enum CompiledModelReader {
    /// Reads the `.mom` file or `.momd` folder at `url` into `model` (empty); for a `.momd`, the current
    /// version, the others kept in ``NSManagedObjectModel/versions``.
    static func read(_ url: URL, isDirectory: Bool, into model: NSManagedObjectModel) throws(ModelFileError) {
        if url.pathExtension == "mom" {
            guard !isDirectory else { throw ModelFileError(file: url, reason: "a .mom must be a file") }
            try readVersion(url, into: model)
            return
        }
        guard isDirectory else { throw ModelFileError(file: url, reason: "a .momd must be a folder") }
        try VersionedModelFolder.read(url, versionSuffix: ".mom", into: model,
                                      current: { (url, names) throws(ModelFileError) in try currentVersion(of: url, among: names) },
                                      readVersion: { (url, version) throws(ModelFileError) in try readVersion(url, into: version) })
    }

    /// One `.mom` file.
    static func readVersion(_ url: URL, into model: NSManagedObjectModel) throws(ModelFileError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ModelFileError(file: url, reason: "cannot read the compiled model (\(error.localizedDescription))")
        }
        do {
            try decode(data, into: model)
        } catch {
            throw ModelFileError(file: url, element: error.context.isEmpty ? nil : error.context, reason: error.reason)
        }
    }

    /// Decodes a compiled model's keyed archive (a `.mom` file's bytes, a store's inflated model cache) into
    /// `model` (empty), as `init?(coder:)` reads it.
    static func decode(_ data: Data, into model: NSManagedObjectModel) throws(ModelArchiveError) {
        let decoder = try ModelArchiveDecoder(archive: data)
        guard let name = decoder.className(at: decoder.rootIndex), ModelArchiveClasses.modelClasses[name] == NSManagedObjectModel.self else {
            throw ModelArchiveError(reason: "the archive holds \(decoder.describeObject(at: decoder.rootIndex)), not an object of class NSManagedObjectModel")
        }
        try decoder.decodeRoot(into: model) { model.decodeModel(from: decoder) }
    }

    /// The `.mom` of the current version: `NSManagedObjectModel_CurrentVersionName` of `VersionInfo.plist`;
    /// without that file, the only version, or the one named like the folder.
    static func currentVersion(of url: URL, among names: [String]) throws(ModelFileError) -> String {
        let file = url.appendingPathComponent("VersionInfo.plist")
        guard let data = try? Data(contentsOf: file) else {
            if names.count == 1 { return names[0] }
            let own = url.deletingPathExtension().lastPathComponent + ".mom"
            if names.contains(own) { return own }
            throw ModelFileError(file: url, reason: "no VersionInfo.plist says which of the \(names.count) versions is current")
        }
        let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        guard let name = plist?["NSManagedObjectModel_CurrentVersionName"] as? String, !name.isEmpty else {
            throw ModelFileError(file: file, reason: "the property list has no NSManagedObjectModel_CurrentVersionName string")
        }
        guard names.contains(name + ".mom") else {
            throw ModelFileError(file: file, reason: "the current version \(name) is not in the folder (versions: \(names.joined(separator: ", ")))")
        }
        return name + ".mom"
    }
}
