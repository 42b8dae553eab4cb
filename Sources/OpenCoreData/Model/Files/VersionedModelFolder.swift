import Foundation

/// A folder of model versions, source or compiled (`.xcdatamodeld` of `.xcdatamodel`s, `.momd` of
/// `.mom`s), read in Xcode's numeric name order: the current version into the model itself, the others
/// kept in its ``NSManagedObjectModel/versions``.
enum VersionedModelFolder {
    static func read(_ url: URL, versionSuffix suffix: String, into model: NSManagedObjectModel,
                     current: (URL, [String]) throws(ModelFileError) -> String,
                     readVersion: (URL, NSManagedObjectModel) throws(ModelFileError) -> Void) throws(ModelFileError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(suffix) }
                .sorted { $0.dropLast(suffix.count).compare($1.dropLast(suffix.count), options: .numeric) == .orderedAscending }
        } catch {
            throw ModelFileError(file: url, reason: "cannot list the folder (\(error.localizedDescription))")
        }
        guard !names.isEmpty else { throw ModelFileError(file: url, reason: "the folder holds no \(suffix) version") }
        let currentName = try current(url, names)
        for name in names {
            let versionModel = name == currentName ? model : NSManagedObjectModel()
            try readVersion(url.appendingPathComponent(name), versionModel)
            versionModel.fileVersionName = String(name.dropLast(suffix.count))
            versionModel.versionedFolder = url
            if name != currentName { model.otherVersions[versionModel.fileVersionName!] = versionModel }
        }
    }
}
