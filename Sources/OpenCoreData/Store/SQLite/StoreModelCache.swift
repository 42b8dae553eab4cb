import Foundation

/// The model a store written by Core Data carries: its `Z_MODELCACHE` row holds the compiled model as raw
/// DEFLATE of the keyed archive a `.mom` file holds (docs/ModelFiles.md, "Compiled models"). Read with a
/// read-only connection; nothing in the store changes.
enum StoreModelCache {
    /// The inflated archive of the store at `url`, or `nil` when the store has no model cache (Core Data
    /// before about 2014 wrote none).
    static func archive(ofStoreAt url: URL) throws -> Data? {
        let connection = try SQLiteConnection(path: url.path, readOnly: true)
        var hasTable = false
        try connection.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'Z_MODELCACHE'") { _ in hasTable = true }
        guard hasTable else { return nil }
        var compressed: Data?
        try connection.query("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1") { row in
            if case .data(let data) = row.value(0, as: .binaryDataAttributeType) { compressed = data }
        }
        guard let compressed else { return nil }
        do {
            return try RawInflate.inflate(compressed)
        } catch {
            throw ModelArchiveError(context: "Z_MODELCACHE", reason: "the model cache does not inflate: \(error)")
        }
    }

    /// The model of the store at `url`, decoded as `NSManagedObjectModel(contentsOf:)` decodes a `.mom`;
    /// `nil` when the store has no model cache.
    static func model(ofStoreAt url: URL) throws -> NSManagedObjectModel? {
        guard let archive = try archive(ofStoreAt: url) else { return nil }
        let model = NSManagedObjectModel()
        try CompiledModelReader.decode(archive, into: model)
        return model
    }
}
