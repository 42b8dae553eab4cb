import Foundation
import OpenCoreDataPredicates

/// The keyed archiver of compiled models, the counterpart of `ModelArchiveDecoder`: it writes what the
/// model classes' `encode(with:)` say as Apple's `NSKeyedArchiver` would, with Apple's class names
/// (`NSEntityDescription`, `NSAttributeDescription`…) and Foundation's values in their archived forms.
///
/// Why not swift-corelibs-foundation's `NSKeyedArchiver`: it names classes by their Swift names and never
/// applies `setClassName(_:for:)`; `NSStringFromClass` traps on a generic class (`NSFetchRequest<…>`); and
/// it shares objects that are merely equal, so that a Boolean `false` and an integer `0` of one archive
/// become one object of one kind. Here class instances are shared by identity only, strings by value,
/// numbers by value and kind. Predicates, expressions and sort descriptors are archived by the predicates
/// module (Apple's class names, ``AppleClassTable``) and spliced in.
final class ModelArchiveEncoder: NSCoder {
    private var objects: [PropertyListTree] = [.string("$null")]
    private var frames: [[String: PropertyListTree]] = []
    private var instances: [ObjectIdentifier: Int] = [:]
    private var kept: [AnyObject] = []  // keeps the identifiers of `instances` unique while archiving
    private var values: [String: Int] = [:]
    private var classes: [String: Int] = [:]
    /// Conditional references, resolved once everything is written: (object index, key, the object).
    private var conditionals: [(index: Int, key: String, object: ObjectIdentifier)] = []
    private var pendingIndex: [Int] = []
    private var failure: Error?

    /// The keyed archive of `root`.
    static func archive(_ root: NSObject & NSCoding) throws -> Data {
        let encoder = ModelArchiveEncoder()
        let reference = encoder.reference(root)
        for conditional in encoder.conditionals {
            guard case .dictionary(var object) = encoder.objects[conditional.index] else { continue }
            object[conditional.key] = .uid(encoder.instances[conditional.object] ?? 0)
            encoder.objects[conditional.index] = .dictionary(object)
        }
        if let failure = encoder.failure { throw failure }
        return PropertyListTree.dictionary([
            "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
            "$top": .dictionary(["root": reference]), "$objects": .array(encoder.objects),
        ]).binaryData()
    }

    override var allowsKeyedCoding: Bool { true }
    override var requiresSecureCoding: Bool { true }
    override var systemVersion: UInt32 { 1000 }

    private func set(_ key: String, _ value: PropertyListTree) {
        guard !frames.isEmpty else { return }
        frames[frames.count - 1][key] = value
    }

    override func encode(_ object: Any?, forKey key: String) { set(key, reference(object)) }
    override func encode(_ value: Bool, forKey key: String) { set(key, .bool(value)) }
    override func encode(_ value: Int, forKey key: String) { set(key, .integer(Int64(value))) }
    override func encode(_ value: Int32, forKey key: String) { set(key, .integer(Int64(value))) }
    override func encode(_ value: Int64, forKey key: String) { set(key, .integer(value)) }
    override func encode(_ value: Float, forKey key: String) { set(key, .real(Double(value))) }
    override func encode(_ value: Double, forKey key: String) { set(key, .real(value)) }
    override func encodeBytes(_ bytes: UnsafePointer<UInt8>?, length: Int, forKey key: String) {
        set(key, .data(bytes.map { Data(bytes: $0, count: length) } ?? Data()))
    }

    override func encodeConditionalObject(_ object: Any?, forKey key: String) {
        guard let object = object as? AnyObject, let index = pendingIndex.last else { return set(key, .uid(0)) }
        conditionals.append((index, key, ObjectIdentifier(object)))
        set(key, .uid(0))
    }

