import Foundation

/// A transformable attribute's value as a slot keeps it (data) and back. Linux Foundation has no
/// `ValueTransformer`: an `NSCoding` object is archived with `NSKeyedArchiver` (the format of Core Data's
/// default transformer, `NSSecureUnarchiveFromData`), a `Codable` value is encoded as JSON (an addition),
/// `Data` is kept as it is.
enum ManagedTransform {
    static func encode(_ value: Any?, property: String) -> Value {
        guard let value = value.flatMap(flattenOptional) else { return .null }
        if let data = value as? Data { return .data(data) }
        if let object = value as? NSObject & NSCoding {
            guard let data = try? NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false) else {
                fatalError("@Managed property \(property): cannot archive \(type(of: object))")
            }
            // Predicates, expressions and sort descriptors in it named by Apple's classes, as Darwin writes them.
            return .data((try? AppleClassTable.applesClassNames(data)) ?? data)
        }
        if let encodable = value as? any Encodable {
            do { return .data(try JSONEncoder().encode(encodable)) } catch {
                fatalError("@Managed property \(property): cannot encode \(type(of: value)) (\(error))")
            }
        }
        fatalError("@Managed property \(property): a transformable attribute's value must be Data, an NSCoding object or Codable; \(type(of: value)) is none")
    }

    static func decode<T>(_ value: Value, as _: T.Type, property: String) -> T? {
        guard case .data(let data) = value else {
            if case .null = value { return Optional<Any>.none as? T }
            return value.anyValue as? T
        }
        if let data = data as? T { return data }
        let type = unwrappedType(T.self)
        if let cls = type as? AnyClass, let kind = ArchiveValidator.rootKind(of: cls) {
            // A predicate, expression or sort descriptor: through its checked unarchiver, which reads
            // Apple's class names and this module's.
            return (try? ArchiveValidator.unarchive(data, root: kind)) as? T
        }
        if type is (NSObject & NSCoding).Type {
            guard let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
            unarchiver.requiresSecureCoding = false
            AppleClassTable.mapApplesClasses(of: data, in: unarchiver)
            return unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? T
        }
        if let decodable = type as? any Decodable.Type {
            return (try? JSONDecoder().decode(decodable, from: data)) as? T
        }
        return nil
    }

    /// `Wrapped` for an optional type, the type itself otherwise.
    static func unwrappedType(_ type: Any.Type) -> Any.Type {
        (type as? any OptionalType.Type)?.wrappedType ?? type
    }
}

/// Lets the type of an optional name its wrapped type.
protocol OptionalType { static var wrappedType: Any.Type { get } }
extension Optional: OptionalType { static var wrappedType: Any.Type { Wrapped.self } }
