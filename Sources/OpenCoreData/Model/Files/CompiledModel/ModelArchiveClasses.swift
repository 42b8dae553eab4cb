import Foundation
import OpenCoreDataPredicates

/// The classes a compiled model's archive may name, and how each is decoded (see
/// `ModelArchiveDecoder`): the model's own classes by their `init?(coder:)`, Foundation's values by
/// ``ModelArchiveValues``, predicates, expressions and sort descriptors by the predicates module's checked
/// unarchiver, and a class the app maps with `NSKeyedUnarchiver.setClass(_:forClassName:)` (the value
/// class of a transformable attribute's default) by its own `init?(coder:)`. Anything else is an error.
enum ModelArchiveClasses {
    /// "Any class of the table", for a `decodeObject(forKey:)` without a class list.
    static let anyClass: AnyClass = NSObject.self

    /// The model's classes by the name Apple's archives give them (and the name Foundation's archiver on
    /// Linux writes for ours).
    static let modelClasses: [String: (NSObject & NSCoding).Type] = {
        // A fetch request is named by its stand-in: NSStringFromClass traps on a generic class.
        var table: [String: (NSObject & NSCoding).Type] = [NSStringFromClass(FetchRequestArchiveName.self): NSFetchRequest<NSFetchRequestResult>.self]
        let classes: [(String, (NSObject & NSCoding).Type)] = [
            ("NSManagedObjectModel", NSManagedObjectModel.self), ("NSEntityDescription", NSEntityDescription.self),
            ("NSAttributeDescription", NSAttributeDescription.self), ("NSDerivedAttributeDescription", NSDerivedAttributeDescription.self),
            ("NSCompositeAttributeDescription", NSCompositeAttributeDescription.self),
            ("NSRelationshipDescription", NSRelationshipDescription.self),
            ("NSFetchedPropertyDescription", NSFetchedPropertyDescription.self),
            ("NSExpressionDescription", NSExpressionDescription.self),
            ("NSFetchRequest", NSFetchRequest<NSFetchRequestResult>.self),
            ("NSFetchIndexDescription", NSFetchIndexDescription.self),
            ("NSFetchIndexElementDescription", NSFetchIndexElementDescription.self),
        ]
        for (name, cls) in classes {
            table[name] = cls
            if name != "NSFetchRequest" { table[NSStringFromClass(cls)] = cls }
        }
        return table
    }()

    /// Decodes the object at `index` (not yet decoded), which must be of one of `allowed`.
    static func decode(_ index: Int, allowed: [AnyClass], in decoder: ModelArchiveDecoder) -> Any? {
        let value: Any
        switch decoder.objects[index] {
        case .string(let s): value = s
        case .integer(let i): value = NSNumber(value: i)
        case .real(let d): value = NSNumber(value: d)
        case .bool(let b): value = NSNumber(value: b)
        case .data(let d): value = d
        case .date(let d): value = d
        case .dictionary(let dict):
            guard let name = decoder.className(at: index) else { decoder.record("object \(index) has no valid class"); return nil }
            return decodeInstance(index, dict, name: name, allowed: allowed, in: decoder)
        case .uid, .array:
            decoder.record("object \(index) is not an object of the archive")
            return nil
        }
        return check(value, allowed: allowed, in: decoder)
    }

    private static func decodeInstance(_ index: Int, _ dict: [String: PropertyListTree], name: String, allowed: [AnyClass],
                                       in decoder: ModelArchiveDecoder) -> Any? {
        if let kind = ModelArchiveValues.Kind(rawValue: name) {
            guard isAllowed(kind.foundationClass, allowed) else { return refuse(name, allowed, decoder) }
            return ModelArchiveValues.decode(kind, dict, allowed: allowed, in: decoder)
        }
        if let kind = ArchiveValidator.rootKind(ofClassNamed: name) {
            return decodePredicatePart(index, name: name, kind: kind, allowed: allowed, in: decoder)
        }
        if let cls = modelClasses[name] {
            guard isAllowed(cls, allowed) else { return refuse(name, allowed, decoder) }
            return decoder.instantiate(cls, at: index, dict)
        }
        if let cls = NSKeyedUnarchiver.class(forClassName: name) {
            guard let coding = cls as? (NSObject & NSSecureCoding).Type, coding.supportsSecureCoding else {
                decoder.record("the class \(String(describing: cls)) that \(name) is mapped to does not adopt NSSecureCoding")
                return nil
            }
            guard isAllowed(cls, allowed) else { return refuse(name, allowed, decoder) }
            return decoder.instantiate(coding, at: index, dict)
        }
        decoder.record("the archive names the class \(name), which is not one a compiled model holds"
                       + " (an app's own class is decoded once NSKeyedUnarchiver.setClass(_:forClassName:) names it)")
        return nil
    }

