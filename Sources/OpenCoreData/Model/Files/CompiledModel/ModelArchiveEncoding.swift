import Foundation
import OpenCoreDataPredicates

/// Writing a model as Core Data archives it (`encode(with:)` of the model classes, and
/// `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding:)` for a model): the values in the
/// Foundation classes Apple's archive holds, and the class table rewritten to Apple's names, because
/// swift-corelibs-foundation's archiver names classes by their Swift names (`OpenCoreData.NSEntityDescription`)
/// and never applies `setClassName(_:for:)` (docs/Predicates.md).
enum ModelArchiveEncoding {
    /// A dictionary of `pairs`, keys as `NSString`s.
    static func dictionary(_ pairs: [(String, Any)]) -> NSDictionary {
        NSDictionary(objects: pairs.map { $0.1 }, forKeys: pairs.map { NSString(string: $0.0) })
    }

    /// `userInfo` as a property list dictionary, `nil` when a key is not a string or a value not a
    /// property list value.
    static func plistDictionary(_ userInfo: [AnyHashable: Any]) -> NSDictionary? {
        var pairs: [(String, Any)] = []
        for (key, value) in userInfo {
            guard let key = key.base as? String, let value = plistValue(value) else { return nil }
            pairs.append((key, value))
        }
        return dictionary(pairs.sorted { $0.0 < $1.0 })
    }

    private static func plistValue(_ value: Any) -> Any? {
        switch value {
        case let s as String: return NSString(string: s)
        case let n as NSNumber: return n
        case let d as Data: return NSData(data: d)
        case let d as Date: return NSDate(timeIntervalSinceReferenceDate: d.timeIntervalSinceReferenceDate)
        default: return nil
        }
    }

    /// A default value as an archivable object: Foundation's value classes, a decimal with Apple's
    /// `NSDecimalNumber` keys, or the value itself when it adopts `NSCoding`; `nil` otherwise.
    static func archivable(_ value: Any?) -> Any? {
        switch value {
        case nil: return nil
        case let d as NSDecimalNumber: return DecimalArchive(d.decimalValue)
        case let d as Decimal: return DecimalArchive(d)
        case let s as String: return NSString(string: s)
        case let n as NSNumber: return n
        case let d as Data: return NSData(data: d)
        case let d as Date: return NSDate(timeIntervalSinceReferenceDate: d.timeIntervalSinceReferenceDate)
        case let u as UUID: return NSUUID(uuidString: u.uuidString)
        case let u as URL: return NSURL(string: u.absoluteString)
        case let o as NSObject where o is NSCoding: return o
        default: return nil
        }
    }

    /// `propertiesToFetch` / `propertiesToGroupBy` as an array of names and descriptions.
    static func columns(_ list: [Any]?) -> NSArray? {
        guard let list else { return nil }
        return list.compactMap { item -> Any? in
            if let name = item as? String { return NSString(string: name) }
            return item as? NSPropertyDescription
        } as NSArray
    }

    /// Apple's name and `$classes` for each model class as Foundation's archiver names it here.
    static let appleClasses: [String: (name: String, chain: [String])] = {
        let property = ["NSPropertyDescription", "NSObject"], attribute = ["NSAttributeDescription"] + property
        let classes: [(AnyClass, String, [String])] = [
            (NSManagedObjectModel.self, "NSManagedObjectModel", ["NSObject"]),
            (NSEntityDescription.self, "NSEntityDescription", ["NSObject"]),
            (NSAttributeDescription.self, "NSAttributeDescription", property),
            (NSDerivedAttributeDescription.self, "NSDerivedAttributeDescription", attribute),
            (NSCompositeAttributeDescription.self, "NSCompositeAttributeDescription", attribute),
            (NSRelationshipDescription.self, "NSRelationshipDescription", property),
            (NSFetchedPropertyDescription.self, "NSFetchedPropertyDescription", property),
            (NSExpressionDescription.self, "NSExpressionDescription", property),
            (FetchRequestArchiveName.self, "NSFetchRequest", ["NSPersistentStoreRequest", "NSObject"]),
            (NSFetchIndexDescription.self, "NSFetchIndexDescription", ["NSObject"]),
            (NSFetchIndexElementDescription.self, "NSFetchIndexElementDescription", ["NSObject"]),
            (DecimalArchive.self, "NSDecimalNumber", ["NSNumber", "NSValue", "NSObject"]),
        ]
        return Dictionary(uniqueKeysWithValues: classes.map { (NSStringFromClass($0.0), ($0.1, [$0.1] + $0.2)) })
    }()

    /// `data`, a keyed archive, with Apple's class names for the model's classes and for the predicates in
    /// it (``AppleClassTable``).
    static func applesClassNames(_ data: Data) throws -> Data {
        guard case .dictionary(var top) = try PropertyListTree(data), case .array(var objects)? = top["$objects"] else {
            throw CocoaError(.coderInvalidValue)
        }
        for (index, entry) in objects.enumerated() {
            guard case .string(let name)? = entry["$classname"], let apple = appleClasses[name] else { continue }
            objects[index] = .dictionary(["$classname": .string(apple.name), "$classes": .array(apple.chain.map { .string($0) })])
        }
        top["$objects"] = .array(objects)
        return try AppleClassTable.applesClassNames(PropertyListTree.dictionary(top).binaryData())
    }
}

/// An `NSDecimalNumber` as Apple's Foundation archives it (`NS.exponent`, `NS.length`, `NS.negative`,
/// `NS.compact`, `NS.mantissa` little-endian, `NS.mantissa.bo`): Foundation's archiver on Linux cannot
/// archive `NSDecimalNumber` (docs/Predicates.md), so a decimal default value is written through this
/// class, renamed `NSDecimalNumber` in the archive.
final class DecimalArchive: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let value: Decimal

    init(_ value: Decimal) { self.value = value }

    required init?(coder: NSCoder) { nil }

    func encode(with coder: NSCoder) {
        let words = Self.words(ofDigits: "\(value.significand.magnitude)")
        var bytes = Data()
        for word in words + [UInt16](repeating: 0, count: 8 - words.count) { bytes += [UInt8(word & 0xFF), UInt8(word >> 8)] }
        coder.encode(Int32(value.exponent), forKey: "NS.exponent")
        coder.encode(Int32(words.count), forKey: "NS.length")
        coder.encode(value.sign == .minus && !value.isZero, forKey: "NS.negative")
        coder.encode(true, forKey: "NS.compact")
        coder.encode(1, forKey: "NS.mantissa.bo")
        coder.encode(bytes as NSData, forKey: "NS.mantissa")
    }

    /// The 16-bit words of a whole number written in decimal digits, least significant first (at most eight:
    /// a `Decimal`'s significand has at most 38 digits).
    static func words(ofDigits text: String) -> [UInt16] {
        var digits = text.compactMap(\.wholeNumberValue)
        var words: [UInt16] = []
        while digits.contains(where: { $0 != 0 }), words.count < 8 {
            var remainder = 0, quotient: [Int] = []
            for digit in digits {
                let current = remainder * 10 + digit
                quotient.append(current / 65536)
                remainder = current % 65536
            }
            words.append(UInt16(remainder))
            digits = Array(quotient.drop { $0 == 0 })
        }
        return words
    }
}
