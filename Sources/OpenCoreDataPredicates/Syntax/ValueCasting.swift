import Foundation

/// `CAST(value, 'Class')`: Apple's `castObject:toType:` for the classes a predicate can meet.
package enum ValueCasting {
    package static let knownTypes: Set<String> = ["NSDate", "NSNumber", "NSString", "NSDecimalNumber", "NSUUID", "NSData", "NSURL"]

    /// The value cast to `type`, or `nil` when it does not convert.
    package static func cast(_ value: Value, to type: String) -> Value? {
        switch (type, value) {
        case ("NSDate", .date): return value
        case ("NSDate", _):
            guard let seconds = value.doubleValue else { return nil }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case ("NSNumber", .date(let d)): return .double(d.timeIntervalSinceReferenceDate)
        case ("NSNumber", .string(let s)):
            let t = s.trimmingCharacters(in: .whitespaces)
            if let i = Int64(t) { return .int(i) }
            return Double(t).map { .double($0) }
        case ("NSNumber", _): return value.isNumber ? value : nil
        case ("NSString", .string): return value
        case ("NSString", .null): return nil
        case ("NSString", _): return .string(PredicatePrinter.plainText(value))
        case ("NSDecimalNumber", .string(let s)): return Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")).map { .decimal($0) }
        case ("NSDecimalNumber", .int(let i)): return .decimal(Decimal(i))
        case ("NSDecimalNumber", .decimal): return value
        case ("NSDecimalNumber", .double(let d)): return Decimal(shortestDigitsOf: d).map { .decimal($0) }
        case ("NSUUID", .string(let s)): return UUID(uuidString: s).map { .uuid($0) }
        case ("NSUUID", .uuid): return value
        case ("NSData", .string(let s)): return Data(base64Encoded: s).map { .data($0) }
        case ("NSData", .data): return value
        case ("NSURL", .string(let s)): return URL(string: s).map { .url($0) }
        case ("NSURL", .url): return value
        default: return nil
        }
    }
}
