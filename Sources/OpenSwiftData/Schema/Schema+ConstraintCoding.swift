import Foundation

// `Schema.Unique` and `Schema.Index` encoded as SwiftData's coding keys name them, each key path by the name of
// the persisted property it reaches (a key path itself has no coded form).

extension Schema.Unique: Codable {
    /// Mirrors SwiftData's `Schema.Unique.CodingKeys`.
    public enum CodingKeys: String, CodingKey {
        /// Mirrors `constraints`.
        case constraints
    }

    /// Encodes each constraint as its properties' names.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(try ConstraintNames.names(of: constraints, in: T.self), forKey: .constraints)
    }

    /// Decodes the constraints from their properties' names (persisted properties of `T`).
    public convenience init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let names = try container.decode([[String]].self, forKey: .constraints)
        self.init(constraints: try ConstraintNames.keyPaths(named: names, in: T.self))
    }
}

extension Schema.Index: Codable {
    /// Mirrors SwiftData's `Schema.Index.CodingKeys`.
    public enum CodingKeys: String, CodingKey {
        /// Mirrors `indices`.
        case indices
    }

    /// Encodes each index as its kind and its properties' names.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let coded = try indices.map { index -> [String] in
            let kind = if case .rtree = index { "rtree" } else { "binary" }
            return [kind] + (try ConstraintNames.names(of: [index.keyPaths], in: T.self)[0])
        }
        try container.encode(coded, forKey: .indices)
    }

    /// Decodes the indexes from their kinds and properties' names.
    public convenience init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let coded = try container.decode([[String]].self, forKey: .indices)
        self.init(indices: try coded.map { entry in
            guard let kind = entry.first else { throw ConstraintNames.unknown("an empty index", T.self) }
            let paths = try ConstraintNames.keyPaths(named: [Array(entry.dropFirst())], in: T.self)[0]
            return kind == "rtree" ? .rtree(paths) : .binary(paths)
        })
    }
}

/// Key paths of a model's persisted properties by name, and back.
enum ConstraintNames {
    static func names<T: PersistentModel>(of groups: [[PartialKeyPath<T>]], in type: T.Type) throws -> [[String]] {
        try groups.map { group in
            try group.map { path in
                guard let name = ModelKeys.lookup(path, in: type) else { throw unknown("\(path)", type) }
                return name
            }
        }
    }

    static func keyPaths<T: PersistentModel>(named groups: [[String]], in type: T.Type) throws -> [[PartialKeyPath<T>]] {
        let byName = Dictionary(T.schemaMetadata.map { ($0.name, $0.keypath) }) { a, _ in a }
        return try groups.map { group in
            try group.map { name in
                guard let path = byName[name] as? PartialKeyPath<T> else { throw unknown(name, type) }
                return path
            }
        }
    }

    static func unknown(_ what: String, _ type: Any.Type) -> SwiftDataError {
        SwiftDataError(.unsupportedKeyPath, "\(what) is no persisted property of \(type)")
    }
}
