import Foundation

/// What the first 100 bytes of a SQLite file say (its database header), and the size of its `-wal` file.
package struct SQLiteFileFacts: Equatable, Sendable {
    /// The page size in bytes (header bytes 16–17; the value 1 means 65 536).
    package let pageSize: Int
    /// True for a WAL database (header bytes 18/19 = 2), false for a rollback journal (1).
    package let isWAL: Bool
    /// True when the largest-root-page field (bytes 52–55) is set: auto-vacuum is on.
    package let autoVacuum: Bool
    /// `PRAGMA user_version` (bytes 60–63).
    package let userVersion: Int
    /// The size of the `-wal` file beside the database, when there is one.
    package let walBytes: Int?

    /// Reads the header of the file at `path`: a clear error for a path that is missing, a folder, an
    /// empty file or a file that is not a SQLite database.
    init(path: String) throws(InspectorError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .storeFile(path, "there is no file at this path")
        }
        guard !isDirectory.boolValue else { throw .storeFile(path, "it is a folder, not a store file") }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .storeFile(path, "the file cannot be opened for reading") }
        defer { try? handle.close() }
        let header = [UInt8]((try? handle.read(upToCount: 100)) ?? Data())
        guard !header.isEmpty else { throw .storeFile(path, "the file is empty (0 bytes), not a SQLite database") }
        guard header.count == 100, header.starts(with: Array("SQLite format 3\0".utf8)) else {
            throw .storeFile(path, "it is not a SQLite database (it does not start with SQLite's header, \"SQLite format 3\")")
        }
        func integer(_ range: Range<Int>) -> Int { header[range].reduce(0) { $0 << 8 | Int($1) } }
        let page = integer(16..<18)
        pageSize = page == 1 ? 65_536 : page
        isWAL = header[18] == 2 && header[19] == 2
        autoVacuum = integer(52..<56) != 0
        userVersion = integer(60..<64)
        walBytes = Self.size(of: path + "-wal")
    }

    /// The size of a file in bytes; nil when there is none.
    static func size(of path: String) -> Int? {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] else { return nil }
        return (size as? Int) ?? (size as? NSNumber)?.intValue
    }
}
