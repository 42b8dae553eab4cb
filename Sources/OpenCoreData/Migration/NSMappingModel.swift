import Foundation

/// Mirrors Core Data's `NSMappingModel`: how to migrate a store from one model to another, as entity
/// mappings. ``inferredMappingModel(forSourceModel:destinationModel:)`` infers one for the changes Core
/// Data's lightweight migration handles (docs/Migration.md). Xcode's `.xcmappingmodel` folders are read by
/// ``init(contentsOf:)`` and found in bundles by ``init(from:forSourceModel:destinationModel:)``; compiled
/// `.cdm` files are not read.
open class NSMappingModel: NSObject {
    /// Mirrors `entityMappings`.
    open var entityMappings: [NSEntityMapping]! = []

    /// Mirrors `entityMappingsByName`.
    open var entityMappingsByName: [String: NSEntityMapping] {
        Dictionary((entityMappings ?? []).compactMap { m in m.name.map { ($0, m) } }, uniquingKeysWith: { first, _ in first })
    }

    /// Mirrors `init()`.
    public override init() { super.init() }

    /// Mirrors `isEqual(_:)`: as on Apple platforms, two mapping models are equal when their entity
    /// mappings are, in order (``NSEntityMapping/isEqual(_:)``): two mapping models read from one
    /// `.xcmappingmodel`, or inferred from the same two models, are equal (and so `==`).
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSMappingModel else { return false }
        return other === self || (entityMappings ?? []) == (other.entityMappings ?? [])
    }

    /// Mirrors `hash`: of the entity mappings' names (equal mapping models have the same).
    open override var hash: Int { (entityMappings ?? []).map(\.name).hashValue }

    /// Mirrors `inferredMappingModel(forSourceModel:destinationModel:)`: the mapping Core Data's
    /// lightweight migration infers between the two models, or `NSInferredMappingModelError` (134190)
    /// naming the change it cannot infer.
    open class func inferredMappingModel(forSourceModel source: NSManagedObjectModel,
                                         destinationModel destination: NSManagedObjectModel) throws -> NSMappingModel {
        // Relationships name their destinations by name until a model is complete.
        try source.freeze()
        try destination.freeze()
        let model = NSMappingModel()
        model.entityMappings = try MappingInference(source: source, destination: destination).entityMappings()
        return model
    }
}
