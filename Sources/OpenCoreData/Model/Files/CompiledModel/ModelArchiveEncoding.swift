import Foundation
import OpenCoreDataPredicates

/// The values the model classes' `encode(with:)` write, in the forms Apple's archives hold (for
/// `ModelArchiveEncoder` and for Foundation's archiver alike).
enum ModelArchiveEncoding {
    /// A dictionary of `pairs` (the first of equal keys kept).
    static func dictionary(_ pairs: [(String, Any)]) -> [String: Any] {
        Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    /// `userInfo` as a property list dictionary, `nil` when a key is not a string or a value not a
    /// property list value.
    static func plistDictionary(_ userInfo: [AnyHashable: Any]) -> [String: Any]? {
        var pairs: [(String, Any)] = []
        for (key, value) in userInfo {
            guard let key = key.base as? String, let value = plistValue(value) else { return nil }
            pairs.append((key, value))
        }
        return dictionary(pairs)
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
}

/// An `NSDecimalNumber` as Apple's Foundation archives it (`NS.exponent`, `NS.length`, `NS.negative`,
/// `NS.compact`, `NS.mantissa` little-endian, `NS.mantissa.bo`): Foundation's archiver on Linux cannot
/// archive `NSDecimalNumber` (docs/Predicates.md), so a decimal default value is written through this
/// class, which `ModelArchiveEncoder` names `NSDecimalNumber`.
final class DecimalArchive: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let value: Decimal

    init(_ value: Decimal) { self.value = value }

    required init?(coder: NSCoder) { nil }

    func encode(with coder: NSCoder) {
        let words = Self.words(ofDigits: "\(value.significand.magnitude)")
        var bytes: [UInt8] = []
        for word in words + [UInt16](repeating: 0, count: 8 - words.count) { bytes += [UInt8(word & 0xFF), UInt8(word >> 8)] }
        coder.encode(Int32(value.exponent), forKey: "NS.exponent")
        coder.encode(Int32(words.count), forKey: "NS.length")
        coder.encode(value.sign == .minus && !value.isZero, forKey: "NS.negative")
        coder.encode(true, forKey: "NS.compact")
        coder.encode(1, forKey: "NS.mantissa.bo")
        bytes.withUnsafeBytes { raw in
            coder.encodeBytes(raw.bindMemory(to: UInt8.self).baseAddress, length: raw.count, forKey: "NS.mantissa")
        }
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
