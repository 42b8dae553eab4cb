import Foundation

/// Reading and writing Xcode's model format — the `.xcdatamodeld` / `.xcdatamodel` folders Xcode edits —
/// without Xcode or its model compiler (docs/ModelFiles.md).
extension NSManagedObjectModel {
    /// Not in Core Data: as ``init(contentsOf:)``, but throws a ``ModelFileError`` naming the file, the
    /// line and column, and the element at fault (a malformed `contents` file, an unknown `attributeType`,
    /// a relationship to a missing entity, a `parentEntity` cycle, a `.xccurrentversion` naming a missing
    /// version…; in a compiled model, the entity and property, such as `entity Book, attribute title`). Reading checks what the file names; the rest (names, inverse pairs) is checked when a
    /// coordinator loads the model, as for a model built in code.
    public convenience init(validatingContentsOf url: URL) throws {
        self.init()
        try ModelFileReader.read(url, into: self)
    }

    /// Not in Core Data: every version of the `.xcdatamodeld` (or compiled `.momd`) this model was read
    /// from, in version order (`Zoo`, `Zoo 2`, … `Zoo 10`), this model (the current version) among them.
    /// Empty for a model built in code or read from a lone `.xcdatamodel` or `.mom`; another version's own
    /// `versions` lists only itself. For migration: each version is a complete model.
    public var versions: [NSManagedObjectModel] {
        guard fileVersionName != nil else { return [] }
        return (Array(otherVersions.values) + [self])
            .sorted { ($0.versionName ?? "").compare($1.versionName ?? "", options: .numeric) == .orderedAscending }
    }

    /// Not in Core Data: the model's version name in the `.xcdatamodeld` (or `.momd`) it was read from
    /// (`"Zoo 2"`, the `.xcdatamodel` folder's or `.mom` file's name without extension); `nil` otherwise.
    public var versionName: String? { fileVersionName }

    /// Not in Core Data: reads a model from the text of a `contents` file; `file` only names the source
    /// in errors.
    public convenience init(modelFileContents data: Data, file: URL = URL(fileURLWithPath: "contents")) throws {
        self.init()
        try ModelContentsDecoder(file: file).decode(data, into: self)
    }

    /// Not in Core Data: writes the model in Xcode's format. A URL ending in `.xcdatamodel` gets that folder
    /// with its `contents` file; one ending in `.xcdatamodeld` gets a versioned folder holding
    /// `Name.xcdatamodel` and a `.xccurrentversion` naming it. Existing files are replaced. Reading the
    /// folder back gives an equal model.
    ///
    /// Throws a ``ModelFileError`` naming the element when the model holds something the format cannot
    /// (a default value of binary data, a validation predicate other than a minimum, maximum or pattern,
    /// a `userInfo` value that is not a string, an entity or property without a name…).
    public func write(to url: URL) throws {
        let url = url.standardizedFileURL
        let folder: URL
        switch url.pathExtension {
        case "xcdatamodel": folder = url
        case "xcdatamodeld":
            let name = url.deletingPathExtension().lastPathComponent
            folder = url.appendingPathComponent(name + ".xcdatamodel")
        default:
            throw ModelFileError(file: url, reason: "a model is written to a .xcdatamodel or .xcdatamodeld folder")
        }
        let contents = folder.appendingPathComponent("contents")
        let data = try ModelContentsEncoder(file: contents).encode(self)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try data.write(to: contents, options: .atomic)
            if url.pathExtension == "xcdatamodeld" {
                try ModelContentsEncoder.currentVersionPlist(folder.lastPathComponent)
                    .write(to: url.appendingPathComponent(".xccurrentversion"), options: .atomic)
            }
        } catch {
            throw ModelFileError(file: contents, reason: "cannot write (\(error.localizedDescription))")
        }
    }

    /// Not in Core Data: the model's `contents` XML, as ``write(to:)`` writes it.
    public func modelFileContents() throws -> Data {
        try ModelContentsEncoder(file: URL(fileURLWithPath: "contents")).encode(self)
    }
}
