import Foundation
import OpenCoreData

/// The property name of a model's key path, from the model's ``PersistentModel/schemaMetadata`` (read
/// once per model type).
enum ModelKeys {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var names: [ObjectIdentifier: [AnyKeyPath: String]] = [:]
    /// Names by key path object (a key path literal is one object for the process): the key path is kept, so
    /// that its identity is never another's.
    nonisolated(unsafe) private static var byIdentity: [ObjectIdentifier: Entry] = [:]

    /// A persisted property found by its key path: its name, and the slot cache the typed accessors use.
    struct Entry {
        let keyPath: AnyKeyPath
        let slot: _SwiftDataSlot
    }

    nonisolated(unsafe) private static var byName: [ObjectIdentifier: [String: _SwiftDataSlot]] = [:]

    /// The slot cache of the property `name` of `type` (made once, shared by its key paths and its name).
    static func slot<M: PersistentModel>(named name: String, in type: M.Type) -> _SwiftDataSlot {
        if let known = slots(in: type)[name] { return known }
        return lock.withLock {
            if let known = byName[ObjectIdentifier(type)]?[name] { return known }
            let made = _SwiftDataSlot(name)
            byName[ObjectIdentifier(type), default: [:]][name] = made
            return made
        }
    }

    /// The slot caches of the persisted properties of `type`, by name (one lookup for all of a model's values).
    static func slots<M: PersistentModel>(in type: M.Type) -> [String: _SwiftDataSlot] {
        if let known = lock.withLock({ byName[ObjectIdentifier(type)] }) { return known }
        let names = type.schemaMetadata.map(\.name)  // outside the lock: the metadata may look key paths up
        return lock.withLock {
            if let known = byName[ObjectIdentifier(type)] { return known }
            let made = Dictionary(names.map { ($0, _SwiftDataSlot($0)) }, uniquingKeysWith: { a, _ in a })
            byName[ObjectIdentifier(type)] = made
            return made
        }
    }

    /// The property `keyPath` names (found once per key path object); traps for a key path that is no
    /// persisted property (a computed or `@Transient` property reaches the backing data only through a bug
    /// in the model's code).
    static func entry<M: PersistentModel>(of keyPath: AnyKeyPath, in type: M.Type) -> Entry {
        let identity = ObjectIdentifier(keyPath)
        if let known = lock.withLock({ byIdentity[identity] }) { return known }
        guard let name = lookup(keyPath, in: type) else {
            fatalError("\(keyPath) is not a persisted property of \(M.self)")
        }
        let entry = Entry(keyPath: keyPath, slot: slot(named: name, in: type))
        lock.withLock { byIdentity[identity] = entry }
        return entry
    }

    /// The name of `keyPath` if it is a persisted property of `type`.
    static func lookup(_ keyPath: AnyKeyPath, in type: any PersistentModel.Type) -> String? {
        let id = ObjectIdentifier(type)
        if let known = lock.withLock({ names[id] }) { return known[keyPath] }
        var table: [AnyKeyPath: String] = [:]
        for property in type.schemaMetadata { table[property.keypath] = property.name }
        lock.withLock { names[id] = table }
        return table[keyPath]
    }

    /// The key of a key path in a store request: its name, for a key path rooted at a model type.
    static func key(_ keyPath: AnyKeyPath) throws -> String {
        let root = Swift.type(of: keyPath).rootType
        guard let model = root as? any PersistentModel.Type, let name = lookup(keyPath, in: model) else {
            throw SwiftDataError(.unsupportedKeyPath, "\(keyPath) is not a persisted property of \(root) (a store can only compare and sort by those)")
        }
        return name
    }
}
