import Foundation
import OpenCoreDataPredicates

/// The Foundation objects of a compiled model's archive, decoded to Swift values with the keys Apple's
/// Foundation writes: arrays (`[Any]`), sets (`Set<AnyHashable>`), dictionaries (`[String: Any]`, also
/// Core Data's `NSKnownKeysDictionary1` of a model's entities), strings, data, dates, UUIDs, URLs and
/// decimal numbers. Every element is decoded with the class list of the request that reached it, as a
/// secure unarchiver does.
enum ModelArchiveValues {
    enum Kind: String {
        case array = "NSArray", mutableArray = "NSMutableArray", set = "NSSet", mutableSet = "NSMutableSet"
        case dictionary = "NSDictionary", mutableDictionary = "NSMutableDictionary", knownKeysDictionary = "NSKnownKeysDictionary1"
        case string = "NSString", mutableString = "NSMutableString", data = "NSData", mutableData = "NSMutableData"
        case date = "NSDate", uuid = "NSUUID", url = "NSURL", decimal = "NSDecimalNumber"

        /// The class a request must allow to receive the value.
        var foundationClass: AnyClass {
            switch self {
            case .array, .mutableArray: return NSArray.self
            case .set, .mutableSet: return NSSet.self
            case .dictionary, .mutableDictionary, .knownKeysDictionary: return NSDictionary.self
            case .string, .mutableString: return NSString.self
            case .data, .mutableData: return NSData.self
            case .date: return NSDate.self
            case .uuid: return NSUUID.self
            case .url: return NSURL.self
            case .decimal: return NSDecimalNumber.self
            }
        }
    }

    static func decode(_ kind: Kind, _ object: [String: PropertyListTree], allowed: [AnyClass], in decoder: ModelArchiveDecoder) -> Any? {
        func fail(_ reason: String) -> Any? { decoder.record("\(kind.rawValue): \(reason)"); return nil }
        switch kind {
        case .array, .mutableArray:
            return elements(object["NS.objects"], allowed: allowed, in: decoder)
        case .set, .mutableSet:
            guard let items = elements(object["NS.objects"], allowed: allowed, in: decoder) else { return nil }
            var set = Set<AnyHashable>()
            for item in items {
                guard let hashable = item as? AnyHashable else { return fail("an element cannot be a member of a set") }
                set.insert(hashable)
            }
            return set
        case .dictionary, .mutableDictionary:
            return dictionary(keys: object["NS.keys"], values: object["NS.objects"], allowed: allowed, in: decoder)
        case .knownKeysDictionary:
            return knownKeysDictionary(object, allowed: allowed, in: decoder)
        case .string, .mutableString:
            guard case .string(let s)? = object["NS.string"] else { return fail("NS.string is missing") }
            return s
        case .data, .mutableData:
            guard case .data(let d)? = object["NS.data"] else { return fail("NS.data is missing") }
            return d
        case .date:
            guard let seconds = number(object["NS.time"]), seconds.isFinite else { return fail("NS.time is missing") }
            return Date(timeIntervalSinceReferenceDate: seconds)
        case .uuid:
            guard case .data(let bytes)? = object["NS.uuidbytes"], bytes.count == 16 else { return fail("NS.uuidbytes is not 16 bytes") }
            let b = [UInt8](bytes)
            return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
        case .url:
            return url(object, in: decoder) ?? fail("not an absolute URL")
        case .decimal:
            return decimal(object).map { NSDecimalNumber(decimal: $0) } ?? fail("not a decimal number")
        }
    }

    private static func number(_ value: PropertyListTree?) -> Double? {
        switch value {
        case .real(let d)?: return d
        case .integer(let i)?: return Double(i)
        default: return nil
        }
    }

    /// The objects a list of references names (`NS.objects`), each of one of `allowed`.
    static func elements(_ value: PropertyListTree?, allowed: [AnyClass], in decoder: ModelArchiveDecoder) -> [Any]? {
        guard case .array(let refs)? = value else { decoder.record("NS.objects is missing"); return nil }
        var items: [Any] = []
        items.reserveCapacity(refs.count)
        for ref in refs {
            guard case .uid(let index) = ref, index > 0 else { decoder.record("a collection holds something other than objects"); return nil }
            guard let item = decoder.reference(index, allowed: allowed) else { return nil }
            items.append(item)
        }
        return items
    }

