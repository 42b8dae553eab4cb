import Foundation
import Observation

/// A key path Observation is told a managed object's property was read or changed with. Each property
/// has one, the same for every read and change of it, so that the two match: the `@Managed` property's own
/// (`\Products.name`, from its section record, found from the object's class up), or for a property no
/// `@Managed` declaration names (an entity without a class of its own), `\NSManagedObject.[observedKey:]`
/// of its name.
protocol ObservedKeyPath {
    /// `registrar.access(object, keyPath: self)`, with the object as the key path's root.
    func access(_ registrar: ObservationRegistrar, _ object: NSManagedObject)
    /// `registrar.willSet` then `didSet` of `object` and this key path.
    func announceChange(_ registrar: ObservationRegistrar, _ object: NSManagedObject)
}

extension KeyPath: ObservedKeyPath where Root: NSManagedObject {
    func access(_ registrar: ObservationRegistrar, _ object: NSManagedObject) {
        registrar.access(unsafeDowncast(object, to: Root.self), keyPath: self)
    }

    func announceChange(_ registrar: ObservationRegistrar, _ object: NSManagedObject) {
        let subject = unsafeDowncast(object, to: Root.self)
        registrar.willSet(subject, keyPath: self)
        registrar.didSet(subject, keyPath: self)
    }
}

extension NSManagedObject {
    /// What `\NSManagedObject.[observedKey: name]` reads: ``value(forKey:)``. The key path of a property
    /// no `@Managed` declaration names, in Observation's records.
    subscript(observedKey key: String) -> Any? { value(forKey: key) }
}

/// The ``ObservedKeyPath`` of each class and property, found once.
enum ObservedKeyPaths {
    private struct Key: Hashable {
        let owner: ObjectIdentifier
        let name: String
    }

    private static let found = LockedValue<[Key: any ObservedKeyPath]>([:])

    /// The key path announcing property `name` of objects of class `cls`.
    static func keyPath(of cls: NSManagedObject.Type, _ name: String) -> any ObservedKeyPath {
        let key = Key(owner: ObjectIdentifier(cls), name: name)
        if let known = found.withLock({ $0[key] }) { return known }
        let keyPath = declared(cls, name) ?? (\NSManagedObject.[observedKey: name])
        found.withLock { $0[key] = keyPath }
        return keyPath
    }

    /// The `@Managed` declaration's key path of `name`, in `cls` or the nearest superclass declaring it.
    private static func declared(_ cls: NSManagedObject.Type, _ name: String) -> (any ObservedKeyPath)? {
        var current: AnyClass? = cls
        while let owner = current as? NSManagedObject.Type {
            let members = ManagedClasses.catalog.members[ObjectIdentifier(owner)] ?? []
            if let plain = members.first(where: { $0.name == name })?.keyPaths?.plain { return plain as? any ObservedKeyPath }
            current = _getSuperclass(owner)
        }
        return nil
    }
}