    /// A reference to `object`, written once (class instances by identity; strings and numbers by value).
    private func reference(_ object: Any?) -> PropertyListTree {
        switch object {
        case nil: return .uid(0)
        case let s as String: return shared("s" + s, .string(s))
        case let n as NSNumber where !(n is NSDecimalNumber): return number(n)
        case let d as Data: return .uid(add(.data(d)))
        case let d as Date: return .uid(add(.dictionary(["NS.time": .real(d.timeIntervalSinceReferenceDate), "$class": classReference("NSDate", ["NSDate", "NSObject"])])))
        case let u as UUID: return uuid(u)
        case let u as URL: return url(u)
        case let array as [Any]: return collection("NSArray", array)
        case let set as Set<AnyHashable>: return collection("NSSet", set.map { $0.base })
        case let dictionary as [String: Any]: return self.dictionary(dictionary)
        default: break
        }
        guard let instance = object as? NSObject else { return unsupported(object) }
        if let index = instances[ObjectIdentifier(instance)] { return .uid(index) }
        switch instance {
        case let set as NSSet: return collection("NSSet", set.allObjects)
        case let array as NSArray: return collection("NSArray", array.map { $0 })
        case let dictionary as NSDictionary: return self.dictionary(dictionary)
        case let d as NSDecimalNumber: return reference(DecimalArchive(d.decimalValue))
        case is NSPredicate, is NSExpression, is NSSortDescriptor: return splice(instance)
        default: break
        }
        guard let coding = instance as? NSCoding else { return unsupported(object) }
        return encodeInstance(instance, coding)
    }

    private func encodeInstance(_ instance: NSObject, _ coding: NSCoding) -> PropertyListTree {
        let index = add(.string("$null"))
        instances[ObjectIdentifier(instance)] = index
        kept.append(instance)
        let (name, chain) = Self.className(of: instance)
        frames.append(["$class": classReference(name, chain)])
        pendingIndex.append(index)
        coding.encode(with: self)
        pendingIndex.removeLast()
        objects[index] = .dictionary(frames.removeLast())
        return .uid(index)
    }

    private func add(_ value: PropertyListTree) -> Int {
        objects.append(value)
        return objects.count - 1
    }

    private func shared(_ key: String, _ value: PropertyListTree) -> PropertyListTree {
        if let index = values[key] { return .uid(index) }
        let index = add(value)
        values[key] = index
        return .uid(index)
    }

    /// A number by its kind: a Boolean stays a Boolean, an integer an integer, so that `false` and `0` are
    /// two objects.
    private func number(_ n: NSNumber) -> PropertyListTree {
        switch String(cString: n.objCType) {
        case "c", "B": return shared("b\(n.boolValue)", .bool(n.boolValue))
        case "f", "d": return shared("r\(n.doubleValue.bitPattern)", .real(n.doubleValue))
        default: return shared("i\(n.int64Value)", .integer(n.int64Value))
        }
    }

    private func classReference(_ name: String, _ chain: [String]) -> PropertyListTree {
        if let index = classes[name] { return .uid(index) }
        let index = add(.dictionary(["$classname": .string(name), "$classes": .array(chain.map { .string($0) })]))
        classes[name] = index
        return .uid(index)
    }

    private func collection(_ name: String, _ items: [Any]) -> PropertyListTree {
        let refs = items.map { reference($0) }
        return .uid(add(.dictionary(["NS.objects": .array(refs), "$class": classReference(name, [name, "NSObject"])])))
    }

    private func dictionary(_ dictionary: [String: Any]) -> PropertyListTree {
        let keys = dictionary.keys.sorted()
        return .uid(add(.dictionary(["NS.keys": .array(keys.map { reference($0) }), "NS.objects": .array(keys.map { reference(dictionary[$0]) }),
                                     "$class": classReference("NSDictionary", ["NSDictionary", "NSObject"])])))
    }

    private func dictionary(_ dictionary: NSDictionary) -> PropertyListTree {
        var pairs: [String: Any] = [:]
        for (key, value) in dictionary {
            guard let key = key as? String else { return unsupported(dictionary) }
            pairs[key] = value
        }
        return self.dictionary(pairs)
    }

    private func uuid(_ u: UUID) -> PropertyListTree {
        let bytes = withUnsafeBytes(of: u.uuid) { Data($0) }
        return .uid(add(.dictionary(["NS.uuidbytes": .data(bytes), "$class": classReference("NSUUID", ["NSUUID", "NSObject"])])))
    }

