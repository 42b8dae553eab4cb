import Dispatch
import Foundation
import OpenCoreData

/// Mirrors SwiftData's `ModelExecutor`: an executor that owns a model context.
public protocol ModelExecutor: AnyObject, Sendable {
    /// Mirrors `modelContext`: the context the executor's jobs use.
    var modelContext: ModelContext { get }
}

/// Mirrors SwiftData's `SerialModelExecutor`: a model executor that runs one job at a time.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// Mirrors SwiftData's `DefaultSerialModelExecutor`: runs an actor's jobs one at a time on a serial queue of
/// its own, so that the actor's context is only ever used by one thread at a time.
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    /// Mirrors `modelContext`.
    public let modelContext: ModelContext
    private let queue = DispatchQueue(label: "OpenSwiftData.DefaultSerialModelExecutor")

    /// Mirrors `init(modelContext:)`. The context then merges the saves of the container's other contexts,
    /// on this executor, between the actor's jobs (as SwiftData's actors see what other contexts save).
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        let queue = self.queue
        modelContext.managedObjectContext.mergeScheduler = { work in queue.async(execute: work) }
        modelContext.managedObjectContext.automaticallyMergesChangesFromParent = true
    }

    /// Runs `job` after the jobs enqueued before it (`SerialExecutor`).
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// This executor (`SerialExecutor`).
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
}

/// Mirrors SwiftData's `ModelActor`: an actor whose jobs run on a model executor, so that its
/// ``modelContext`` is used on one thread at a time (`@ModelActor` writes the conformance).
public protocol ModelActor: Actor {
    /// Mirrors `modelContainer`.
    nonisolated var modelContainer: ModelContainer { get }
    /// Mirrors `modelExecutor`.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// Mirrors `unownedExecutor`: the model executor (`Actor`).
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        guard let serial = modelExecutor as? any SerialExecutor else {
            fatalError("\(Self.self)'s model executor \(type(of: modelExecutor)) is no SerialExecutor")
        }
        return serial.asUnownedSerialExecutor()
    }

    /// Mirrors `modelContext`: the executor's context.
    public var modelContext: ModelContext { modelExecutor.modelContext }

    /// Mirrors `subscript(_:as:)`: the model of an identifier in this actor's context, `nil` when the
    /// store has no such object. A store that cannot be read traps (the subscript cannot throw, and a failed
    /// read is not an absent model).
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as as: T.Type) -> T? {
        if let registered: T = modelContext.registeredModel(for: id) { return registered }
        guard let objectID = modelContext.objectID(of: id) else { return nil }
        do {
            return modelContext.model(for: try modelContext.managedObjectContext.existingObject(with: objectID)) as? T
        } catch let error as CoreDataError where error.code == NSManagedObjectReferentialIntegrityError {
            return nil
        } catch {
            fatalError("\(Self.self)[\(id.id.uri)]: the store could not be read: \(error)")
        }
    }
}

/// Mirrors SwiftData's `@ModelActor()`: an actor with a model container and a context of its own on a
/// ``DefaultSerialModelExecutor`` (`init(modelContainer:)`, `modelContainer`, `modelExecutor`).
@attached(member, names: named(modelExecutor), named(modelContainer), named(init))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "OpenCoreDataMacros", type: "ModelActorMacro")
