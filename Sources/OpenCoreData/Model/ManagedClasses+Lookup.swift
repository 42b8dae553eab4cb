import Foundation
import OpenCoreDataPredicates

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

    /// The entities each class was resolved for by loaded models, oldest load first, weakly (a model
    /// that goes away takes its entities with it): what `NSManagedObject.entity()` answers. One class is
    /// bound by several models when an app's classes meet an older version of its model (a migration's
    /// source model, an old store opened with its own model).
    /// (Through ``WeakEntityReference``: a `weak` reference to the entity itself would give it a side
    /// table, and every retain of it by a managed object would take the slow path.)
    private static let entities = LockedValue<[ObjectIdentifier: [WeakEntityReference]]>([:])

    /// Notes the entity a class was resolved for (the entities of models gone are dropped).
    static func noteEntity(_ entity: NSEntityDescription, of cls: NSManagedObject.Type) {
        guard cls != NSManagedObject.self else { return }
        entities.withLock { table in
            var bound = table[ObjectIdentifier(cls)] ?? []
            bound.removeAll { $0.entity == nil || $0.entity === entity }
            bound.append(WeakEntityReference(entity))
            table[ObjectIdentifier(cls)] = bound
        }
    }

    /// The entity a class was last resolved for whose model is still loaded.
    static func entity(of cls: NSManagedObject.Type) -> NSEntityDescription? {
        entities.withLock { table in table[ObjectIdentifier(cls)]?.reversed().lazy.compactMap(\.entity).first }
    }
}

extension NSManagedObject {
    /// Mirrors `class func entity()`: the entity this class stands for in the model that loaded it. When
    /// several loaded models name the class (the app's model and an older version of it, during a
    /// migration or while a tool reads an old store), the one loaded last that is still alive answers
    /// (Core Data logs "Multiple NSEntityDescriptions claim the NSManagedObject subclass" there and finds
    /// no unique match). `init(context:)` and fetches do not use this: they
    /// take the entity from the context's own model. Traps with Core Data's message when no loaded model
    /// names the class, where Core Data raises.
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
