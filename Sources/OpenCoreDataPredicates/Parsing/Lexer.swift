import Foundation

/// A token of the predicate format language.
package struct Token: Equatable, Sendable {
    package enum Kind: Equatable, Sendable {
        /// A plain identifier, or a `#`-escaped reserved word (`escaped` true).
        case identifier(String, escaped: Bool)
        /// A reserved word, upper-cased (`AND`, `CONTAINS`, `SELF`, …).
        case keyword(String)
        /// `$name`
        case variable(String)
        /// `@count`, `@sum`, … (a collection operator in a key path).
        case atIdentifier(String)
        case string(String)
        case integer(Int64)
        case decimal(Double)
        /// A format specifier: `@`, `K`, `d`, `ld`, `f`, … (the text after `%`).
        case specifier(String)
        /// Punctuation and symbolic operators: `==`, `<=`, `(`, `{`, `**`, `&&`, …
        case symbol(String)
        case end
    }

    package var kind: Kind
    /// Offset in Unicode scalars.
    package var offset: Int
    package var length: Int

    /// How the token reads in a diagnostic.
    package func describe(in scalars: [Unicode.Scalar]) -> String {
        if case .end = kind { return "end of input" }
        var text = String(String.UnicodeScalarView(scalars[offset..<min(offset + length, scalars.count)]))
        if text.count > 24 { text = String(text.prefix(24)) + "…" }
        return "\"\(text)\""
    }
}

