import Foundation
import Synchronization

/// The key of a Swift key path over `@Managed` properties (Linux has no `_kvcKeyPathString`). Each
/// `@Managed` property's section record gives `\Owner.name` and `\Owner?.?.name`; a key path
/// through to-one relationships (`\Animal.classification?.order`) is found as those pieces appended, one
/// relationship at a time (at most four deep). Found keys are remembered.
///
/// Key paths are compared with `==`, and also by hash, root and value type: a literal written through an
/// optional to-one (`\A.b?.c`) does not compare equal to the same path appended from its pieces when `c`
/// is settable, though its hash (made from the components' identities) is the same.
enum ManagedKeyPaths {
    private static let found = LockedValue<[AnyKeyPath: String]>([:])

    /// The key of `keyPath` (`"classification.order"`), or why it has none.
    static func key(for keyPath: AnyKeyPath) -> Result<String, KeyPathKeyError> {
        if let key = found.withLock({ $0[keyPath] }) { return .success(key) }
        let type = Swift.type(of: keyPath)
        guard let root = type.rootType as? NSManagedObject.Type else {
            return .failure(KeyPathKeyError(keyPath: keyPath, reason: "\(type.rootType) is not an NSManagedObject subclass"))
        }
        guard let key = search(keyPath, from: root) else {
            return .failure(KeyPathKeyError(keyPath: keyPath, reason: "each step must be a @Managed property of the class that declares it (a key path from a subclass to an inherited property is not known here: write it from the declaring class, or use the key string)"))
        }
        found.withLock { $0[keyPath] = key }
        return .success(key)
    }

    /// Appends the properties' key paths, breadth first, until one is `target`.
    private static func search(_ target: AnyKeyPath, from root: NSManagedObject.Type) -> String? {
        var frontier: [(path: AnyKeyPath, key: String)] = members(of: root).compactMap { m in m.keyPaths.map { ($0.plain, m.name) } }
        for _ in 0..<4 {
            if let hit = frontier.first(where: { matches($0.path, target) }) { return hit.key }
            var next: [(path: AnyKeyPath, key: String)] = []
            for (path, key) in frontier {
                let value = Swift.type(of: path).valueType
                let isOptional = ManagedTransform.unwrappedType(value) != value
                guard let destination = ManagedTransform.unwrappedType(value) as? NSManagedObject.Type else { continue }
                for member in members(of: destination) {
                    guard let pieces = member.keyPaths, let longer = path.appending(path: isOptional ? pieces.optional : pieces.plain) else { continue }
                    next.append((longer, key + "." + member.name))
                }
            }
            frontier = next
        }
        return nil
    }

    /// The key path of `key` (`"classification.order"`) from `root`: each step a `@Managed` property of
    /// the class that declares it (the first `root`'s own), appended through optional to-ones as `?.`.
    static func keyPath(forKey key: String, from root: NSManagedObject.Type) -> AnyKeyPath? {
        var path: AnyKeyPath?
        var owner: NSManagedObject.Type? = root
        for name in key.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
            guard let current = owner, let pieces = members(of: current).first(where: { $0.name == name })?.keyPaths else { return nil }
            if let previous = path {
                let isOptional = ManagedTransform.unwrappedType(Swift.type(of: previous).valueType) != Swift.type(of: previous).valueType
                guard let longer = previous.appending(path: isOptional ? pieces.optional : pieces.plain) else { return nil }
                path = longer
            } else {
                path = pieces.plain
            }
            let value = Swift.type(of: path!).valueType
            owner = ManagedTransform.unwrappedType(value) as? NSManagedObject.Type
        }
        return path
    }

    private static func matches(_ candidate: AnyKeyPath, _ target: AnyKeyPath) -> Bool {
        if candidate == target { return true }
        let (c, t) = (Swift.type(of: candidate), Swift.type(of: target))
        return candidate.hashValue == target.hashValue && c.rootType == t.rootType && c.valueType == t.valueType
    }

    /// The `@Managed` properties a class declares (not its superclasses': their key paths are rooted there).
    private static func members(of cls: NSManagedObject.Type) -> [ManagedMember] {
        ManagedClasses.catalog.members[ObjectIdentifier(cls)] ?? []
    }
}

/// A key path that names no modeled property (a computed or stored Swift property, a subscript, a key
/// path from a type that is not a managed object class), with the key path and the reason. Not in Core
/// Data, where such a key path has no `_kvcKeyPathString` and the initializer raises.
public struct KeyPathKeyError: Error, CustomStringConvertible, Sendable {
    /// The key path as Swift prints it, with its root and value types.
    public let keyPath: String
    /// Why it has no key.
    public let reason: String

    init(keyPath: AnyKeyPath, reason: String) {
        let type = Swift.type(of: keyPath)
        self.keyPath = "\(keyPath) (from \(type.rootType) to \(type.valueType))"
        self.reason = reason
    }

    public var description: String { "The key path \(keyPath) names no modeled property: \(reason)" }
}

extension NSSortDescriptor {
    /// Mirrors `init(keyPath:ascending:)`: the key of a key path over `@Managed` properties, through to-one
    /// relationships (`\Animal.classification?.order` sorts by `classification.order`); `keyPath` gives
    /// the key path back, as Foundation's does. A key path that
    /// names no modeled property traps with ``KeyPathKeyError``'s message, as Core Data raises; use
    /// ``init(validatingKeyPath:ascending:)`` to get the error.
    public convenience init<Root, Value>(keyPath: KeyPath<Root, Value>, ascending: Bool) {
        do { try self.init(validatingKeyPath: keyPath, ascending: ascending) } catch { fatalError("\(error)") }
    }

    /// Not in Core Data: ``init(keyPath:ascending:)`` that throws ``KeyPathKeyError`` for a key path that
    /// names no modeled property.
    public convenience init<Root, Value>(validatingKeyPath keyPath: KeyPath<Root, Value>, ascending: Bool) throws {
        self.init(key: try ManagedKeyPaths.key(for: keyPath).get(), ascending: ascending, selector: nil, keyPath: keyPath)
    }

    /// Mirrors `init(_:)` with Foundation's `SortDescriptor`: its key path's key (as
    /// ``init(keyPath:ascending:)``) and its order; its string comparison is `compare:` (Linux Foundation's
    /// only one, `.lexical`). A sort descriptor made from a comparator without a key path, or whose key
    /// path names no modeled property, traps, as Core Data raises.
    public convenience init<Compared>(_ sortDescriptor: SortDescriptor<Compared>) where Compared: NSObject {
        guard let keyPath = sortDescriptor.keyPath else {
            fatalError("NSSortDescriptor(_:): \(sortDescriptor) has no key path (a SortDescriptor made from a comparator cannot be run by a store)")
        }
        switch ManagedKeyPaths.key(for: keyPath) {
        case .success(let key): self.init(key: key, ascending: sortDescriptor.order == .forward, selector: nil, keyPath: keyPath)
        case .failure(let error): fatalError("\(error)")
        }
    }
}

extension NSExpression {
    /// Mirrors `init(forKeyPath:)` with a Swift key path: the key-path expression of its key (see
    /// ``NSSortDescriptor/init(keyPath:ascending:)``); a key path that names no modeled property traps.
    public convenience init<Root, Value>(forKeyPath keyPath: KeyPath<Root, Value>) {
        switch ManagedKeyPaths.key(for: keyPath) {
        case .success(let key): self.init(forKeyPath: key)
        case .failure(let error): fatalError("\(error)")
        }
    }
}
