import Foundation
@testable import OpenCoreData
import Testing
import OpenCoreDataTesting

/// SQLite failures keep their codes, the SQL and the arguments (shown only on request), and the Core
/// Data errors the store throws keep the SQLite failure under `NSUnderlyingErrorKey`.
@Suite("SQLite errors")
struct SQLiteErrorTests {
    private func failure(_ body: () throws -> Void) throws -> SQLiteError {
        do {
            try body()
        } catch let error as SQLiteError {
            return error
        }
        throw CoreDataError(NSCoreDataError, "expected a SQLite error")
    }

    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-error-\(UUID().uuidString).sqlite").path
    }

    @Test func aUniqueViolationKeepsItsExtendedCodeSQLAndHiddenArguments() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE T (A TEXT UNIQUE)")
        try db.run("INSERT INTO T VALUES (?)", [.string("secret")])
        let error = try failure { try db.run("INSERT INTO T VALUES (?)", [.string("secret")]) }
        #expect(error.code == 19)  // SQLITE_CONSTRAINT
        #expect(error.extendedCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
        #expect(error.isUniqueConstraintViolation)
        #expect(error.sql == "INSERT INTO T VALUES (?)")
        #expect(error.arguments == [.string("secret")])
        #expect(error.description == "SQLite error 19: UNIQUE constraint failed: T.A — while executing: INSERT INTO T VALUES (?)")
        #expect(error.withPublicArguments().description.hasSuffix("while executing: INSERT INTO T VALUES (?) with arguments ['secret']"))

        let wrapped = error.coreDataError
        #expect(wrapped.code == NSSQLiteError)
        #expect(wrapped.message.contains("UNIQUE constraint failed: T.A"))
        #expect(!wrapped.message.contains("secret"))
        #expect(wrapped.userInfo[NSSQLiteErrorDomain] as? Int == 19)
        #expect(wrapped.sqliteError?.extendedCode == 2067)
        #expect(wrapped.sqliteError?.isUniqueConstraintViolation == true)
    }

    @Test func aPrimaryKeyViolationIsAUniqueViolation() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE T (Z_PK INTEGER PRIMARY KEY)")
        try db.run("INSERT INTO T VALUES (?)", [.int(1)])
        let error = try failure { try db.run("INSERT INTO T VALUES (?)", [.int(1)]) }
        #expect(error.extendedCode == 1555)  // SQLITE_CONSTRAINT_PRIMARYKEY
        #expect(error.isUniqueConstraintViolation)
        let notNull = try failure {
            try db.execute("CREATE TABLE U (A NOT NULL)")
            try db.run("INSERT INTO U VALUES (?)", [.null])
        }
        #expect(notNull.extendedCode == 1299)  // SQLITE_CONSTRAINT_NOTNULL
        #expect(!notNull.isUniqueConstraintViolation)
    }

    @Test func aBusyDatabaseGivesSQLiteBusy() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try SQLiteConnection(path: path)
        try writer.execute("PRAGMA journal_mode = WAL; CREATE TABLE T (A)")
        let other = try SQLiteConnection(path: path)
        try other.execute("PRAGMA busy_timeout = 0")
        try writer.execute("BEGIN IMMEDIATE")
        defer { try? writer.execute("ROLLBACK") }
        let error = try failure { try other.execute("BEGIN IMMEDIATE") }
        #expect(error.code == 5)  // SQLITE_BUSY
        #expect(error.primaryCode == 5)
        #expect(error.extendedCode == 5)
        #expect(error.sql == "BEGIN IMMEDIATE")
        #expect(!error.isUniqueConstraintViolation)
    }

    @Test func writingThroughAReadOnlyConnectionGivesSQLiteReadOnly() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try SQLiteConnection(path: path).execute("CREATE TABLE T (A)")
        let reader = try SQLiteConnection(path: path, readOnly: true)
        let error = try failure { try reader.run("INSERT INTO T VALUES (?)", [.int(42)]) }
        #expect(error.code == 8)  // SQLITE_READONLY
        #expect(error.extendedCode == 8)
        #expect(error.sql == "INSERT INTO T VALUES (?)")
        #expect(error.arguments == [.int(42)])
        #expect(!error.description.contains("42"))
        #expect(error.withPublicArguments().description.contains("with arguments [42]"))
    }

    /// A policy that lets another coordinator save a row with the same unique value while it resolves
    /// the save's own conflicts: the save then meets the unique index in SQLite.
    private final class WriterMeanwhile: NSMergePolicy, @unchecked Sendable {
        let write: () throws -> Void
        init(_ write: @escaping () throws -> Void) {
            self.write = write
            super.init(merge: .mergeByPropertyObjectTrumpMergePolicyType)
        }
        override func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
            try super.resolve(constraintConflicts: list)
            try write()
        }
    }

    /// The save recognises the unique index's refusal by its extended code and reports Core Data's
    /// constraint error, with the SQLite failure (and its message) underneath.
    @Test func aRowSavedMeanwhileIsAConstraintConflict() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let model = UniquenessConstraintTests.model()
        let container = try store.container(model)
        let other = try store.container(model)
        let context = container.viewContext
        context.mergePolicy = WriterMeanwhile {
            let meanwhile = other.newBackgroundContext()
            try meanwhile.performAndWait {
                NSEntityDescription.insertNewObject(forEntityName: "Person", into: meanwhile).setValue("x@x", forKey: "email")
                try meanwhile.save()
            }
        }
        for name in ["first", "second"] {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            person.setValue("x@x", forKey: "email")
            person.setValue(name, forKey: "name")
        }
        var caught: NSError?
        do { try context.save() } catch { caught = error as NSError }
        let error = try #require(caught as? CoreDataError)
        #expect(error.code == NSManagedObjectConstraintMergeError)
        #expect(error.message.contains("a row saved meanwhile") && error.message.contains("UNIQUE constraint failed: ZPERSON.ZEMAIL"))
        let underlying = try #require(error.userInfo[NSUnderlyingErrorKey] as? CoreDataError)
        #expect(underlying.code == NSSQLiteError)
        #expect(underlying.sqliteError?.extendedCode == 2067)
        #expect(underlying.sqliteError?.sql?.hasPrefix("INSERT INTO ZPERSON") == true)
    }
}
