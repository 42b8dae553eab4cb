import Foundation

/// Copies of a SQLite store's files (the database, its `-wal` and `-shm` files, the folder of its
/// external data), taken beside the store before a migration and put back if the migration fails, so the
/// store is as it was, byte for byte.
struct StoreFileBackup {
    private let originals: [URL]
    private let folder: URL

    init(of url: URL) throws {
        let directory = url.deletingLastPathComponent()
        originals = [url, URL(fileURLWithPath: url.path + "-wal"), URL(fileURLWithPath: url.path + "-shm"),
                     directory.appendingPathComponent(".\(url.deletingPathExtension().lastPathComponent)_SUPPORT", isDirectory: true)]
        folder = directory.appendingPathComponent(".\(url.lastPathComponent)-migration-\(UUID().uuidString)", isDirectory: true)
        let files = FileManager.default
        try files.createDirectory(at: folder, withIntermediateDirectories: true)
        for (index, original) in originals.enumerated() where files.fileExists(atPath: original.path) {
            try files.copyItem(at: original, to: copy(index))
        }
    }

    private func copy(_ index: Int) -> URL { folder.appendingPathComponent("\(index)") }

    /// Puts the copies back (a file that did not exist before is removed), then removes them.
    func restore() throws {
        let files = FileManager.default
        for (index, original) in originals.enumerated() {
            if files.fileExists(atPath: original.path) { try files.removeItem(at: original) }
            if files.fileExists(atPath: copy(index).path) { try files.moveItem(at: copy(index), to: original) }
        }
        discard()
    }

    /// Removes the copies.
    func discard() {
        do { try FileManager.default.removeItem(at: folder) } catch {
            ModelContext.logger.error("the migration's copy of the store at \(folder.path) could not be removed: \(error)")
        }
    }
}
