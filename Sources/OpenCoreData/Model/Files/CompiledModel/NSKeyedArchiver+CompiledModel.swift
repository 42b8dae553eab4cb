import Foundation

/// `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)` and `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding:)`
/// for the model classes, overloads of Foundation's chosen for these classes without changing the call.
/// Decoding goes through this library's checked unarchiver for compiled models (`ModelArchiveDecoder`):
/// Foundation's on Linux cannot follow a model's cycles and traps on unexpected classes. A truncated,
/// foreign or hostile archive throws `CocoaError.coderReadCorrupt`, its debug description saying where
/// and why (`entity Book, attribute title: …`), as Apple's unarchiver throws `NSCoderReadCorruptError`.
extension NSKeyedUnarchiver {
    /// Mirrors `unarchivedObject(ofClass:from:)` for `NSManagedObjectModel`: the bytes of a `.mom` file
    /// (or a store's inflated model cache).
    public static func unarchivedObject<T: NSManagedObjectModel>(ofClass cls: T.Type, from data: Data) throws -> T? {
        try ModelArchiveDecoder.unarchive(data, as: cls)
    }

    /// Mirrors `unarchivedObject(ofClass:from:)` for `NSEntityDescription`: an entity with its properties
    /// and subentities; its relationships name their destinations (wired when the entity joins a model
    /// that a coordinator loads).
    public static func unarchivedObject<T: NSEntityDescription>(ofClass cls: T.Type, from data: Data) throws -> T? {
        try ModelArchiveDecoder.unarchive(data, as: cls)
    }

    /// Mirrors `unarchivedObject(ofClass:from:)` for `NSPropertyDescription` and its subclasses.
    public static func unarchivedObject<T: NSPropertyDescription>(ofClass cls: T.Type, from data: Data) throws -> T? {
        try ModelArchiveDecoder.unarchive(data, as: cls)
    }

    /// Mirrors `unarchivedObject(ofClass:from:)` for `NSFetchRequest` (a fetch request template).
    public static func unarchivedObject<T: NSFetchRequest<NSFetchRequestResult>>(ofClass cls: T.Type, from data: Data) throws -> T? {
        try ModelArchiveDecoder.unarchive(data, as: cls)
    }
}

extension NSKeyedArchiver {
    /// Mirrors `archivedData(withRootObject:requiringSecureCoding:)` for a model: the archive a `.mom` file
    /// holds, naming Apple's classes (`NSManagedObjectModel`, `NSEntityDescription`,
    /// `NSAttributeDescription`, …, and Apple's predicate classes), so that Core Data reads it.
    /// Written by this library's archiver for compiled models (`ModelArchiveEncoder`); every class adopts
    /// `NSSecureCoding`, so `requiringSecureCoding` changes nothing.
    public static func archivedData(withRootObject model: NSManagedObjectModel, requiringSecureCoding: Bool) throws -> Data {
        try ModelArchiveEncoder.archive(model)
    }
}

extension ModelArchiveDecoder {
    /// The root object of `data`, which must be a `T`; a failure as `CocoaError.coderReadCorrupt`.
    static func unarchive<T>(_ data: Data, as cls: T.Type) throws -> T {
        do {
            return try ModelArchiveDecoder(archive: data).decodeRoot(as: cls)
        } catch {
            throw NSError(domain: NSCocoaErrorDomain, code: CocoaError.coderReadCorrupt.rawValue,
                          userInfo: [NSDebugDescriptionErrorKey: error.description])
        }
    }
}
