import CSQLite
import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// A folder of its own in the temporary directory, removed by `cleanUp()`.
struct TemporaryFolder {
    let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ocd-inspector-\(UUID().uuidString)")

    init() { try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }

    func cleanUp() { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// The store files Core Data wrote on Apple platforms (Tests/Fixtures/AppleStores; its README lists
/// every value the tests expect). Tests read copies, never the fixtures.
enum AppleStores {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Fixtures/AppleStores").standardizedFileURL

    /// Copies a fixture's store with its `-wal` and `-shm` files into `folder` (writable, as a file a user
    /// sent would be); returns the copy's path.
    static func copy(_ fixture: String, _ store: String, to folder: TemporaryFolder) throws -> String {
        for suffix in ["", "-wal", "-shm"] {
            let source = fixtureFolder(fixture).appendingPathComponent(store + suffix).path
            guard FileManager.default.fileExists(atPath: source) else { continue }
            try FileManager.default.copyItem(atPath: source, toPath: folder.path(store + suffix))
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: folder.path(store + suffix))
        }
        return folder.path(store)
    }

    static func fixtureFolder(_ fixture: String) -> URL { root.appendingPathComponent(fixture) }

    /// A fixture's model folder (or one version of it, an `.xcdatamodel` inside).
    static func model(_ fixture: String, _ name: String) -> String { fixtureFolder(fixture).appendingPathComponent(name).path }
}

/// The bytes of a store and of the `-wal` and `-shm` files beside it, to check that nothing wrote them.
struct StoreBytes {
    let path: String
    let files: [String: Data]

    init(_ path: String) {
        self.path = path
        var files: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm"] { files[suffix] = FileManager.default.contents(atPath: path + suffix) }
        self.files = files
    }

    /// True when the store and its `-wal` are as they were, and so is the `-shm` when `shm` is true (SQLite's
    /// shared-memory index, which a reader rebuilds when it is stale). A file that was absent may have been
    /// created empty (`-wal`) by a read-only open; one that was present must keep every byte.
    func unchanged(_ path: String, shm: Bool = true) -> Bool {
        let now = StoreBytes(path)
        for (suffix, before) in files where suffix != "-shm" || shm {
            guard now.files[suffix] == before else { return false }
        }
        return now.files[""] != nil && (files["-wal"] != nil || (now.files["-wal"] ?? Data()).isEmpty)
    }
}

/// Runs `ocd-store` (built with the tests, beside the test bundle) as a user would; `run(tool:)` another
/// of the package's executables.
enum OCDStoreTool {
    static func url(_ name: String) -> URL? {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [here, URL(fileURLWithPath: ".build/debug")] {
            let url = candidate.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    /// The exit status, standard output and standard error (written to files: a full pipe would block).
    static func run(tool name: String = "ocd-store", _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let tool = try #require(url(name), "\(name) is built with the tests")
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let outputPath = folder.path("output"), errorsPath = folder.path("errors")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorsPath, contents: nil)
        let output = try #require(FileHandle(forWritingAtPath: outputPath)), errors = try #require(FileHandle(forWritingAtPath: errorsPath))
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        try output.close()
        try errors.close()
        return (process.terminationStatus, try String(contentsOfFile: outputPath, encoding: .utf8),
                try String(contentsOfFile: errorsPath, encoding: .utf8))
    }
}

/// Stores this project writes itself, with seed 003's Zootastic model (written to a model folder too).
enum ZooStore {
    /// A store at `folder/Zoo.sqlite` holding the app's seed data, and the model at `folder/Zoo.xcdatamodeld`.
    static func make(in folder: TemporaryFolder) throws -> (store: String, model: String) {
        let store = folder.path("Zoo.sqlite"), model = folder.path("Zoo.xcdatamodeld")
        try ZooModel.make().write(to: URL(fileURLWithPath: model))
        let container = NSPersistentContainer(name: "Zoo", managedObjectModel: ZooModel.make())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: store))]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            ZooModel.seed(context)
            try context.save()
        }
        for added in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.remove(added) }
        return (store, model)
    }

    /// The Zootastic model changed as an app's next version might: `Animal` gains `weight`, and a new
    /// entity `Keeper` appears. Written to `folder/ZooChanged.xcdatamodeld`.
    static func changedModel(in folder: TemporaryFolder) throws -> String {
        let model = ZooModel.make()
        let animal = try #require(model.entitiesByName["Animal"])
        animal.properties.append(NSAttributeDescription(name: "weight", type: .doubleAttributeType))
        let keeper = NSEntityDescription(name: "Keeper", managedObjectClassName: "NSManagedObject",
                                         properties: [NSAttributeDescription(name: "name", type: .stringAttributeType)])
        model.entities.append(keeper)
        let path = folder.path("ZooChanged.xcdatamodeld")
        try model.write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// Runs SQL on a copy of a store, to damage it on purpose (tests of bad input).
func damage(_ path: String, _ sql: String) throws {
    var db: OpaquePointer?
    guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw CocoaError(.fileReadUnknown) }
    defer { sqlite3_close(db) }
    let rc = sqlite3_exec(db, sql, nil, nil, nil)
    try #require(rc == SQLITE_OK, "\(sql): \(String(cString: sqlite3_errmsg(db)))")
}