    /// A predicate, expression or sort descriptor: decoded by the predicates module from an archive of it
    /// alone, which checks its classes, keys and nesting.
    private static func decodePredicatePart(_ index: Int, name: String, kind: ArchiveValidator.Kind, allowed: [AnyClass],
                                            in decoder: ModelArchiveDecoder) -> Any? {
        let object: NSObject?
        do {
            object = try ArchiveValidator.unarchive(decoder.standaloneArchive(of: index), root: kind)
        } catch {
            decoder.record("the \(name) does not decode: \(error)")
            return nil
        }
        guard let object else { decoder.record("the \(name) does not decode"); return nil }
        return check(object, allowed: allowed, in: decoder)
    }

    private static func refuse(_ name: String, _ allowed: [AnyClass], _ decoder: ModelArchiveDecoder) -> Any? {
        decoder.record("an object of class \(name) where \(allowed.map { String(describing: $0) }.joined(separator: " or ")) belongs")
        return nil
    }

    /// `object` if its class is one of `allowed` (or a subclass of one); `nil` with a failure otherwise.
    static func check(_ object: Any, allowed: [AnyClass], in decoder: ModelArchiveDecoder) -> Any? {
        let cls: AnyClass = foundationClass(of: object)
        guard isAllowed(cls, allowed) else { return refuse(String(describing: cls), allowed, decoder) }
        return object
    }

    static func isAllowed(_ cls: AnyClass, _ allowed: [AnyClass]) -> Bool {
        allowed.contains { a in cls == a || (cls as? NSObject.Type)?.isSubclass(of: a) == true }
    }

    /// The Foundation class a decoded value stands for (a Swift `String` is an `NSString`…).
    static func foundationClass(of value: Any) -> AnyClass {
        switch value {
        case is String: return NSString.self
        case let n as NSNumber: return type(of: n)
        case is Data: return NSData.self
        case is Date: return NSDate.self
        case is UUID: return NSUUID.self
        case is URL: return NSURL.self
        case is [Any]: return NSArray.self
        case is [String: Any]: return NSDictionary.self
        case is Set<AnyHashable>: return NSSet.self
        case let object as AnyObject where !(type(of: object) is NSObject.Type): return NSObject.self
        case let object as AnyObject: return type(of: object)
        }
    }

    /// How an object of the archive is named in an error: `entity Book`, `attribute title`…; `nil` for
    /// objects that are not named.
    static func describe(_ object: [String: PropertyListTree], className: String?, objects: [PropertyListTree]) -> String? {
        func string(_ key: String) -> String? {
            guard case .uid(let i)? = object[key], i > 0, i < objects.count else { return nil }
            if case .string(let s) = objects[i] { return s }
            if case .string(let s)? = objects[i]["NS.string"] { return s }
            return nil
        }
        switch className {
        case "NSManagedObjectModel": return nil
        case "NSEntityDescription": return "entity \(string("NSEntityName") ?? "?")"
        case "NSAttributeDescription", "NSDerivedAttributeDescription", "NSCompositeAttributeDescription":
            return "attribute \(string("NSPropertyName") ?? "?")"
        case "NSRelationshipDescription": return "relationship \(string("NSPropertyName") ?? "?")"
        case "NSFetchedPropertyDescription": return "fetched property \(string("NSPropertyName") ?? "?")"
        case "NSExpressionDescription": return "expression description \(string("NSPropertyName") ?? "?")"
        case "NSFetchIndexDescription": return "fetch index \(string("NSIndexName") ?? "?")"
        case "NSFetchRequest": return "fetch request"
        case let name?: return name
        case nil: return nil
        }
    }
}