    private static func dictionary(keys: PropertyListTree?, values: PropertyListTree?, allowed: [AnyClass],
                                   in decoder: ModelArchiveDecoder) -> [String: Any]? {
        guard let keys = elements(keys, allowed: allowed, in: decoder), let values = elements(values, allowed: allowed, in: decoder) else { return nil }
        guard keys.count == values.count else { decoder.record("a dictionary with \(keys.count) keys and \(values.count) values"); return nil }
        var result: [String: Any] = [:]
        for (key, value) in zip(keys, values) {
            guard let key = key as? String else { decoder.record("a dictionary key that is not a string"); return nil }
            guard result.updateValue(value, forKey: key) == nil else { decoder.record("the dictionary key \(key) appears twice"); return nil }
        }
        return result
    }

    /// Core Data's `NSKnownKeysDictionary1` (a model's entities): its values in the order of the keys of its
    /// `searchMapping` (an `NSKnownKeysMappingStrategy1`); a value equal to its `emptyToken` is no entry.
    private static func knownKeysDictionary(_ object: [String: PropertyListTree], allowed: [AnyClass],
                                            in decoder: ModelArchiveDecoder) -> [String: Any]? {
        guard case .uid(let mapping)? = object["searchMapping"], mapping > 0, mapping < decoder.objects.count,
              decoder.className(at: mapping) == "NSKnownKeysMappingStrategy1",
              case .uid(let keysIndex)? = decoder.objects[mapping]["keys"], case .uid(let valuesIndex)? = object["values"] else {
            decoder.record("NSKnownKeysDictionary1 without its searchMapping keys and values")
            return nil
        }
        let arrays: [AnyClass] = [NSArray.self] + allowed
        guard let keys = decoder.reference(keysIndex, allowed: arrays) as? [Any],
              let values = decoder.reference(valuesIndex, allowed: arrays) as? [Any] else {
            if decoder.failure == nil { decoder.record("NSKnownKeysDictionary1 without arrays of keys and values") }
            return nil
        }
        guard keys.count == values.count else { decoder.record("NSKnownKeysDictionary1 with \(keys.count) keys and \(values.count) values"); return nil }
        var emptyToken: String?
        if case .uid(let t)? = object["emptyToken"], t > 0, t < decoder.objects.count, case .string(let s) = decoder.objects[t] { emptyToken = s }
        var result: [String: Any] = [:]
        for (key, value) in zip(keys, values) {
            if let emptyToken, value as? String == emptyToken { continue }
            guard let key = key as? String else { decoder.record("NSKnownKeysDictionary1 with a key that is not a string"); return nil }
            guard result.updateValue(value, forKey: key) == nil else { decoder.record("the key \(key) appears twice"); return nil }
        }
        return result
    }

    private static func url(_ object: [String: PropertyListTree], in decoder: ModelArchiveDecoder) -> URL? {
        guard case .uid(let r)? = object["NS.relative"], r > 0, r < decoder.objects.count else { return nil }
        let relative: String
        switch decoder.objects[r] {
        case .string(let s): relative = s
        case .dictionary(let d): guard case .string(let s)? = d["NS.string"] else { return nil }; relative = s
        default: return nil
        }
        let base = object["NS.base"] ?? .uid(0)
        guard base == .uid(0), let url = URL(string: relative), url.scheme != nil else { return nil }
        return url
    }

    /// An `NSDecimalNumber` as Foundation archives it: `NS.mantissa` (eight 16-bit words in the byte order
    /// `NS.mantissa.bo`, 1 little-endian, 2 big-endian), `NS.length` words of it in use, `NS.exponent`,
    /// `NS.negative`.
    static func decimal(_ object: [String: PropertyListTree]) -> Decimal? {
        guard case .integer(let exponent)? = object["NS.exponent"], (-128...127).contains(exponent),
              case .integer(let length)? = object["NS.length"], (0...8).contains(length),
              case .data(let bytes)? = object["NS.mantissa"], bytes.count >= 2 * Int(length) else { return nil }
        let bigEndian = object["NS.mantissa.bo"] == .integer(2)
        let b = [UInt8](bytes)
        var significand = Decimal(0)
        for word in stride(from: Int(length) - 1, through: 0, by: -1) {
            let (hi, lo) = bigEndian ? (b[2 * word], b[2 * word + 1]) : (b[2 * word + 1], b[2 * word])
            significand = significand * 65536 + Decimal(Int(hi) << 8 | Int(lo))
        }
        let negative = object["NS.negative"] == .bool(true) || object["NS.negative"] == .integer(1)
        return Decimal(sign: negative ? .minus : .plus, exponent: Int(exponent), significand: significand)
    }
}
