import CRuntimeRetain

/// For OpenSwiftData: how a managed object refers to the `@Model` instance showing it, so that a model fetched twice
/// is the same instance while something keeps it.
///
/// The link holds the model without a reference count where it can: a weak reference would give every model a side
/// table (an allocation per fetched model, and each retain and release of the model on the runtime's slow path:
/// Benchmarks/README.md, SwiftData). Held so, the model's backing data unlinks it when it goes, which it does with its
/// model as long as nothing else holds it. Backing data that can outlive its model (handed out by
/// `persistentBackingData`, or of a model written without `@Model`) links its model weakly instead.
package enum SwiftDataModelLink {
    case none
    /// The model, held without a count: its backing data unlinks it as it goes.
    case unretained(Unmanaged<AnyObject>)
    /// The model, held weakly (a box: most links need none, and the link stays one word).
    case weak(WeakModel)

    /// A weak reference to a model.
    package final class WeakModel {
        weak var model: AnyObject?
        init(_ model: AnyObject) { self.model = model }
    }

    /// The model, retained; `nil` when there is none, or while it is being deinitialized (its backing data has not
    /// unlinked it yet: the runtime refuses to retain it, as a weak reference would give `nil`).
    var model: AnyObject? {
        switch self {
        case .none: return nil
        case .unretained(let model): return swift_tryRetain(model.toOpaque()) != nil ? model.takeRetainedValue() : nil
        case .weak(let box): return box.model
        }
    }

    /// Links `model`: without a count unless `weakly`.
    mutating func link(_ model: AnyObject, weakly: Bool) {
        self = weakly ? .weak(WeakModel(model)) : .unretained(Unmanaged.passUnretained(model))
    }

    /// Forgets `model` if it is linked without a count: its backing data is going with it (a model linked since stays).
    mutating func unlink(_ model: Unmanaged<AnyObject>) {
        if case .unretained(let linked) = self, linked.toOpaque() == model.toOpaque() { self = .none }
    }

    /// Holds `model`, if it is linked without a count, weakly from now on: its backing data was handed out and may
    /// outlive it. The model is alive (the caller holds it).
    mutating func holdWeakly(_ model: Unmanaged<AnyObject>) {
        if case .unretained(let linked) = self, linked.toOpaque() == model.toOpaque() { self = .weak(WeakModel(model.takeUnretainedValue())) }
    }
}

extension NSManagedObject {
    /// For OpenSwiftData: the `@Model` instance that shows this object, while something keeps it (one per
    /// object, so that a model fetched twice is the same instance).
    package var swiftDataModel: AnyObject? {
        if let (batch, index) = bareBatch { return batch.swiftDataModel(at: index) }
        return objectState.swiftDataModel.model
    }

    /// Makes `model` the one showing this object (see ``SwiftDataModelLink``): without a count unless `weakly`.
    package func linkSwiftDataModel(_ model: AnyObject, weakly: Bool) {
        if let (batch, index) = bareBatch { return batch.modifySwiftDataModel(at: index) { $0.link(model, weakly: weakly) } }
        objectState.swiftDataModel.link(model, weakly: weakly)
    }

    /// Forgets `model` if it is linked without a count (``SwiftDataModelLink/unlink(_:)``): its backing data is going.
    package func unlinkSwiftDataModel(_ model: Unmanaged<AnyObject>) {
        if let (batch, index) = bareBatch { return batch.modifySwiftDataModel(at: index) { $0.unlink(model) } }
        objectState.swiftDataModel.unlink(model)
    }

    /// Holds `model` weakly from now on (``SwiftDataModelLink/holdWeakly(_:)``).
    package func holdSwiftDataModelWeakly(_ model: Unmanaged<AnyObject>) {
        if let (batch, index) = bareBatch { return batch.modifySwiftDataModel(at: index) { $0.holdWeakly(model) } }
        objectState.swiftDataModel.holdWeakly(model)
    }
}
