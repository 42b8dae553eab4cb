import Foundation
import OpenCoreDataPredicates
import Synchronization

extension ManagedClasses {
    /// The classes loaded models resolved their entities to, by the names the entities give: asked by
    /// `NSClassFromString(_:)` (OpenCoreDataPredicates) for names Foundation does not know.
    private static let loaded: Mutex<[String: NSManagedObject.Type]> = {
        _ClassLookup.register { name in ManagedClasses.loadedClass(named: name) }
        return Mutex([:])
    }()

    /// Notes the class an entity named `name` resolved to.
    static func noteLoaded(_ cls: NSManagedObject.Type, as name: String) {
        guard cls != NSManagedObject.self, !name.isEmpty else { return }
        loaded.withLock { $0[name] = cls }
    }

    /// A class by the name a loaded model's entity gives it, or by its name without module among the
    /// `@Managed` classes when exactly one has it.
    static func loadedClass(named name: String) -> NSManagedObject.Type? {
        if let cls = loaded.withLock({ $0[name] }) { return cls }
        let plain = name.split(separator: ".").last.map(String.init) ?? name
        let candidates = catalog.classesByPlainName[plain] ?? []
        return candidates.count == 1 ? candidates[0] : nil
    }
}