    private func url(_ u: URL) -> PropertyListTree {
        .uid(add(.dictionary(["NS.base": .uid(0), "NS.relative": reference(u.absoluteString), "$class": classReference("NSURL", ["NSURL", "NSObject"])])))
    }

    /// A predicate, expression or sort descriptor: the predicates module's archive of it (Apple's classes),
    /// its objects appended to this archive's.
    private func splice(_ object: NSObject) -> PropertyListTree {
        let data: Data
        do {
            switch object {
            case let p as NSPredicate: data = try NSKeyedArchiver.archivedData(withRootObject: p, requiringSecureCoding: true)
            case let e as NSExpression: data = try NSKeyedArchiver.archivedData(withRootObject: e, requiringSecureCoding: true)
            case let s as NSSortDescriptor: data = try NSKeyedArchiver.archivedData(withRootObject: s, requiringSecureCoding: true)
            default: return unsupported(object)
            }
            guard case .array(let parts)? = try PropertyListTree(data)["$objects"], case .uid(let root)? = try PropertyListTree(data)["$top"]?["root"] else {
                return unsupported(object)
            }
            let offset = objects.count - 1
            func shift(_ value: PropertyListTree) -> PropertyListTree {
                switch value {
                case .uid(let i): return .uid(i == 0 ? 0 : i + offset)
                case .array(let items): return .array(items.map(shift))
                case .dictionary(let d): return .dictionary(d.mapValues(shift))
                default: return value
                }
            }
            objects += parts.dropFirst().map(shift)
            instances[ObjectIdentifier(object)] = root + offset
            kept.append(object)
            return .uid(root + offset)
        } catch {
            if failure == nil { failure = error }
            return .uid(0)
        }
    }

    private func unsupported(_ object: Any?) -> PropertyListTree {
        if failure == nil {
            failure = NSError(domain: NSCocoaErrorDomain, code: CocoaError.coderInvalidValue.rawValue,
                              userInfo: [NSDebugDescriptionErrorKey: "a \(type(of: object as Any)) cannot be archived in a model"])
        }
        return .uid(0)
    }

    /// Apple's class name and `$classes` for an instance: the model classes (a subclass as its model class),
    /// a decimal, or the instance's own class (an app's class, the value of a transformable default).
    static func className(of object: NSObject) -> (String, [String]) {
        let property = ["NSPropertyDescription", "NSObject"], attribute = ["NSAttributeDescription"] + property
        switch object {
        case is NSManagedObjectModel: return ("NSManagedObjectModel", ["NSManagedObjectModel", "NSObject"])
        case is NSEntityDescription: return ("NSEntityDescription", ["NSEntityDescription", "NSObject"])
        case is NSDerivedAttributeDescription: return ("NSDerivedAttributeDescription", ["NSDerivedAttributeDescription"] + attribute)
        case is NSCompositeAttributeDescription: return ("NSCompositeAttributeDescription", ["NSCompositeAttributeDescription"] + attribute)
        case is NSAttributeDescription: return ("NSAttributeDescription", attribute)
        case is NSRelationshipDescription: return ("NSRelationshipDescription", ["NSRelationshipDescription"] + property)
        case is NSFetchedPropertyDescription: return ("NSFetchedPropertyDescription", ["NSFetchedPropertyDescription"] + property)
        case is NSExpressionDescription: return ("NSExpressionDescription", ["NSExpressionDescription"] + property)
        case is NSFetchRequest<NSFetchRequestResult>: return ("NSFetchRequest", ["NSFetchRequest", "NSPersistentStoreRequest", "NSObject"])
        case is NSFetchIndexDescription: return ("NSFetchIndexDescription", ["NSFetchIndexDescription", "NSObject"])
        case is NSFetchIndexElementDescription: return ("NSFetchIndexElementDescription", ["NSFetchIndexElementDescription", "NSObject"])
        case is DecimalArchive: return ("NSDecimalNumber", ["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"])
        default:
            let name = NSStringFromClass(object.classForKeyedArchiver ?? type(of: object))
            return (name, [name, "NSObject"])
        }
    }
}
