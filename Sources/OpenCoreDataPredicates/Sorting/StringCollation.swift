import Foundation

/// The string orders of the sort selectors Core Data's SQLite store supports. The store registers
/// collations that call these functions, so that SQL `ORDER BY` and in-memory sorting agree.
///
/// Linux has no locale-tailored collation here; the `localized…` orders are a locale-independent
/// approximation of the Unicode root collation: base letters first (case and diacritics folded),
/// then diacritics, then case with lower case first. `localizedStandardCompare:` also compares runs of
/// digits by their numeric value ("file2" before "file10"), as Finder does.
package enum StringCollation: String, Sendable, CaseIterable {
    case compare = "compare:"
    case caseInsensitiveCompare = "caseInsensitiveCompare:"
    case localizedCompare = "localizedCompare:"
    case localizedCaseInsensitiveCompare = "localizedCaseInsensitiveCompare:"
    case localizedStandardCompare = "localizedStandardCompare:"

    package func compare(_ a: String, _ b: String) -> ComparisonResult {
        switch self {
        case .compare:
            return StringMatching.compare(a, b, [])
        case .caseInsensitiveCompare:
            return StringMatching.compare(a, b, .caseInsensitive)
        case .localizedCaseInsensitiveCompare:
            return then(StringMatching.compare(a, b, [.caseInsensitive, .diacriticInsensitive]),
                        StringMatching.compare(a, b, .caseInsensitive))
        case .localizedCompare:
            return then(Self.localizedCaseInsensitiveCompare.compare(a, b), Self.tertiary(a, b))
        case .localizedStandardCompare:
            return then(Self.numericCompare(StringMatching.fold(a, [.caseInsensitive, .diacriticInsensitive]),
                                            StringMatching.fold(b, [.caseInsensitive, .diacriticInsensitive])),
                        Self.localizedCompare.compare(a, b))
        }
    }

    private func then(_ first: ComparisonResult, _ second: @autoclosure () -> ComparisonResult) -> ComparisonResult {
        first == .orderedSame ? second() : first
    }

    /// Case as the last resort, lower case first.
    private static func tertiary(_ a: String, _ b: String) -> ComparisonResult {
        func swapped(_ s: String) -> String {
            String(s.map { ch -> String in
                let up = ch.uppercased(), low = ch.lowercased()
                return String(ch) == low ? up : String(ch) == up ? low : String(ch)
            }.joined())
        }
        return StringMatching.compare(swapped(a), swapped(b), [])
    }

    /// Compares digit runs by value, other characters as they are.
    private static func numericCompare(_ a: String, _ b: String) -> ComparisonResult {
        var i = a.unicodeScalars.makeIterator(), j = b.unicodeScalars.makeIterator()
        var x = i.next(), y = j.next()
        while let cx = x, let cy = y {
            if cx.properties.numericType == .decimal, cy.properties.numericType == .decimal {
                var nx: [UInt8] = [], ny: [UInt8] = []
                while let c = x, let v = c.properties.numericValue, c.properties.numericType == .decimal { nx.append(UInt8(v)); x = i.next() }
                while let c = y, let v = c.properties.numericValue, c.properties.numericType == .decimal { ny.append(UInt8(v)); y = j.next() }
                let tx = Array(nx.drop(while: { $0 == 0 })), ty = Array(ny.drop(while: { $0 == 0 }))
                if tx.count != ty.count { return tx.count < ty.count ? .orderedAscending : .orderedDescending }
                if tx != ty { return tx.lexicographicallyPrecedes(ty) ? .orderedAscending : .orderedDescending }
                continue
            }
            if cx != cy {
                return StringMatching.compare(String(cx), String(cy), [])
            }
            x = i.next()
            y = j.next()
        }
        if x == nil && y == nil { return .orderedSame }
        return x == nil ? .orderedAscending : .orderedDescending
    }
}
