import CSQLite
import Foundation

extension SQLiteConnection {
    /// The whole database as bytes (`sqlite3_serialize`): an in-memory database's state, to put back
    /// with ``restoreImage(_:)`` when a change made after it must be undone.
    func image() throws -> Data {
        var size: sqlite3_int64 = 0
        guard let bytes = sqlite3_serialize(handle, "main", &size, 0) else {
            throw CoreDataError(NSSQLiteError, "cannot copy the in-memory database (sqlite3_serialize failed)")
        }
        defer { sqlite3_free(bytes) }
        return Data(bytes: bytes, count: Int(size))
    }

    /// Replaces the database with an ``image()`` taken before (`sqlite3_deserialize`; SQLite owns the copy).
    func restoreImage(_ image: Data) throws {
        let size = sqlite3_int64(image.count)
        guard let copy = sqlite3_malloc64(sqlite3_uint64(max(image.count, 1))) else {
            throw CoreDataError(NSSQLiteError, "cannot restore the in-memory database: out of memory")
        }
        image.withUnsafeBytes { raw in if let base = raw.baseAddress { copy.copyMemory(from: base, byteCount: image.count) } }
        let flags = UInt32(SQLITE_DESERIALIZE_FREEONCLOSE) | UInt32(SQLITE_DESERIALIZE_RESIZEABLE)
        let rc = sqlite3_deserialize(handle, "main", copy.assumingMemoryBound(to: UInt8.self), size, size, flags)
        guard rc == SQLITE_OK else {
            throw CoreDataError(NSSQLiteError, "cannot restore the in-memory database (sqlite3_deserialize: \(rc))")
        }
    }
}
