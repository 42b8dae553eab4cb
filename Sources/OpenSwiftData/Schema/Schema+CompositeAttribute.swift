import Foundation

extension Schema {
    /// Mirrors SwiftData's `Schema.CompositeAttribute`: a `Codable` struct property, stored as Core Data's
    /// composite attribute (a column per field); ``properties`` are its fields.
    public final class CompositeAttribute: Attribute, Codable {
        /// Mirrors `properties`: the struct's fields, in the order its `init(from:)` reads them.
        public var properties: [Attribute] = []

        /// Mirrors `init(name:originalName:options:valueType:defaultValue:hashModifier:)`: the fields are found
        /// from `valueType` (a `Codable` struct of standard value types); none when it is not one.
        public override init(name: String, originalName: String? = nil, options: [Option] = [], valueType: any Any.Type,
                             defaultValue: Any? = nil, hashModifier: String? = nil) {
            super.init(name: name, originalName: originalName, options: options, valueType: valueType, defaultValue: defaultValue,
                       hashModifier: hashModifier)
            properties = (try? Self.fields(of: valueType)) ?? []
        }

        /// The fields of a `Codable` struct type as attributes; throws why the type is no composite.
        static func fields(of valueType: Any.Type) throws -> [Attribute] {
            guard let decodable = unwrappedType(valueType).type as? any Decodable.Type else {
                throw CompositeCoding.Unsupported(description: "\(valueType) is not Codable")
            }
            return try CompositeCoding.fields(of: decodable).map { field in
                Attribute(name: field.name, valueType: field.optional ? optionalType(field.type) : field.type)
            }
        }

        private enum CodingKeys: String, CodingKey { case name, originalName, fields, optional }

        /// Mirrors `encode(to:)`: the name, original name, and each field's name and type name.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(originalName, forKey: .originalName)
            try container.encode(isOptional, forKey: .optional)
            try container.encode(properties.map { [$0.name, "\($0.valueType)"] }, forKey: .fields)
        }

        /// Mirrors `init(from:)`: a composite whose fields have the standard types their names give (what
        /// ``encode(to:)`` wrote); its value type is the fields' dictionary.
        public required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let name = try container.decode(String.self, forKey: .name)
            let optional = try container.decode(Bool.self, forKey: .optional)
            super.init(name: name, originalName: try container.decode(String.self, forKey: .originalName),
                       valueType: optional ? [String: Any]?.self : [String: Any].self)
            properties = try container.decode([[String]].self, forKey: .fields).map { pair in
                guard pair.count == 2, let type = CompositeCoding.leafType(named: pair[1]) else {
                    throw DecodingError.dataCorruptedError(forKey: .fields, in: container, debugDescription: "unknown field \(pair)")
                }
                return Attribute(name: pair[0], valueType: type)
            }
        }

        /// The composite as a debugger shows it.
        public var debugDescription: String { "CompositeAttribute(\(name): \(properties.map { "\($0.name): \($0.valueType)" }.joined(separator: ", ")))" }

        /// Mirrors `==`: the same name, type and fields.
        public static func == (lhs: CompositeAttribute, rhs: CompositeAttribute) -> Bool {
            lhs.name == rhs.name && lhs.valueType == rhs.valueType && lhs.properties == rhs.properties
        }
    }
}

/// `Optional<type>` as a metatype.
func optionalType(_ type: Any.Type) -> Any.Type {
    func wrap<T>(_: T.Type) -> Any.Type { T?.self }
    return _openExistential(type, do: wrap)
}
