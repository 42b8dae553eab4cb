import CSQLite
import Foundation

/// The SQL functions and collations a store registers on every connection. Each calls the same Swift
/// code that in-memory evaluation and `NSSortDescriptor` use, so SQL and memory give the same answers
/// (SQLite's own `LIKE`, `lower()` and `NOCASE` are ASCII-only).
///
/// | SQL | Swift |
/// |---|---|
/// | `ocd_fold(text, options)` | `StringMatching.fold` (`[c]`, `[d]`) |
/// | `ocd_beginswith(a, b, options)`, `ocd_endswith`, `ocd_contains`, `ocd_like`, `ocd_matches` | `StringMatching` |
/// | `ocd_upper(text)`, `ocd_lower(text)` | `uppercase:`, `lowercase:` |
/// | `ocd_utf16_length(text)` | `length:` and the key `length` of a string (`name.length`): UTF-16 units, as `NSString`'s |
/// | collations `ocd_ci`, `ocd_localized`, `ocd_localized_ci`, `ocd_localized_standard` | `StringCollation` |
enum SQLiteFunctions {
    /// The registered functions (``SQLitePrinter`` prints their names).
    enum Function: Int, CaseIterable {
        case fold = 1, beginsWith, endsWith, contains, like, matches, upper, lower, utf16Length
        var name: String {
            switch self {
            case .fold: return "ocd_fold"
            case .beginsWith: return "ocd_beginswith"
            case .endsWith: return "ocd_endswith"
            case .contains: return "ocd_contains"
            case .like: return "ocd_like"
            case .matches: return "ocd_matches"
            case .upper: return "ocd_upper"
            case .lower: return "ocd_lower"
            case .utf16Length: return "ocd_utf16_length"
            }
        }
        var arity: Int32 {
            switch self {
            case .fold: return 2
            case .upper, .lower, .utf16Length: return 1
            default: return 3
            }
        }
    }

    /// The collation for a sort selector (`nil`: SQLite's `BINARY`, which is `compare:` on NFC text).
    static func collationName(_ collation: StringCollation) -> String? {
        switch collation {
        case .compare: return nil
        case .caseInsensitiveCompare: return "ocd_ci"
        case .localizedCompare: return "ocd_localized"
        case .localizedCaseInsensitiveCompare: return "ocd_localized_ci"
        case .localizedStandardCompare: return "ocd_localized_standard"
        }
    }

    private static let collations: [(String, StringCollation)] = [
        ("ocd_ci", .caseInsensitiveCompare), ("ocd_localized", .localizedCompare),
        ("ocd_localized_ci", .localizedCaseInsensitiveCompare), ("ocd_localized_standard", .localizedStandardCompare),
    ]

    static func register(on db: OpaquePointer) {
        for f in Function.allCases {
            sqlite3_create_function_v2(db, f.name, f.arity, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                       UnsafeMutableRawPointer(bitPattern: f.rawValue), call, nil, nil, nil)
        }
        for (i, (name, _)) in collations.enumerated() {
            sqlite3_create_collation_v2(db, name, SQLITE_UTF8, UnsafeMutableRawPointer(bitPattern: i + 1), compare, nil)
        }
    }

    private static let compare: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = { arg, n1, p1, n2, p2 in
        let index = Int(bitPattern: arg) - 1
        let a = String(decoding: UnsafeRawBufferPointer(start: p1, count: Int(n1)), as: UTF8.self)
        let b = String(decoding: UnsafeRawBufferPointer(start: p2, count: Int(n2)), as: UTF8.self)
        switch SQLiteFunctions.collations[index].1.compare(a, b) {
        case .orderedAscending: return -1
        case .orderedSame: return 0
        case .orderedDescending: return 1
        }
    }

    private static let call: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, argc, argv in
        guard let context, let argv, let function = Function(rawValue: Int(bitPattern: sqlite3_user_data(context))) else { return }
        func text(_ i: Int) -> String? {
            // By byte length (text may hold NUL characters); `sqlite3_value_bytes` after `sqlite3_value_text`.
            guard sqlite3_value_type(argv[i]) != SQLITE_NULL, let p = sqlite3_value_text(argv[i]) else { return nil }
            return String(decoding: UnsafeRawBufferPointer(start: p, count: Int(sqlite3_value_bytes(argv[i]))), as: UTF8.self)
        }
        func options(_ i: Int) -> NSComparisonPredicate.Options {
            NSComparisonPredicate.Options(rawValue: UInt(sqlite3_value_int64(argv[i])))
        }
        func result(_ s: String) {
            var s = s
            s.withUTF8 { utf8 in
                let start = UnsafeRawPointer(utf8.baseAddress ?? ("" as StaticString).utf8Start)
                sqlite3_result_text(context, start.assumingMemoryBound(to: CChar.self), Int32(utf8.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            }
        }
        switch function {
        case .fold:
            guard let s = text(0) else { return sqlite3_result_null(context) }
            result(StringMatching.fold(s, options(1)))
        case .upper, .lower:
            guard let s = text(0) else { return sqlite3_result_null(context) }
            result(StoredText.store(function == .upper ? s.uppercased() : s.lowercased()))
        case .utf16Length:
            guard let s = text(0) else { return sqlite3_result_null(context) }
            sqlite3_result_int64(context, Int64(s.utf16.count))
        default:
            guard let a = text(0), let b = text(1) else { return sqlite3_result_null(context) }
            let o = options(2)
            let matched: Bool
            switch function {
            case .beginsWith: matched = StringMatching.beginsWith(a, b, o)
            case .endsWith: matched = StringMatching.endsWith(a, b, o)
            case .contains: matched = StringMatching.contains(a, b, o)
            case .like: matched = StringMatching.like(a, b, o)
            default:
                do {
                    matched = try StringMatching.matches(a, b, o)
                } catch {
                    sqlite3_result_error(context, "\(error)", -1)
                    return
                }
            }
            sqlite3_result_int64(context, matched ? 1 : 0)
        }
    }
}
