import Foundation

/// Mirrors Foundation's `NSValueTransformerName`: the name a `ValueTransformer` is registered under (a
/// model's `valueTransformerName`).
///
/// swift-corelibs-foundation (Linux) has no `ValueTransformer` at all (measured with Swift 6.3.1), so
/// OpenCoreData declares it and its names under Foundation's Swift spelling; code written for Darwin
/// compiles unchanged.
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    public let rawValue: String
    /// Mirrors `init(rawValue:)`.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Mirrors `init(_:)`.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// Makes a name from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// Mirrors `.secureUnarchiveFromDataTransformerName` (`NSSecureUnarchiveFromData`): the default of
    /// a transformable attribute without a `valueTransformerName`.
    public static let secureUnarchiveFromDataTransformerName = NSValueTransformerName("NSSecureUnarchiveFromData")
    /// Mirrors `.keyedUnarchiveFromDataTransformerName` (`NSKeyedUnarchiveFromData`). Here it is the
    /// secure transformer too: Linux Foundation traps (rather than fails) on what insecure coding allows.
    public static let keyedUnarchiveFromDataTransformerName = NSValueTransformerName("NSKeyedUnarchiveFromData")
    /// Mirrors `.unarchiveFromDataTransformerName` (`NSUnarchiveFromData`), handled as the keyed one.
    public static let unarchiveFromDataTransformerName = NSValueTransformerName("NSUnarchiveFromData")
    /// Mirrors `.negateBooleanTransformerName` (`NSNegateBoolean`).
    public static let negateBooleanTransformerName = NSValueTransformerName("NSNegateBoolean")
    /// Mirrors `.isNilTransformerName` (`NSIsNil`).
    public static let isNilTransformerName = NSValueTransformerName("NSIsNil")
    /// Mirrors `.isNotNilTransformerName` (`NSIsNotNil`).
    public static let isNotNilTransformerName = NSValueTransformerName("NSIsNotNil")
}

/// Lets `ValueTransformer(forName:)` hand back the registered instance (a Swift class initializer cannot
/// return another object; one declared in a protocol extension may assign `self`).
public protocol ValueTransformerLookup {}

extension ValueTransformerLookup {
    /// Mirrors `ValueTransformer(forName:)`: the transformer registered under `name`, `nil` if none (or
    /// if it is not of the class this is called on).
    public init?(forName name: NSValueTransformerName) {
        guard let found = ValueTransformer.registered(name) as? Self else { return nil }
        self = found
    }
}

/// Mirrors Foundation's `ValueTransformer` (`NSValueTransformer`), which Linux Foundation lacks: turns
/// values into other values, and back when `allowsReverseTransformation()`. Transformers are
/// registered by name with ``setValueTransformer(_:forName:)``; a transformable attribute names one in
/// `valueTransformerName`.
///
/// Subclass it and override ``transformedValue(_:)``, ``reverseTransformedValue(_:)``,
/// ``allowsReverseTransformation()`` and ``transformedValueClass()``, as on Darwin. A transformer
/// reports a value it cannot handle by returning `nil`.
open class ValueTransformer: NSObject, ValueTransformerLookup, @unchecked Sendable {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var registry: [NSValueTransformerName: ValueTransformer] = [
        .secureUnarchiveFromDataTransformerName: NSSecureUnarchiveFromDataTransformer(),
        .keyedUnarchiveFromDataTransformerName: NSSecureUnarchiveFromDataTransformer(),
        .unarchiveFromDataTransformerName: NSSecureUnarchiveFromDataTransformer(),
        .negateBooleanTransformerName: BooleanTransformer(.negate),
        .isNilTransformerName: BooleanTransformer(.isNil),
        .isNotNilTransformerName: BooleanTransformer(.isNotNil),
    ]

    public override init() { super.init() }

    static func registered(_ name: NSValueTransformerName) -> ValueTransformer? {
        lock.withLock { registry[name] }
    }

