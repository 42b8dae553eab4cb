import Foundation

/// What `#Unique` and `#Index` put in a model's metadata: groups of key paths of the model.
protocol ModelConstraint {
    var isIndex: Bool { get }
    var keyPathGroups: [[AnyKeyPath]] { get }
}

extension Schema {
    /// Mirrors SwiftData's `Schema.Unique`: the uniqueness constraints `#Unique` declares, each one property or
    /// several together.
    public final class Unique<T: PersistentModel>: SchemaProperty, Hashable, ModelConstraint {
        /// Mirrors `constraints`.
        public let constraints: [[PartialKeyPath<T>]]

        /// Mirrors `init(_:)`.
        public convenience init(_ constraints: [PartialKeyPath<T>]...) { self.init(constraints: constraints) }

        init(constraints: [[PartialKeyPath<T>]]) { self.constraints = constraints }

        /// Mirrors `name`: constraints have none.
        public var name: String { "" }
        /// Mirrors `originalName`.
        public var originalName: String { "" }
        /// Mirrors `valueType`: the model.
        public var valueType: any Any.Type { T.self }
        /// Mirrors `isAttribute`: `false`.
        public var isAttribute: Bool { false }
        /// Mirrors `isRelationship`: `false`.
        public var isRelationship: Bool { false }
        /// Mirrors `isOptional`: `false`.
        public var isOptional: Bool { false }
        /// Mirrors `isTransient`: `false`.
        public var isTransient: Bool { false }
        /// Mirrors `isUnique`: `true`.
        public var isUnique: Bool { true }

        var isIndex: Bool { false }
        var keyPathGroups: [[AnyKeyPath]] { constraints.map { $0.map { $0 as AnyKeyPath } } }

        /// Equal when the same constraints.
        public static func == (lhs: Unique, rhs: Unique) -> Bool { lhs.constraints == rhs.constraints }
        /// Hashes the constraints.
        public func hash(into hasher: inout Hasher) { hasher.combine(constraints) }
    }

    /// Mirrors SwiftData's `Schema.Index`: the indexes `#Index` declares.
    public final class Index<T: PersistentModel>: SchemaProperty, Hashable, ModelConstraint {
        /// Mirrors SwiftData's `Schema.Index.Types`: an index's kind and its properties.
        public enum Types<P: PersistentModel>: Hashable {
            /// Mirrors `binary(_:)`: a B-tree index over the properties, in order.
            case binary([PartialKeyPath<P>])
            /// Mirrors `rtree(_:)`: an R-tree index over numeric properties (here a B-tree: docs/SwiftData.md).
            case rtree([PartialKeyPath<P>])

            var keyPaths: [PartialKeyPath<P>] {
                switch self { case .binary(let paths), .rtree(let paths): paths }
            }
        }

        /// Mirrors `indices`.
        public let indices: [Types<T>]

        /// Mirrors `init(_:)` with index kinds.
        public convenience init(_ indices: Schema.Index<T>.Types<T>...) { self.init(indices: indices) }

        /// Mirrors `init(_:)` with key paths: a binary index for each group.
        public convenience init(_ indices: [PartialKeyPath<T>]...) { self.init(indices: indices.map { .binary($0) }) }

        init(indices: [Types<T>]) { self.indices = indices }

        /// Mirrors `name`: indexes have none.
        public var name: String { "" }
        /// Mirrors `originalName`.
        public var originalName: String { "" }
        /// Mirrors `valueType`: the model.
        public var valueType: any Any.Type { T.self }
        /// Mirrors `isAttribute`: `false`.
        public var isAttribute: Bool { false }
        /// Mirrors `isRelationship`: `false`.
        public var isRelationship: Bool { false }
        /// Mirrors `isOptional`: `false`.
        public var isOptional: Bool { false }
        /// Mirrors `isTransient`: `false`.
        public var isTransient: Bool { false }
        /// Mirrors `isUnique`: `false`.
        public var isUnique: Bool { false }

        var isIndex: Bool { true }
        var keyPathGroups: [[AnyKeyPath]] { indices.map { $0.keyPaths.map { $0 as AnyKeyPath } } }

        /// Equal when the same indexes.
        public static func == (lhs: Index, rhs: Index) -> Bool { lhs.indices == rhs.indices }
        /// Hashes the indexes.
        public func hash(into hasher: inout Hasher) { hasher.combine(indices) }
    }
}
