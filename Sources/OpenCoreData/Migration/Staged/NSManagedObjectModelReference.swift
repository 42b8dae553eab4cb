import Foundation

/// Mirrors Core Data's `NSManagedObjectModelReference`: a model version a staged migration names, with
/// its `versionChecksum`. A reference whose model cannot be found, or whose checksum is not its model's,
/// makes the migration that uses it fail with `NSMigrationError` naming it (Core Data raises).
open class NSManagedObjectModelReference: NSObject, @unchecked Sendable {
    /// Mirrors `versionChecksum`: the checksum the app gave.
    public let versionChecksum: String
    private let model: NSManagedObjectModel?
    /// Why the model could not be found.
    let failure: String?

    /// Mirrors `resolvedModel`: the model referred to (an empty model when it could not be found; the
    /// migration then fails, naming why).
    public var resolvedModel: NSManagedObjectModel { model ?? NSManagedObjectModel() }

    /// Mirrors `init(model:versionChecksum:)`.
    public init(model: NSManagedObjectModel, versionChecksum: String) {
        self.versionChecksum = versionChecksum
        self.model = model
        self.failure = model.versionChecksum == versionChecksum ? nil
            : "the model given has the checksum \(model.versionChecksum), not \(versionChecksum)"
        super.init()
    }

    /// Mirrors `init(fileURL:versionChecksum:)`: the model file at `fileURL` (a `.xcdatamodeld`, whose
    /// version with that checksum is taken, a `.xcdatamodel`, `.momd` or `.mom`).
    public convenience init(fileURL: URL, versionChecksum: String) {
        do {
            let read = try NSManagedObjectModel(validatingContentsOf: fileURL)
            self.init(versionChecksum, Self.version(of: read, checksum: versionChecksum), where: fileURL.path)
        } catch {
            self.init(versionChecksum, nil, where: "\(fileURL.path) (\(error))")
        }
    }

    /// Mirrors `init(name:in:versionChecksum:)`: the version with that checksum of the model `name` in the
    /// bundle (the main bundle for `nil`).
    public convenience init(name: String, in bundle: Bundle?, versionChecksum: String) {
        let folders = ModelBundleLookup.modelFolders(in: [bundle ?? .main])
            .filter { $0.deletingPathExtension().lastPathComponent == name }
        let model = folders.lazy.compactMap { try? NSManagedObjectModel(validatingContentsOf: $0) }
            .compactMap { Self.version(of: $0, checksum: versionChecksum) }.first
        self.init(versionChecksum, model, where: "model \(name) of \((bundle ?? .main).bundlePath)")
    }

    /// Mirrors `init(name:inBundle:versionChecksum:)`, the older spelling of ``init(name:in:versionChecksum:)``.
    public convenience init(name: String, inBundle bundle: Bundle?, versionChecksum: String) {
        self.init(name: name, in: bundle, versionChecksum: versionChecksum)
    }

    /// Mirrors `init(entityVersionHashes:in:versionChecksum:)`: the model version in the bundle whose
    /// entities have exactly these version hashes (a store's `NSStoreModelVersionHashes`).
    public convenience init(entityVersionHashes: [AnyHashable: Any], in bundle: Bundle?, versionChecksum: String) {
        var hashes: [String: Any] = [:]
        for (key, value) in entityVersionHashes { if let key = key as? String { hashes[key] = value } }
        let model = NSManagedObjectModel.mergedModel(from: [bundle ?? .main], forStoreMetadata: [NSStoreModelVersionHashesKey: hashes])
        self.init(versionChecksum, model, where: "the models of \((bundle ?? .main).bundlePath) (by entity version hashes)")
    }

    /// Mirrors `init(entityVersionHashes:inBundle:versionChecksum:)`, the older spelling.
    public convenience init(entityVersionHashes: [AnyHashable: Any], inBundle bundle: Bundle?, versionChecksum: String) {
        self.init(entityVersionHashes: entityVersionHashes, in: bundle, versionChecksum: versionChecksum)
    }

    private init(_ checksum: String, _ model: NSManagedObjectModel?, where place: String) {
        self.versionChecksum = checksum
        self.model = model
        self.failure = model == nil ? "no model with the checksum \(checksum) in \(place)"
            : model!.versionChecksum == checksum ? nil : "the model in \(place) has the checksum \(model!.versionChecksum), not \(checksum)"
        super.init()
    }

    /// The version of a model read from a file whose checksum is `checksum` (the model itself, or one of
    /// its `.xcdatamodeld` versions).
    static func version(of model: NSManagedObjectModel, checksum: String) -> NSManagedObjectModel? {
        ([model] + model.versions).first { $0.versionChecksum == checksum }
    }

    /// The model, or `NSMigrationError` saying why there is none.
    func model(for stage: NSMigrationStage) throws -> NSManagedObjectModel {
        guard let model, failure == nil else {
            throw CoreDataError(NSMigrationError, "The migration stage \(stage.label ?? "(no label)") names a model that cannot be used: \(failure ?? "")")
        }
        return model
    }
}