/// Splits a format string into tokens. Keywords are case-insensitive.
package struct Lexer {
    /// Apple's reserved words ("Predicate Format String Syntax"); a key with one of these names is written `#name`.
    package static let reservedWords: Set<String> = [
        "AND", "OR", "IN", "NOT", "ALL", "ANY", "SOME", "NONE", "LIKE", "CASEINSENSITIVE", "CI", "MATCHES",
        "CONTAINS", "BEGINSWITH", "ENDSWITH", "BETWEEN", "NULL", "NIL", "SELF", "TRUE", "YES", "FALSE", "NO",
        "FIRST", "LAST", "SIZE", "ANYKEY", "SUBQUERY", "FETCH", "CAST", "TRUEPREDICATE", "FALSEPREDICATE",
        "FUNCTION", "TERNARY",
    ]

    private static let symbols: [String] = [
        // longest first
        "**", "==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", ":=",
        "=", "<", ">", "!", "+", "-", "*", "/", "(", ")", "{", "}", "[", "]", ",", ".", ":",
    ]

    let scalars: [Unicode.Scalar]
    let format: String

    package init(_ format: String) {
        self.format = format
        self.scalars = Array(format.unicodeScalars)
    }

    private func error(_ kind: PredicateFormatError.Kind, at offset: Int, length: Int = 1) -> PredicateFormatError {
        let found = offset >= scalars.count ? "end of input"
            : "\"" + String(String.UnicodeScalarView(scalars[offset..<min(offset + max(length, 1), scalars.count)])) + "\""
        return PredicateFormatError(kind, format: format, offset: offset, found: found)
    }

    package func tokenize() throws(PredicateFormatError) -> [Token] {
        var tokens: [Token] = []
        var i = 0
        let n = scalars.count
        while true {
            while i < n, scalars[i].properties.isWhitespace { i += 1 }
            guard i < n else { break }
            let start = i
            let c = scalars[i]
            if c == "\"" || c == "'" {
                let (text, next) = try lexString(from: i)
                tokens.append(Token(kind: .string(text), offset: start, length: next - start))
                i = next
            } else if c.isASCIIDigit || (c == "." && i + 1 < n && scalars[i + 1].isASCIIDigit) {
                let (kind, next) = try lexNumber(from: i)
                tokens.append(Token(kind: kind, offset: start, length: next - start))
                i = next
            } else if c == "%" {
                let (spec, next) = try lexSpecifier(from: i)
                tokens.append(Token(kind: .specifier(spec), offset: start, length: next - start))
                i = next
            } else if c == "$" || c == "#" || c == "@" {
                var j = i + 1
                while j < n, scalars[j].isIdentifierContinue { j += 1 }
                guard j > i + 1, scalars[i + 1].isIdentifierStart else {
                    throw error(.unexpected(expected: c == "$" ? "a variable name after \"$\"" : c == "#" ? "an identifier after \"#\"" : "a collection operator after \"@\""), at: i + 1)
                }
                let name = String(String.UnicodeScalarView(scalars[(i + 1)..<j]))
                let kind: Token.Kind = c == "$" ? .variable(name) : c == "#" ? .identifier(name, escaped: true) : .atIdentifier(name)
                tokens.append(Token(kind: kind, offset: start, length: j - start))
                i = j
            } else if c.isIdentifierStart {
                var j = i + 1
                while j < n, scalars[j].isIdentifierContinue { j += 1 }
                let word = String(String.UnicodeScalarView(scalars[i..<j]))
                let upper = word.uppercased()
                let kind: Token.Kind = Self.reservedWords.contains(upper) ? .keyword(upper) : .identifier(word, escaped: false)
                tokens.append(Token(kind: kind, offset: start, length: j - start))
                i = j
            } else if let symbol = Self.symbols.first(where: { matches($0, at: i) }) {
                let len = symbol.unicodeScalars.count
                tokens.append(Token(kind: .symbol(symbol), offset: start, length: len))
                i += len
            } else {
                throw error(.unexpected(expected: "a token"), at: i)
            }
        }
        tokens.append(Token(kind: .end, offset: n, length: 0))
        return tokens
    }

    private func matches(_ symbol: String, at i: Int) -> Bool {
        var j = i
        for s in symbol.unicodeScalars {
            guard j < scalars.count, scalars[j] == s else { return false }
            j += 1
        }
        return true
    }

    /// `"…"` or `'…'` with `\"` `\'` `\\` `\n` `\t` `\r` `\0` `\uXXXX` escapes.
    private func lexString(from start: Int) throws(PredicateFormatError) -> (String, Int) {
        let quote = scalars[start]
        var out = String.UnicodeScalarView()
        var i = start + 1
        while i < scalars.count {
            let c = scalars[i]
            if c == quote { return (String(out), i + 1) }
            if c == "\\" {
                guard i + 1 < scalars.count else { break }
                let e = scalars[i + 1]
                switch e {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case "0": out.append("\0")
                case "u":
                    let hex = scalars[(i + 2)..<min(i + 6, scalars.count)]
                    guard hex.count == 4, let code = UInt32(String(String.UnicodeScalarView(hex)), radix: 16),
                          let scalar = Unicode.Scalar(code) else {
                        throw error(.unexpected(expected: "four hex digits after \\u"), at: i + 2)
                    }
                    out.append(scalar)
                    i += 6
                    continue
                default: out.append(e)
                }
                i += 2
                continue
            }
            out.append(c)
            i += 1
        }
        throw error(.unexpected(expected: "a closing \(quote == "\"" ? "\"" : "'") for the string that starts at offset \(start)"), at: scalars.count)
    }

    /// Integers (decimal, `0x`, `0o`, `0b`), decimals, exponents.
    private func lexNumber(from start: Int) throws(PredicateFormatError) -> (Token.Kind, Int) {
        var i = start
        let n = scalars.count
        if scalars[i] == "0", i + 1 < n, let radix = ["x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2][Character(scalars[i + 1])] {
            var j = i + 2
            while j < n, scalars[j].properties.isASCIIHexDigit || scalars[j].isASCIIDigit { j += 1 }
            let digits = String(String.UnicodeScalarView(scalars[(i + 2)..<j]))
            guard !digits.isEmpty, let v = Int64(digits, radix: radix) else {
                throw error(.unexpected(expected: "a base-\(radix) number that fits in 64 bits"), at: start, length: j - start)
            }
            return (.integer(v), j)
        }
        while i < n, scalars[i].isASCIIDigit { i += 1 }
        var isDecimal = false
        if i < n, scalars[i] == ".", i + 1 < n, scalars[i + 1].isASCIIDigit {
            isDecimal = true
            i += 1
            while i < n, scalars[i].isASCIIDigit { i += 1 }
        } else if i < n, scalars[i] == ".", !(i + 1 < n && scalars[i + 1].isIdentifierStart) {
            isDecimal = true  // "5." is 5.0
            i += 1
        }
        if i < n, scalars[i] == "e" || scalars[i] == "E" {
            var j = i + 1
            if j < n, scalars[j] == "+" || scalars[j] == "-" { j += 1 }
            if j < n, scalars[j].isASCIIDigit {
                while j < n, scalars[j].isASCIIDigit { j += 1 }
                isDecimal = true
                i = j
            }
        }
        let text = String(String.UnicodeScalarView(scalars[start..<i]))
        if !isDecimal, let v = Int64(text) { return (.integer(v), i) }
        guard let d = Double(text) else {
            throw error(.unexpected(expected: "a number"), at: start, length: i - start)
        }
        return (.decimal(d), i)
    }

    /// `%@`, `%K`, `%%` is not allowed outside strings; printf forms `%d %i %u %ld %lld %hd %qd %f %lf %g %e %x %o %c`.
    private func lexSpecifier(from start: Int) throws(PredicateFormatError) -> (String, Int) {
        var i = start + 1
        let n = scalars.count
        var spec = ""
        while i < n, "hlqLzjt".unicodeScalars.contains(scalars[i]), spec.count < 2 {
            spec.unicodeScalars.append(scalars[i])
            i += 1
        }
        guard i < n, "@KdiuxXofFeEgGc".unicodeScalars.contains(scalars[i]) else {
            throw error(.unexpected(expected: "a format specifier (%@, %K, %d, %f, …)"), at: start, length: i - start + 1)
        }
        spec.unicodeScalars.append(scalars[i])
        if spec.count > 1, spec.last == "@" || spec.last == "K" {
            throw error(.unexpected(expected: "a format specifier (%@, %K, %d, %f, …)"), at: start, length: i - start + 1)
        }
        return (spec, i + 1)
    }
}

extension Unicode.Scalar {
    var isASCIIDigit: Bool { value >= 0x30 && value <= 0x39 }
    var isIdentifierStart: Bool {
        value == 0x5F || (value < 0x80 ? (value | 0x20) >= 0x61 && (value | 0x20) <= 0x7A : properties.isAlphabetic)
    }
    var isIdentifierContinue: Bool { isIdentifierStart || isASCIIDigit || (value >= 0x80 && properties.numericType != nil) }
}
