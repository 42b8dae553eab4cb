import Foundation

/// Mirrors Foundation's `NSClassFromString(_:)`, which it calls first. On Linux a Swift class is known to
/// Foundation only by its module-qualified name (`Zoo.Animal`), while Xcode writes an entity's class
/// without its module (`Animal`), and libraries look an entity's class up with
/// `NSClassFromString(entity.managedObjectClassName)`. So a name Foundation does not know is then asked
/// of the lookups registered with `_ClassLookup` (OpenCoreData registers the classes its loaded models
/// resolved their entities to). `import OpenCoreData` re-exports this function by a scoped import, so
/// that it is the one a call names even beside `import Foundation`.
public func NSClassFromString(_ aClassName: String) -> AnyClass? {
    if let cls = Foundation.NSClassFromString(aClassName) { return cls }
    return _ClassLookup.lookup(aClassName)
}

/// The lookups ``NSClassFromString(_:)`` asks after Foundation. Not API: the hook by which OpenCoreData
/// (built on this module) answers for the classes of its models.
public enum _ClassLookup {
    // An NSLock (a pthread mutex, which ThreadSanitizer follows), not Synchronization's futex Mutex.
    private static let lock = NSLock()
    nonisolated(unsafe) private static var lookups: [@Sendable (String) -> AnyClass?] = []

    /// Adds a lookup, asked for names Foundation does not know.
    public static func register(_ lookup: @escaping @Sendable (String) -> AnyClass?) {
        lock.withLock { lookups.append(lookup) }
    }

    static func lookup(_ name: String) -> AnyClass? {
        for lookup in lock.withLock({ lookups }) {
            if let cls = lookup(name) { return cls }
        }
        return nil
    }
}
