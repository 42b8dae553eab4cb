import Foundation

/// Reading and writing Xcode's model format — the `.xcdatamodeld` / `.xcdatamodel` folders Xcode edits —
/// without Xcode or its model compiler (docs/ModelFiles.md).
extension NSManagedObjectModel {
    /// Mirrors `init?(contentsOf:)`: the model in a `.xcdatamodeld` folder (its current version) or a
    /// `.xcdatamodel` folder; `nil` for anything else or a model that does not read, as Core Data returns
    /// `nil`. Core Data reads the compiled `.momd`/`.mom` here; we read the source folders Xcode saves
    /// (a compiled model cannot be read). ``init(validatingContentsOf:)`` says why a model does not read.
    public convenience init?(contentsOf url: URL) {
        self.init()
        do {
            try ModelFileReader.read(url, into: self)
        } catch {
            return nil
        }
    }

    /// Not in Core Data: as ``init(contentsOf:)``, but throws a ``ModelFileError`` naming the file, the
    /// line and column, and the element at fault (a malformed `contents` file, an unknown `attributeType`,
    /// a relationship to a missing entity, a `parentEntity` cycle, a `.xccurrentversion` naming a missing
    /// version…). Reading checks what the file names; the rest (names, inverse pairs) is checked when a
    /// coordinator loads the model, as for a model built in code.
    public convenience init(validatingContentsOf url: URL) throws {
        self.init()
        try ModelFileReader.read(url, into: self)
    }

    /// Not in Core Data: every version of the `.xcdatamodeld` this model was read from, in version order
    /// (`Zoo`, `Zoo 2`, … `Zoo 10`), this model (the current version) among them. Empty for a model built
    /// in code or read from a lone `.xcdatamodel`; another version's own `versions` lists only itself. For
    /// migration: each version is a complete model.
    public var versions: [NSManagedObjectModel] {
        guard fileVersionName != nil else { return [] }
        return (Array(otherVersions.values) + [self])
            .sorted { ($0.versionName ?? "").compare($1.versionName ?? "", options: .numeric) == .orderedAscending }
    }

    /// Not in Core Data: the model's version name in the `.xcdatamodeld` it was read from (`"Zoo 2"`,
    /// the `.xcdatamodel` folder's name without extension); `nil` otherwise.
    public var versionName: String? { fileVersionName }

    /// Not in Core Data: reads a model from the text of a `contents` file; `file` only names the source
    /// in errors.
    public convenience init(modelFileContents data: Data, file: URL = URL(fileURLWithPath: "contents")) throws {
        self.init()
        try ModelContentsDecoder(file: file).decode(data, into: self)
    }
}
