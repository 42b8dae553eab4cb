import Foundation

extension NSPersistentStoreCoordinator {
    /// Mirrors `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)`:
    /// makes the SQLite store at `destinationURL` a copy of the one at `sourceURL` (creating it if there is
    /// none), with its externally stored values; the source is only read. The copy is SQLite's online
    /// backup, one transaction on the destination: if it fails, the destination is as it was. Both stores
    /// are SQLite stores; a destination that this coordinator has added is refused (remove it first, then
    /// add it again after the copy), since its objects and cached rows would no longer match the file.
    public func replacePersistentStore(at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil,
                                       withPersistentStoreFrom sourceURL: URL, sourceOptions: [AnyHashable: Any]? = nil,
                                       type: NSPersistentStore.StoreType) throws {
        try replacePersistentStore(at: destinationURL, destinationOptions: destinationOptions, withPersistentStoreFrom: sourceURL,
                                   sourceOptions: sourceOptions, ofType: type.rawValue)
    }

    /// Mirrors `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:ofType:)`
    /// (the older spelling of ``replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)``).
    public func replacePersistentStore(at destinationURL: URL, destinationOptions: [AnyHashable: Any]? = nil,
                                       withPersistentStoreFrom sourceURL: URL, sourceOptions: [AnyHashable: Any]? = nil,
                                       ofType storeType: String) throws {
        guard storeType == NSSQLiteStoreType else {
            throw CoreDataError(NSPersistentStoreInvalidTypeError, "replacePersistentStore copies SQLite stores; \(storeType) is not one")
        }
        guard destinationURL.standardizedFileURL != sourceURL.standardizedFileURL else { return }
        if persistentStore(for: destinationURL) != nil {
            throw CoreDataError(NSPersistentStoreOperationError, "The store at \(destinationURL.path) is added to this coordinator: remove it before replacing its file",
                                userInfo: [NSFilePathErrorKey: destinationURL.path])
        }
        try Self.requireSQLiteFile(sourceURL)
        if FileManager.default.fileExists(atPath: destinationURL.path) { try Self.requireSQLiteFile(destinationURL) }
        do {
            let source = try SQLiteConnection(path: sourceURL.path, readOnly: true)
            let destination = try SQLiteConnection(path: destinationURL.path)
            try destination.replaceContents(from: source)
        } catch let error as SQLiteError {
            throw CoreDataError(NSPersistentStoreOperationError, "Could not replace the store at \(destinationURL.path): \(error.message)",
                                userInfo: [NSFilePathErrorKey: destinationURL.path])
        }
        try Self.copySupportFolder(from: sourceURL, to: destinationURL)
    }

    /// Throws unless `url` is a SQLite database (Core Data's error for a file of another kind).
    static func requireSQLiteFile(_ url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CoreDataError(NSPersistentStoreOpenError, "There is no store at \(url.path)", userInfo: [NSFilePathErrorKey: url.path])
        }
        let header = (try? FileHandle(forReadingFrom: url).read(upToCount: 16)) ?? Data()
        guard header.isEmpty || header == Data("SQLite format 3\0".utf8) else {
            throw CoreDataError(NSPersistentStoreInvalidTypeError, "\(url.path) is not a SQLite store", userInfo: [NSFilePathErrorKey: url.path])
        }
    }

    /// The folder beside a SQLite store that holds its externally stored values (`.<Name>_SUPPORT`).
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
}
