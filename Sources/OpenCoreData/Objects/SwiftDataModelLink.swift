import CRuntimeRetain

/// For OpenSwiftData: how a managed object refers to the `@Model` instance showing it, so that a model fetched twice
/// is the same instance while something keeps it.
///
/// The link holds the model by its unowned reference count (inline in the model, as its strong count is): the model's
/// memory stays while the link does, but not its life, and the link loads it only while it is alive (the runtime's
/// `swift_tryRetain`, which refuses a model being or done being deinitialized, as a weak load would). A weak reference
/// would give every model a side table: an allocation per fetched model, and each retain and release of the model on
/// the runtime's slow path (Benchmarks/README.md, SwiftData). The link's owner (an object's state, or its batch's list)
/// releases the count: ``release()``, when it goes or links another model.
package struct SwiftDataModelLink {
    private var unowned: Unmanaged<AnyObject>?

    /// No model.
    static var none: SwiftDataModelLink { SwiftDataModelLink(unowned: nil) }

    /// The model, retained; `nil` when there is none, or when it is being or was deinitialized.
    var model: AnyObject? {
        guard let unowned, swift_tryRetain(unowned.toOpaque()) != nil else { return nil }
        return unowned.takeRetainedValue()
    }

    /// Links `model` instead of the model linked before.
    mutating func link(_ model: AnyObject) {
        let new = Unmanaged.passUnretained(model)
        swift_unownedRetain(new.toOpaque())
        release()
        unowned = new
    }

    /// Releases the linked model's unowned count (its owner goes, or links another model).
    mutating func release() {
        if let unowned { swift_unownedRelease(unowned.toOpaque()) }
        unowned = nil
    }

    /// The link, moved out (this one left empty, its count now the result's).
    mutating func take() -> SwiftDataModelLink {
        defer { unowned = nil }
        return self
    }
}

extension NSManagedObject {
    /// For OpenSwiftData: the `@Model` instance that shows this object, while something keeps it (one per
    /// object, so that a model fetched twice is the same instance).
    package var swiftDataModel: AnyObject? {
        if let (batch, index) = bareBatch { return batch.swiftDataModel(at: index) }
        return objectState.swiftDataModel.model
    }

    /// Makes `model` the one showing this object (see ``SwiftDataModelLink``).
    package func linkSwiftDataModel(_ model: AnyObject) {
        if let (batch, index) = bareBatch { return batch.linkSwiftDataModel(model, at: index) }
        objectState.swiftDataModel.link(model)
    }
}