    /// Mirrors `setValueTransformer(_:forName:)`: registers (or, with `nil`, removes) a transformer.
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        lock.withLock { registry[name] = transformer }
    }

    /// Mirrors `valueTransformerNames()`: the registered names.
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        lock.withLock { registry.keys.sorted { $0.rawValue < $1.rawValue } }
    }

    /// Mirrors `transformedValueClass()`: the class of the values ``transformedValue(_:)`` returns.
    open class func transformedValueClass() -> AnyClass { NSObject.self }

    /// Mirrors `allowsReverseTransformation()` (default `false`, as on Darwin).
    open class func allowsReverseTransformation() -> Bool { false }

    /// Mirrors `transformedValue(_:)`: the default returns the value unchanged.
    open func transformedValue(_ value: Any?) -> Any? { value }

    /// Mirrors `reverseTransformedValue(_:)`: the default applies ``transformedValue(_:)`` when reverse
    /// transformation is allowed (as Darwin does), and traps otherwise (Darwin raises).
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        precondition(type(of: self).allowsReverseTransformation(),
                     "\(type(of: self)) does not allow reverse transformation (allowsReverseTransformation() is false)")
        return transformedValue(value)
    }
}

/// `NSNegateBoolean`, `NSIsNil`, `NSIsNotNil`.
private final class BooleanTransformer: ValueTransformer, @unchecked Sendable {
    enum Kind { case negate, isNil, isNotNil }
    let kind: Kind
    init(_ kind: Kind) { self.kind = kind }
    override class func transformedValueClass() -> AnyClass { NSNumber.self }
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? {
        let isNil = value.map { flattenOptional($0) == nil || $0 is NSNull } ?? true
        switch kind {
        case .negate: return NSNumber(value: !((value as? NSNumber)?.boolValue ?? (value as? Bool) ?? false))
        case .isNil: return NSNumber(value: isNil)
        case .isNotNil: return NSNumber(value: !isNil)
        }
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        kind == .negate ? transformedValue(value) : nil
    }
}

/// Mirrors Foundation's `NSSecureUnarchiveFromDataTransformer`: `transformedValue(_:)` unarchives data
/// (with `NSKeyedUnarchiver`, secure coding, only ``allowedTopLevelClasses``), `reverseTransformedValue(_:)`
/// archives a value. Subclass it and override `allowedTopLevelClasses` to add your own `NSSecureCoding`
/// classes, as Apple documents.
///
/// Linux Foundation's keyed archiver *traps* where Darwin's fails: archiving a value that does not adopt
/// `NSSecureCoding` ("Secure coding required when encoding …"), and unarchiving a class that is not
/// allowed ("Value was of unexpected class …"). This transformer therefore checks first and returns
/// `nil` instead: a value is archived only if it is a string, number, date, data, URL, UUID, `NSNull`, an
/// array, dictionary or set of such values, or an object of a class that adopts `NSSecureCoding`
/// (`supportsSecureCoding` true) and is one of (or a subclass of) ``allowedTopLevelClasses``; data is
/// unarchived only if every class the archive names is an allowed class (a predicate's expressions and
/// operator objects are allowed with `NSPredicate`, as on Darwin). Predicates, expressions and sort
/// descriptors are archived under Apple's class names and read back through their checked unarchiver
/// (docs/Predicates.md, "Archiving"). A custom class's own `encode(with:)` is not checked: encoding a
/// non-secure object inside it still traps on Linux.
open class NSSecureUnarchiveFromDataTransformer: ValueTransformer, @unchecked Sendable {
    /// Mirrors `allowedTopLevelClasses`: `NSArray`, `NSDictionary`, `NSSet`, `NSString`, `NSNumber`,
    /// `NSDate`, `NSData`, `NSURL`, `NSUUID`, `NSNull` (Apple's list).
    open class var allowedTopLevelClasses: [AnyClass] {
        [NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self,
         NSURL.self, NSUUID.self, NSNull.self]
    }

    open override class func allowsReverseTransformation() -> Bool { true }
    open override class func transformedValueClass() -> AnyClass { NSObject.self }

