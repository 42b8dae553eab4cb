import Foundation

/// Core Data's external binary storage (`allowsExternalBinaryDataStorage`) for a store file: a value
/// larger than ``threshold`` bytes is kept in a file of its own, `.<StoreName>_SUPPORT/_EXTERNAL_DATA/<UUID>`
/// beside the store, and the row's column holds the file's name as TEXT (inline values stay BLOBs, so
/// the two cannot be confused, and a predicate on a small value still compares its bytes in SQL).
///
/// Files follow the save's transaction: they are written before the commit and removed again if the
/// save fails; a value replaced or a row deleted has its file removed after the commit. A crash between
/// writing a file and the commit leaves a file no row names: the store removes such files when it
/// opens. An in-memory store keeps every value in its row.
final class ExternalBinaryStorage: @unchecked Sendable {
    /// The size above which a value goes to a file. Apple does not document Core Data's threshold; it
    /// has long been observed at about 100 KB, which we take as 100 KiB.
    static let threshold = 100 * 1024

    /// `.<StoreName>_SUPPORT/_EXTERNAL_DATA`
    let directory: URL

    /// `.<StoreName>_SUPPORT` beside a store file.
    static func supportFolder(of url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.deletingPathExtension().lastPathComponent)_SUPPORT", isDirectory: true)
    }

    /// Makes the destination's support folder a copy of the source's (none if the source has none).
    static func copySupportFolder(from source: URL, to destination: URL) throws {
        let manager = FileManager.default
        let (from, to) = (supportFolder(of: source), supportFolder(of: destination))
        do {
            if manager.fileExists(atPath: to.path) { try manager.removeItem(at: to) }
            if manager.fileExists(atPath: from.path) { try manager.copyItem(at: from, to: to) }
        } catch {
            throw CoreDataError(NSPersistentStoreOperationError, "Could not copy the externally stored values of \(source.path): \(error.localizedDescription)",
                                userInfo: [NSUnderlyingErrorKey: error])
        }
    }

    init(storeURL: URL) {
        let name = storeURL.deletingPathExtension().lastPathComponent
        directory = storeURL.deletingLastPathComponent()
            .appendingPathComponent(".\(name)_SUPPORT", isDirectory: true)
            .appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
    }

    func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// The data of a file, `nil` if it cannot be read.
    func read(_ name: String) -> Data? {
        guard !name.contains("/"), !name.hasPrefix(".") else { return nil }
        return try? Data(contentsOf: url(name))
    }

    /// Writes a new file for `data` and returns its name.
    func write(_ data: Data) throws -> String {
        let name = UUID().uuidString
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try data.write(to: url(name), options: .atomic)
        } catch {
            throw CoreDataError(NSPersistentStoreSaveError,
                                "cannot write an external binary value to \(url(name).path): \(error.localizedDescription)",
                                userInfo: [NSFilePathErrorKey: url(name).path, NSUnderlyingErrorKey: error])
        }
        return name
    }

    func remove(_ names: [String]) {
        for name in names where !name.contains("/") && !name.isEmpty { try? FileManager.default.removeItem(at: url(name)) }
    }

    /// Removes files that no row names (left by a crash between a file's write and the commit).
    func removeOrphans(referenced: Set<String>) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        remove(names.filter { !referenced.contains($0) && !$0.hasPrefix(".") })
    }
}

/// The files one save wrote and the files it makes obsolete, so that a failed save removes the first
/// and a committed one the second.
final class SaveFiles {
    var written: [String] = []
    var obsolete: [String] = []
}
