import Foundation
import Synchronization

/// String semantics of the comparison options, shared by in-memory evaluation, sorting and the SQLite
/// functions a store registers, so that SQL and memory always agree.
///
/// - `[c]`: Unicode case folding (full folding: `ß` matches `SS`, `ς` matches `Σ`).
/// - `[d]`: canonical decomposition, combining marks removed (`é` → `e`, `й` → `и`).
/// - `[n]`: the strings are taken as they are, without `[c]`/`[d]` folding (it supersedes them, as Apple
///   documents); canonically equivalent strings are equal, as without options — the store keeps text in
///   NFC, so comparing scalars literally would make SQL and memory disagree on `"Cafe\u{301}"`.
package enum StringMatching {
    /// The folded form of `s` under `options`.
    package static func fold(_ s: String, _ options: NSComparisonPredicate.Options) -> String {
        if options.contains(.normalized) { return s }
        let c = options.contains(.caseInsensitive), d = options.contains(.diacriticInsensitive)
        guard c || d else { return s }
        if s.utf8.allSatisfy({ $0 < 0x80 }) {
            guard c else { return s }
            return String(decoding: s.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
        }
        var out = s
        if d { out = stripDiacritics(out) }
        if c { out = caseFold(out) }
        // Composed form, so that SQLite's byte order of folded text equals Swift's order of it.
        return out.precomposedStringWithCanonicalMapping
    }

    /// Full case folding: lower(upper(s)) maps `ß`→`ss`, `ς`→`σ`, `ﬁ`→`fi`, as Unicode's folding does.
    private static func caseFold(_ s: String) -> String {
        s.uppercased().lowercased()
    }

    private static func stripDiacritics(_ s: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in s.decomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark: continue
            default: scalars.append(scalar)
            }
        }
        return String(scalars).precomposedStringWithCanonicalMapping
    }

    /// Strings equal under the options: Swift's `==` (canonical equivalence) of the folded forms.
    package static func equal(_ a: String, _ b: String, _ options: NSComparisonPredicate.Options) -> Bool {
        fold(a, options) == fold(b, options)
    }

    /// Orders two strings under the options: Unicode scalar order of the canonically composed, folded forms.
    package static func compare(_ a: String, _ b: String, _ options: NSComparisonPredicate.Options) -> ComparisonResult {
        let fa = fold(a, options), fb = fold(b, options)
        return fa == fb ? .orderedSame : fa < fb ? .orderedAscending : .orderedDescending
    }

    package static func beginsWith(_ s: String, _ prefix: String, _ options: NSComparisonPredicate.Options) -> Bool {
        fold(s, options).hasPrefix(fold(prefix, options))
    }

    package static func endsWith(_ s: String, _ suffix: String, _ options: NSComparisonPredicate.Options) -> Bool {
        fold(s, options).hasSuffix(fold(suffix, options))
    }

    package static func contains(_ s: String, _ part: String, _ options: NSComparisonPredicate.Options) -> Bool {
        let p = fold(part, options)
        return p.isEmpty || fold(s, options).contains(p)
    }

    /// `LIKE`: `*` matches any run of characters, `?` exactly one, `\` escapes the next character; the
    /// whole string must match.
    package static func like(_ s: String, _ pattern: String, _ options: NSComparisonPredicate.Options) -> Bool {
        let text = Array(fold(s, options))
        var tokens: [LikeToken] = []
        var escaped = false
        for ch in fold(pattern, options) {
            if escaped { tokens.append(.literal(ch)); escaped = false; continue }
            switch ch {
            case "\\": escaped = true
            case "*": if tokens.last != .any { tokens.append(.any) }
            case "?": tokens.append(.one)
            default: tokens.append(.literal(ch))
            }
        }
        if escaped { tokens.append(.literal("\\")) }
        // Greedy matching with one backtrack point: linear for patterns without `*`, O(n·m) at worst.
        var t = 0, p = 0
        var star = -1, mark = 0
        while t < text.count {
            if p < tokens.count, tokens[p] == .one || tokens[p] == .literal(text[t]) {
                t += 1; p += 1
            } else if p < tokens.count, tokens[p] == .any {
                star = p; mark = t; p += 1
            } else if star >= 0 {
                p = star + 1; mark += 1; t = mark
            } else {
                return false
            }
        }
        while p < tokens.count, tokens[p] == .any { p += 1 }
        return p == tokens.count
    }

    private enum LikeToken: Equatable { case any, one, literal(Character) }

    /// `MATCHES`: an ICU regular expression (`NSRegularExpression`) that must match the whole string.
    /// `[c]` makes it case-insensitive; `[d]` strips diacritics from both string and pattern.
    package static func matches(_ s: String, _ pattern: String, _ options: NSComparisonPredicate.Options) throws -> Bool {
        let d = options.contains(.diacriticInsensitive) && !options.contains(.normalized)
        let subject = d ? fold(s, .diacriticInsensitive) : s
        let source = d ? fold(pattern, .diacriticInsensitive) : pattern
        let regex = try RegexCache.shared.regex(source, caseInsensitive: options.contains(.caseInsensitive) && !options.contains(.normalized))
        let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
        return regex.firstMatch(in: subject, options: [], range: range) != nil
    }
}

/// Compiled regular expressions, shared across threads.
final class RegexCache: Sendable {
    static let shared = RegexCache()
    private let cache = Mutex<[String: NSRegularExpressionBox]>([:])

    func regex(_ pattern: String, caseInsensitive: Bool) throws -> NSRegularExpression {
        let key = (caseInsensitive ? "i:" : "s:") + pattern
        if let hit = cache.withLock({ $0[key] }) { return hit.regex }
        let regex: NSRegularExpression
        do {
            // The pattern must be valid on its own: wrapped, an unbalanced `b)|(c` would compile and mean
            // something else. (A pattern that is valid alone but not wrapped, `\Q…` to the end or an `(?x)`
            // comment, fails below rather than match differently.)
            // (The empty pattern, which matches the empty string, is valid; NSRegularExpression refuses it alone.)
            if !pattern.isEmpty { _ = try NSRegularExpression(pattern: pattern, options: caseInsensitive ? [.caseInsensitive] : []) }
            regex = try NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z", options: caseInsensitive ? [.caseInsensitive] : [])
        } catch {
            throw PredicateEvaluationError(.invalidRegularExpression(pattern))
        }
        cache.withLock { c in
            if c.count > 512 { c.removeAll() }
            c[key] = NSRegularExpressionBox(regex: regex)
        }
        return regex
    }
}

/// `NSRegularExpression` is immutable once made and documented thread-safe.
struct NSRegularExpressionBox: @unchecked Sendable { let regex: NSRegularExpression }
