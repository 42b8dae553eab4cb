import Foundation
import OpenCoreDataPredicates

/// A value behind an `NSLock` (a pthread mutex, which ThreadSanitizer follows: it reported the futex-based
/// `Mutex` of Synchronization as a race when two models loaded at once).
final class LockedValue<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

extension ManagedClasses {
    /// The classes loaded models resolved their entities to, by the names the entities give: asked by
    /// `NSClassFromString(_:)` (OpenCoreDataPredicates) for names Foundation does not know.
    private static let loaded: LockedValue<[String: NSManagedObject.Type]> = {
        _ClassLookup.register { name in ManagedClasses.loadedClass(named: name) }
        return LockedValue([:])
    }()

    /// Notes the class an entity named `name` resolved to.
    static func noteLoaded(_ cls: NSManagedObject.Type, as name: String) {
        guard cls != NSManagedObject.self, !name.isEmpty else { return }
        loaded.withLock { $0[name] = cls }
    }

    /// A class by the name a loaded model's entity gives it, or by its name without module among the
    /// `@Managed` classes when exactly one has it.
    static func loadedClass(named name: String) -> NSManagedObject.Type? {
        loaded.withLock({ $0[name] }) ?? uniqueClass(named: name)
    }

    /// The entity each class was last resolved for by a loaded model, weakly (a model that goes away
    /// takes its entities with it): what `NSManagedObject.entity()` answers.
    /// (Through ``WeakEntityReference``: a `weak` reference to the entity itself would give it a side
    /// table, and every retain of it by a managed object would take the slow path.)
    private static let entities = LockedValue<[ObjectIdentifier: WeakEntityReference]>([:])

    /// Notes the entity a class was resolved for.
    static func noteEntity(_ entity: NSEntityDescription, of cls: NSManagedObject.Type) {
        guard cls != NSManagedObject.self else { return }
        entities.withLock { $0[ObjectIdentifier(cls)] = WeakEntityReference(entity) }
    }

    /// The entity a class was last resolved for, if its model is still loaded.
    static func entity(of cls: NSManagedObject.Type) -> NSEntityDescription? {
        entities.withLock { $0[ObjectIdentifier(cls)]?.entity }
    }
}

extension NSManagedObject {
    /// Mirrors `class func entity()`: the entity this class stands for in the model that loaded it (the
    /// model loaded last, when several name the class). Traps with Core Data's message when no loaded
    /// model names the class, where Core Data raises.
    public class func entity() -> NSEntityDescription {
        guard let entity = ManagedClasses.entity(of: self) else {
            preconditionFailure("+entity: \(NSStringFromClass(self)) is not a subclass of NSManagedObject that a loaded model names (load the model, e.g. with a coordinator or container, first)")
        }
        return entity
    }
}

extension NSManagedObject {
    /// Mirrors `class func fetchRequest()`: a fetch request for ``entity()``, the entity this class
    /// stands for. As on Apple platforms, a class that declares Xcode's typed
    /// `fetchRequest() -> NSFetchRequest<Animal>` overloads this one by its result type, so
    /// `Animal.fetchRequest()` needs a type where the result goes (`let r: NSFetchRequest<Animal> = …`).
    public class func fetchRequest() -> NSFetchRequest<NSFetchRequestResult> {
        NSFetchRequest(entityName: entity().name ?? NSStringFromClass(self))
    }
}