    /// Unarchives `Data`; `nil` for anything else, for data that is not a keyed archive, or for an archive
    /// naming a class that is not allowed.
    open override func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        let allowed = Self.standardClasses + type(of: self).allowedTopLevelClasses
        // Apple's names of predicates, expressions and sort descriptors are this library's classes, not
        // Foundation's own; a predicate's parts (expressions, operator objects, subpredicates) are allowed
        // with it, as Darwin's NSPredicate allows them; an archive whose root is one of them is read
        // through their checked unarchiver.
        let partsAllowed = Self.isAllowed(NSPredicate.self, allowed) || Self.isAllowed(NSExpression.self, allowed)
        func permitted(_ name: String) -> Bool {
            guard let c = AppleClassTable.decodingClass(named: name) ?? Foundation.NSClassFromString(name) else { return false }
            return Self.isAllowed(c, allowed) || (partsAllowed && AppleClassTable.isPredicatePart(c))
        }
        guard let (root, names) = Self.classNames(in: data), names.allSatisfy(permitted) else { return nil }
        if let kind = ArchiveValidator.rootKind(ofClassNamed: root) {
            guard let rootClass = AppleClassTable.decodingClass(named: root) ?? Foundation.NSClassFromString(root),
                  Self.isAllowed(rootClass, allowed) else { return nil }
            return try? ArchiveValidator.unarchive(data, root: kind)
        }
        guard let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
        unarchiver.requiresSecureCoding = true
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        AppleClassTable.mapApplesClasses(of: data, in: unarchiver)
        let object = unarchiver.decodeObject(of: allowed, forKey: NSKeyedArchiveRootObjectKey)
        return unarchiver.error == nil ? object : nil
    }

    /// Archives a value with secure coding; `nil` for a value that cannot be archived (see the type's
    /// documentation) rather than Linux Foundation's trap.
    open override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let value, let object = flattenOptional(value), archivable(object, topLevel: true) else { return nil }
        // Predicates, expressions and sort descriptors named by Apple's classes, as Darwin writes them.
        return (try? NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true))
            .map { (try? AppleClassTable.applesClassNames($0)) ?? $0 }
    }

    /// Why a value cannot be archived, or `nil` if it can (for error messages).
    func refusal(_ value: Any) -> String? {
        guard let object = flattenOptional(value) else { return nil }
        return archivable(object, topLevel: true) ? nil
            : "\(type(of: self)) archives strings, numbers, dates, data, URLs, UUIDs, arrays, dictionaries and sets of them, and NSSecureCoding objects of its allowedTopLevelClasses; a \(type(of: object)) is none of these"
    }

    private static let standardClasses: [AnyClass] = [
        NSArray.self, NSDictionary.self, NSSet.self, NSOrderedSet.self, NSString.self, NSNumber.self, NSDate.self,
        NSData.self, NSURL.self, NSUUID.self, NSNull.self,
    ]

    private static func isAllowed(_ c: AnyClass, _ allowed: [AnyClass]) -> Bool {
        allowed.contains { a in
            var k: AnyClass? = c
            while let current = k {
                if current == a { return true }
                k = _getSuperclass(current)
            }
            return false
        }
    }

    private func archivable(_ object: Any, topLevel: Bool) -> Bool {
        switch object {
        case is String, is NSString, is Bool, is Int, is Int8, is Int16, is Int32, is Int64, is UInt, is UInt8, is UInt16,
             is UInt32, is UInt64, is Double, is Float, is NSNumber, is Date, is NSDate, is Data, is NSData, is URL, is NSURL,
             is UUID, is NSUUID, is NSNull:
            return true
        case let a as [Any]: return a.allSatisfy { archivable($0, topLevel: false) }
        case let a as NSArray: return a.allSatisfy { archivable($0, topLevel: false) }
        case let d as [String: Any]: return d.values.allSatisfy { archivable($0, topLevel: false) }
        case let d as NSDictionary: return d.allSatisfy { archivable($0.key, topLevel: false) && archivable($0.value, topLevel: false) }
        case let s as NSSet: return s.allSatisfy { archivable($0, topLevel: false) }
        case let s as Set<AnyHashable>: return s.allSatisfy { archivable($0.base, topLevel: false) }
        case let o as NSObject & NSSecureCoding:
            let c: AnyClass = type(of: o)
            return (c as? NSSecureCoding.Type)?.supportsSecureCoding == true
                && Self.isAllowed(c, Self.standardClasses + type(of: self).allowedTopLevelClasses)
        default:
            return false
        }
    }

    /// The root object's class name and every `$classname` of a keyed archive, or `nil` if the data is not one.
    private static func classNames(in data: Data) -> (root: String, all: [String])? {
        guard let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any],
              let objects = plist["$objects"] as? [Any] else { return nil }
        let all = objects.compactMap { ($0 as? [String: Any])?["$classname"] as? String }
        func object(_ reference: Any?) -> [String: Any]? {
            guard let i = ArchiveValidator.uid(reference), i > 0, i < objects.count else { return nil }
            return objects[i] as? [String: Any]
        }
        let root = object(object((plist["$top"] as? [String: Any])?["root"])?["$class"])?["$classname"] as? String
        return (root ?? "", all)
    }
}
