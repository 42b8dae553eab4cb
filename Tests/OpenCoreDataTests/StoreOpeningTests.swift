@testable import OpenCoreData
import OpenCoreDataTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Opening a store: many processes creating one new file at once, read-only stores, unusable paths, and
/// SQLite files that another program made.
@Suite("Opening a store")
struct StoreOpeningTests {
    /// The bytes of a file, or empty data if there is none.
    static func bytes(_ url: URL) -> Data { (try? Data(contentsOf: url)) ?? Data() }

    /// The store file and its WAL, byte for byte.
    static func storeBytes(_ url: URL) -> [Data] { [bytes(url), bytes(URL(fileURLWithPath: url.path + "-wal"))] }

    /// A container on `url` with the given options, or the error loading it.
    static func load(_ url: URL, model: NSManagedObjectModel = LedgerModel.make(),
                     configure: (NSPersistentStoreDescription) -> Void = { _ in }) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Test", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        configure(description)
        container.persistentStoreDescriptions = [description]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    /// Saves `count` entries into a new Ledger store at `url`.
    static func makeLedger(_ url: URL, count: Int) throws {
        let container = try load(url)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for i in 0..<count {
                let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
                entry.setValue(1, forKey: "batch")
                entry.setValue(i, forKey: "index")
            }
            try context.save()
        }
    }

    static func entryCount(_ container: NSPersistentContainer) throws -> Int {
        try container.viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Entry"))
    }

    // MARK: - Concurrent creation

    /// Ten processes open the same new store file at the same moment (they wait for a "go" file) and each
    /// saves one object: every one must succeed, and the store holds ten objects.
    @Test func tenProcessesCreateOneNewStoreAtOnce() throws {
        let helper = try #require(CrashConsistencyTests.writerURL, "ocd-crash-writer is built with the tests")
        let trials = Int(ProcessInfo.processInfo.environment["OCD_OPEN_TRIALS"] ?? "") ?? 4
        for trial in 0..<trials {
            let store = TemporaryStore()
            defer { store.cleanUp() }
            let go = store.directory.appendingPathComponent("go")
            var processes: [(Process, Pipe)] = []
            for _ in 0..<10 {
                let process = Process()
                process.executableURL = helper
                process.arguments = ["--open-once", store.url.path, go.path]
                let pipe = Pipe()
                process.standardOutput = pipe
                try process.run()
                processes.append((process, pipe))
            }
            usleep(300_000)  // let them all start and wait
            _ = FileManager.default.createFile(atPath: go.path, contents: Data())
            for (process, pipe) in processes {
                let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "trial \(trial): \(output)")
            }
            let container = try Self.load(store.url)
            #expect(try Self.entryCount(container) == 10, "trial \(trial)")
        }
    }

    // MARK: - Read-only stores

    @Test func readOnlyOptionAllowsFetchesAndRefusesSavesWritingNothing() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try Self.makeLedger(store.url, count: 3)
        let before = Self.storeBytes(store.url)

        let description = NSPersistentStoreDescription(url: store.url)
        description.isReadOnly = true  // Core Data maps this onto NSReadOnlyPersistentStoreOption
        #expect((description.options[NSReadOnlyPersistentStoreOption] as? NSNumber)?.boolValue == true)

        for viaOption in [false, true] {
            let container = try Self.load(store.url) { d in
                if viaOption { d.setOption(NSNumber(value: true), forKey: NSReadOnlyPersistentStoreOption) } else { d.isReadOnly = true }
            }
            #expect(container.persistentStoreCoordinator.persistentStores.first?.isReadOnly == true)
            let context = container.viewContext
            let entries = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Entry"))
            #expect(entries.count == 3)
            #expect(try Self.entryCount(container) == 3)

            // An insert, an update and a delete: each save throws Core Data's save error and the context keeps it.
            let inserted = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
            inserted.setValue(2, forKey: "batch")
            inserted.setValue(0, forKey: "index")
            #expect { try context.save() } throws: { ($0 as? CoreDataError)?.code == NSPersistentStoreSaveError }
            #expect(context.hasChanges && context.insertedObjects.count == 1)
            context.rollback()
            entries[0].setValue(9, forKey: "index")
            #expect { try context.save() } throws: { ($0 as? CoreDataError)?.code == NSPersistentStoreSaveError }
            #expect(context.updatedObjects.count == 1)
            context.rollback()
            context.delete(entries[1])
            #expect { try context.save() } throws: { ($0 as? CoreDataError)?.code == NSPersistentStoreSaveError }
            #expect(context.deletedObjects.count == 1)
            context.rollback()
            #expect(try Self.entryCount(container) == 3)
        }
        #expect(Self.storeBytes(store.url) == before, "a read-only store's file and WAL are unchanged")
    }

    @Test func readOnlyOpenOfAMissingFileNamesThePath() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        #expect {
            _ = try Self.load(store.url) { $0.isReadOnly = true }
        } throws: { error in
            guard let error = error as? CoreDataError else { return false }
            return error.code == NSPersistentStoreOperationError && error.message.contains(store.url.path)
        }
        #expect(!FileManager.default.fileExists(atPath: store.url.path))
    }

    /// `chattr +i` makes a directory unwritable even for root (on ext4 and the like).
    static let canMakeImmutableDirectories: Bool = {
        let probe = TemporaryStore()
        defer { _ = chattr("-i", probe.directory); probe.cleanUp() }
        guard chattr("+i", probe.directory) else { return false }
        return !FileManager.default.createFile(atPath: probe.directory.appendingPathComponent("x").path, contents: Data())
    }()

    @discardableResult
    static func chattr(_ flag: String, _ url: URL) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [flag, url.path]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// A WAL store in a directory where the `-shm` file cannot be created opens read-only through the
    /// `immutable=1` fallback.
    @Test(.enabled(if: canMakeImmutableDirectories, "needs chattr +i (root on ext4)"))
    func readOnlyStoreInAnUnwritableDirectoryOpensImmutable() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try Self.makeLedger(store.url, count: 4)
        do {
            let db = try SQLiteConnection(path: store.url.path)
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store.url.path + suffix) }
        let before = Self.bytes(store.url)
        #expect(Self.chattr("+i", store.directory))
        defer { Self.chattr("-i", store.directory) }

        let container = try Self.load(store.url) { $0.isReadOnly = true }
        #expect(try container.persistentStoreCoordinator.sqlite.connection.path.hasSuffix("?immutable=1"), "the fallback was taken")
        #expect(try Self.entryCount(container) == 4)
        let context = container.viewContext
        let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
        entry.setValue(2, forKey: "batch")
        entry.setValue(0, forKey: "index")
        #expect { try context.save() } throws: { ($0 as? CoreDataError)?.code == NSPersistentStoreSaveError }
        #expect(Self.bytes(store.url) == before)
        #expect(!FileManager.default.fileExists(atPath: store.url.path + "-shm"))
    }

    // MARK: - Unusable locations

    static func expectOpenError(_ url: URL, _ comment: Comment) {
        #expect(comment) {
            _ = try Self.load(url)
        } throws: { error in
            guard let error = error as? CoreDataError else { return false }
            return error.code == NSPersistentStoreOperationError && error.message.contains(url.path)
        }
    }

    @Test func storeWhoseParentIsARegularFileThrowsAStoreError() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let file = store.directory.appendingPathComponent("plain-file")
        _ = FileManager.default.createFile(atPath: file.path, contents: Data("not a directory".utf8))
        Self.expectOpenError(file.appendingPathComponent("Store.sqlite"), "parent is a regular file")
        Self.expectOpenError(file.appendingPathComponent("deeper/Store.sqlite"), "an ancestor is a regular file")
    }

    @Test func storeInALocationThatCannotBeCreatedThrowsAStoreError() throws {
        Self.expectOpenError(URL(fileURLWithPath: "/proc/ocd-no-such-dir/Store.sqlite"), "a directory under /proc")
        let store = TemporaryStore()
        defer { store.cleanUp() }
        Self.expectOpenError(store.directory, "the store path is a directory")
    }

    // MARK: - Databases of other programs

    /// A SQLite database of another program (tables, no Z_METADATA).
    static func makeForeignDatabase(_ url: URL) throws {
        let db = try SQLiteConnection(path: url.path)
        try db.execute("CREATE TABLE people (name TEXT)")
        try db.run("INSERT INTO people (name) VALUES (?)", [.string("Ada")])
    }

    @Test func foreignDatabaseIsRefusedAndLeftUntouched() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try Self.makeForeignDatabase(store.url)
        let before = Self.bytes(store.url)
        #expect(!before.isEmpty)
        #expect {
            _ = try Self.load(store.url)
        } throws: { error in
            guard let error = error as? CoreDataError else { return false }
            return error.code == NSPersistentStoreInvalidTypeError && error.message.contains(store.url.path)
        }
        #expect(Self.bytes(store.url) == before, "the other program's file is unchanged")
        #expect(!FileManager.default.fileExists(atPath: store.url.path + "-wal"))
        // Read-only, too.
        #expect { _ = try Self.load(store.url) { $0.isReadOnly = true } } throws: {
            ($0 as? CoreDataError)?.code == NSPersistentStoreInvalidTypeError
        }
        #expect(Self.bytes(store.url) == before)
    }

    /// SQLite takes a file shorter than a page for an empty database: a small text file is refused, not overwritten.
    @Test func smallFileThatIsNotADatabaseIsRefusedAndLeftUntouched() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        _ = FileManager.default.createFile(atPath: store.url.path, contents: Data("notes\n".utf8))
        for readOnly in [false, true] {
            #expect { _ = try Self.load(store.url) { $0.isReadOnly = readOnly } } throws: { error in
                guard let error = error as? CoreDataError else { return false }
                return error.code == NSPersistentStoreInvalidTypeError && error.message.contains(store.url.path)
            }
            #expect(Self.bytes(store.url) == Data("notes\n".utf8))
        }
    }

    @Test func foreignDatabaseIsAdoptedWhenTheOptionSaysSo() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        try Self.makeForeignDatabase(store.url)
        let container = try Self.load(store.url) { $0.setOption(NSNumber(value: true), forKey: OpenCoreDataAdoptForeignDatabaseOption) }
        try Self.saveOneEntry(container)
        #expect(try Self.entryCount(container) == 1)
        var names: [String] = []
        try container.persistentStoreCoordinator.sqlite.read { db in
            try db.query("SELECT name FROM people") { names.append(String(describing: $0.dynamicValue(0))) }
        }
        #expect(names.count == 1, "the other program's table is kept")
        // Once adopted it is ours: it opens without the option.
        #expect(try Self.entryCount(Self.load(store.url)) == 1)
    }

    @Test func emptyFilesAreAdopted() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        _ = FileManager.default.createFile(atPath: store.url.path, contents: Data())
        try Self.saveOneEntry(try Self.load(store.url))
        #expect(try Self.entryCount(Self.load(store.url)) == 1)

        let other = store.directory.appendingPathComponent("NoTables.sqlite")
        do {
            let db = try SQLiteConnection(path: other.path)
            try db.execute("PRAGMA user_version = 7; CREATE TABLE t (x); DROP TABLE t")
        }
        #expect(Self.bytes(other).count > 0)
        try Self.saveOneEntry(try Self.load(other))
        #expect(try Self.entryCount(Self.load(other)) == 1)
    }

    static func saveOneEntry(_ container: NSPersistentContainer) throws {
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
            entry.setValue(1, forKey: "batch")
            entry.setValue(0, forKey: "index")
            try context.save()
        }
    }
}
