import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// A fixture store (Tests/Fixtures/AppleStores) copied with its `-wal` and `-shm` into a temporary
/// directory: tests open, write and damage the copy, never the fixture.
struct FixtureCopy {
    let pair: VersionHashTests.Pair
    let directory: TemporaryStore
    let url: URL

    init(_ pair: VersionHashTests.Pair) throws {
        self.pair = pair
        directory = TemporaryStore()
        url = directory.directory.appendingPathComponent(pair.store)
        for suffix in ["", "-wal", "-shm"] {
            let source = URL(fileURLWithPath: pair.storeURL.path + suffix)
            if FileManager.default.fileExists(atPath: source.path) {
                try FileManager.default.copyItem(at: source, to: URL(fileURLWithPath: url.path + suffix))
            }
        }
    }

    func cleanUp() { directory.cleanUp() }

    /// The model version that wrote the store (nil when the fixture has no model file), its objects of
    /// class `NSManagedObject` (the test bundle has classes of the same names for other models).
    func model() throws -> NSManagedObjectModel? {
        let model = try VersionHashTests.model(pair.fixture, version: pair.version)
        for entity in model?.entities ?? [] { entity.managedObjectClassName = "NSManagedObject" }
        return model
    }

    /// The bytes of the store and its `-wal` and `-shm` files (empty for a file that is not there).
    var bytes: [Data] {
        ["", "-wal", "-shm"].map { (try? Data(contentsOf: URL(fileURLWithPath: url.path + $0))) ?? Data() }
    }

    /// A coordinator with the store added.
    func coordinator(_ model: NSManagedObjectModel, options: [AnyHashable: Any]? = nil) throws -> NSPersistentStoreCoordinator {
        let coordinator = try NSPersistentStoreCoordinator(validatingModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        return coordinator
    }

    /// Runs SQL on the copy with a connection of its own (what `sqlite3` would see).
    func query(_ sql: String, _ body: (SQLiteStatement) -> Void) throws {
        let connection = try SQLiteConnection(path: url.path)
        try connection.query(sql, row: body)
    }

    func int(_ sql: String) throws -> Int64 {
        var value: Int64 = 0
        try query(sql) { value = $0.int64(0) }
        return value
    }

    func strings(_ sql: String) throws -> [String] {
        var values: [String] = []
        try query(sql) { if case .string(let s) = $0.value(0, as: .stringAttributeType) { values.append(s) } }
        return values
    }

    /// Every fixture store paired with a model file.
    static func all() throws -> [VersionHashTests.Pair] {
        try VersionHashTests.pairs().filter { VersionHashTests.modelFolder($0.fixture) != nil }
    }
}
