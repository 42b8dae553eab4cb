/// A reference to an entity that does not keep it alive and reads `nil` once the entity is gone, as
/// `weak` does, but made through the entity's ``EntityHandle`` so that the entity itself is never the
/// target of a weak reference.
///
/// Why: the Swift runtime moves an object's reference count to a side table the first time anything
/// references it weakly, and from then on every retain of it is an out-of-line atomic on that table.
/// Every managed object and object ID retains its entity, so a fetch of 100,000 rows paid that slow path
/// 100,000 times (about 8% of a plain fetch, profiled). The model's back references (a property's entity,
/// a subentity's superentity, a relationship's destination, an index's entity) go through the handle,
/// which takes the side table instead.
struct WeakEntityReference {
    private weak var handle: EntityHandle?

    init(_ entity: NSEntityDescription? = nil) { handle = entity?.handle }

    /// The entity, or `nil` once it is gone.
    var entity: NSEntityDescription? { handle?.entity }
}

/// What ``WeakEntityReference`` points at: one per entity, owned by the entity alone (so it lives
/// exactly as long as the entity), pointing back without counting.
final class EntityHandle {
    unowned(unsafe) let entity: NSEntityDescription
    init(_ entity: NSEntityDescription) { self.entity = entity }
}
