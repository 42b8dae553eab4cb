import Foundation

/// Mirrors Core Data's `NSMigrationStage`: the abstract base of a staged migration's stages (use
/// ``NSLightweightMigrationStage`` or ``NSCustomMigrationStage``).
open class NSMigrationStage: NSObject, @unchecked Sendable {
    /// Mirrors `label`: a description of the stage's purpose, for the app's logs and errors.
    open var label: String!
}

/// Mirrors Core Data's `NSLightweightMigrationStage`: model versions, by `versionChecksum`, that a store
/// migrates through by lightweight (inferred) migration. A store at any of them migrates straight to the
/// stage's last version, as Core Data's lightweight migration infers from the store's model to the newest.
open class NSLightweightMigrationStage: NSMigrationStage, @unchecked Sendable {
    /// Mirrors `versionChecksums`.
    public private(set) var versionChecksums: [String] = []

    /// Mirrors `init(_:)`: the stage's model versions, by their `NSManagedObjectModel.versionChecksum`, oldest first.
    public convenience init(_ checksums: [String]) {
        self.init()
        versionChecksums = checksums
    }
}

/// Mirrors Core Data's `NSCustomMigrationStage`: a migration from one model version to the next that the
/// app takes part in. `willMigrateHandler` runs with the store open at ``currentModel`` (through the
/// manager's `container`), the store is then migrated to ``nextModel`` (lightweight), and
/// `didMigrateHandler` runs with it open at the next model.
open class NSCustomMigrationStage: NSMigrationStage, @unchecked Sendable {
    /// Mirrors `currentModel`.
    public private(set) var currentModel: NSManagedObjectModelReference!
    /// Mirrors `nextModel`.
    public private(set) var nextModel: NSManagedObjectModelReference!
    /// Mirrors `willMigrateHandler`: runs before the stage migrates; an error it throws stops the migration
    /// (what it saved stays saved, in the store's current version).
    open var willMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?
    /// Mirrors `didMigrateHandler`: runs after the stage has migrated the store to the next model.
    open var didMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)?

    /// Mirrors `init(migratingFrom:to:)`.
    public convenience init(migratingFrom currentModel: NSManagedObjectModelReference, to nextModel: NSManagedObjectModelReference) {
        self.init()
        self.currentModel = currentModel
        self.nextModel = nextModel
    }
}
