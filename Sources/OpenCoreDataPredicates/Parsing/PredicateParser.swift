import Foundation

/// Recursive-descent parser for Apple's predicate format language ("Predicate Format String Syntax").
///
/// Grammar (keywords case-insensitive; each `parseX()` below repeats its rule):
///
///     predicate        ::= and-predicate (("OR" | "||") and-predicate)*
///     and-predicate    ::= not-predicate (("AND" | "&&") not-predicate)*
///     not-predicate    ::= ("NOT" | "!") not-predicate | primary-predicate
///     primary-predicate::= "(" predicate ")" | "TRUEPREDICATE" | "FALSEPREDICATE"
///                        | [quantifier] comparison
///     quantifier       ::= "ANY" | "SOME" | "ALL" | "NONE"
///     comparison       ::= expression ["NOT"] operator [options] expression
///     operator         ::= "=" | "==" | "!=" | "<>" | "<" | "<=" | "=<" | ">" | ">=" | "=>"
///                        | "IN" | "CONTAINS" | "BEGINSWITH" | "ENDSWITH" | "LIKE" | "MATCHES" | "BETWEEN"
///     options          ::= "[" ("c" | "d" | "n")+ "]"
///     expression       ::= additive (set-operator additive)*
///     set-operator     ::= "UNION" | "INTERSECT" | "MINUS"   (case-insensitive; keys with these names need no #)
///     additive         ::= term (("+" | "-") term)*
///     term             ::= power (("*" | "/") power)*
///     power            ::= unary ["**" power]
///     unary            ::= "-" unary | postfix
///     postfix          ::= primary ("." key | "[" index "]")*
///     index            ::= "FIRST" | "LAST" | "SIZE" | expression
///     primary          ::= literal | "%@" | "%K" | printf-specifier | "$" name | "SELF" | "ANYKEY"
///                        | key ("." key)* | "(" expression ")" | "{" [expression ("," expression)*] "}"
///                        | "SUBQUERY" "(" expression "," "$" name "," predicate ")"
///                        | "FUNCTION" "(" expression "," expression ("," expression)* ")"
///                        | "TERNARY" "(" predicate "," expression "," expression ")"
///                        | "CAST" "(" expression "," expression ")"
///                        | function-name "(" [expression ("," expression)*] ")"
///     function-name    ::= name | (name ":")+           e.g. now, sum:, modulus:by:
///     key              ::= name | "#" name | "@" name | "%K"
///     literal          ::= string | number | "TRUE" | "YES" | "FALSE" | "NO" | "NULL" | "NIL"
///     number           ::= decimal digits ["." digits] [exponent] | "0x" hex | "0o" octal | "0b" binary
///
/// A `(` at the start of a predicate opens a predicate group when the tokens up to its matching `)`
/// contain, outside any nested bracket, a comparison operator, a logical operator or a quantifier;
/// otherwise it is a parenthesized expression (`(a + b) > 3`). Nesting deeper than
/// ``PredicateParser/maximumDepth`` levels is an error, never a stack overflow.
package struct PredicateParser {
    package static let maximumDepth = 64

    let format: String
    let scalars: [Unicode.Scalar]
    let tokens: [Token]
    var position = 0
    var depth = 0
    var arguments: FormatArguments
    /// Whether arguments the format does not use are ignored (Darwin's `init(format:)`) or an error (the
    /// validating entry points).
    let allowsUnusedArguments: Bool

    private init(_ format: String, arguments: [Any], allowsUnusedArguments: Bool) throws(PredicateFormatError) {
        self.allowsUnusedArguments = allowsUnusedArguments
        let lexer = Lexer(format)
        self.format = format
        self.scalars = Array(format.unicodeScalars)
        self.tokens = try lexer.tokenize()
        self.arguments = FormatArguments(arguments)
    }

    /// Parses a whole predicate format string, substituting format arguments.
    /// Arguments the format does not use are an error unless `allowsUnusedArguments` (Darwin ignores them).
    package static func parsePredicate(_ format: String, arguments: [Any], allowsUnusedArguments: Bool = false) throws(PredicateFormatError) -> PredicateNode {
        try parsePredicateKeepingArguments(format, arguments: arguments, allowsUnusedArguments: allowsUnusedArguments).node
    }

    /// ``parsePredicate(_:arguments:allowsUnusedArguments:)``, with the `%@` objects the constants were
    /// made from (see ``GivenConstants``).
    package static func parsePredicateKeepingArguments(_ format: String, arguments: [Any], allowsUnusedArguments: Bool)
        throws(PredicateFormatError) -> (node: PredicateNode, given: GivenConstants?) {
        var parser = try PredicateParser(format, arguments: arguments, allowsUnusedArguments: allowsUnusedArguments)
        let node = try parser.parsePredicate()
        try parser.finish()
        return (node, parser.arguments.givenConstants)
    }

    /// Parses a whole expression format string (`NSExpression(format:)`), with the `%@` objects its
    /// constants were made from.
    package static func parseExpression(_ format: String, arguments: [Any], allowsUnusedArguments: Bool = false)
        throws(PredicateFormatError) -> (node: ExpressionNode, given: GivenConstants?) {
        var parser = try PredicateParser(format, arguments: arguments, allowsUnusedArguments: allowsUnusedArguments)
        let node = try parser.parseExpression()
        try parser.finish()
        return (node, parser.arguments.givenConstants)
    }

    mutating func finish() throws(PredicateFormatError) {
        guard case .end = current.kind else { throw unexpected("end of input") }
        if arguments.used < arguments.count, !allowsUnusedArguments {
            let quoted = tokens.contains { token in
                guard case .string(let text) = token.kind else { return false }
                return text.contains("%@") || text.contains("%K") || text.contains("$")
            }
            throw PredicateFormatError(.extraArguments(used: arguments.used, given: arguments.count, quotedSpecifier: quoted),
                                       format: format, offset: current.offset, found: "end of input")
        }
    }

    // MARK: - Tokens

    var current: Token { tokens[position] }
    func peek(_ ahead: Int = 1) -> Token { tokens[min(position + ahead, tokens.count - 1)] }
    mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    func isSymbol(_ s: String, _ token: Token? = nil) -> Bool {
        if case .symbol(s) = (token ?? current).kind { return true }
        return false
    }

    func isKeyword(_ k: String, _ token: Token? = nil) -> Bool {
        if case .keyword(k) = (token ?? current).kind { return true }
        return false
    }

    mutating func expectSymbol(_ s: String) throws(PredicateFormatError) {
        guard isSymbol(s) else { throw unexpected("\"\(s)\"") }
        advance()
    }

    func unexpected(_ expected: String, at token: Token? = nil) -> PredicateFormatError {
        let t = token ?? current
        return PredicateFormatError(.unexpected(expected: expected), format: format, offset: t.offset, found: t.describe(in: scalars))
    }

    func invalid(_ why: String, at token: Token) -> PredicateFormatError {
        PredicateFormatError(.invalid(why), format: format, offset: token.offset, found: token.describe(in: scalars))
    }

    /// Runs `body` one nesting level deeper, failing past the limit.
    mutating func nested<T>(_ body: (inout PredicateParser) throws(PredicateFormatError) -> T) throws(PredicateFormatError) -> T {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            throw PredicateFormatError(.tooDeep(limit: Self.maximumDepth), format: format, offset: current.offset,
                                       found: current.describe(in: scalars))
        }
        return try body(&self)
    }

    // MARK: - Predicates

    /// predicate ::= and-predicate (("OR" | "||") and-predicate)*
    mutating func parsePredicate() throws(PredicateFormatError) -> PredicateNode {
        var parts = [try parseAndPredicate()]
        while isKeyword("OR") || isSymbol("||") {
            advance()
            parts.append(try parseAndPredicate())
        }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    /// and-predicate ::= not-predicate (("AND" | "&&") not-predicate)*
    mutating func parseAndPredicate() throws(PredicateFormatError) -> PredicateNode {
        var parts = [try parseNotPredicate()]
        while isKeyword("AND") || isSymbol("&&") {
            advance()
            parts.append(try parseNotPredicate())
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    /// not-predicate ::= ("NOT" | "!") not-predicate | primary-predicate
    mutating func parseNotPredicate() throws(PredicateFormatError) -> PredicateNode {
        if isKeyword("NOT") || isSymbol("!") {
            advance()
            return .not(try nested { p throws(PredicateFormatError) in try p.parseNotPredicate() })
        }
        return try parsePrimaryPredicate()
    }

    /// primary-predicate ::= "(" predicate ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | [quantifier] comparison
    mutating func parsePrimaryPredicate() throws(PredicateFormatError) -> PredicateNode {
        switch current.kind {
        case .keyword("TRUEPREDICATE"):
            advance()
            return .constant(true)
        case .keyword("FALSEPREDICATE"):
            advance()
            return .constant(false)
        case .keyword("ANY"), .keyword("SOME"):
            advance()
            return try parseComparison(modifier: .any)
        case .keyword("ALL"):
            advance()
            return try parseComparison(modifier: .all)
        case .keyword("NONE"):
            advance()
            return .not(try parseComparison(modifier: .any))
        case .symbol("(") where groupIsPredicate(at: position):
            advance()
            let inner = try nested { p throws(PredicateFormatError) in try p.parsePredicate() }
            try expectSymbol(")")
            return inner
        case .end:
            throw unexpected("a predicate")
        default:
            return try parseComparison(modifier: .direct)
        }
    }

    /// Whether the `(` at `index` opens a predicate rather than an expression (see the type's comment).
    /// Looks at most ``maximumDepth`` groups deep; anything deeper fails on depth when parsed.
    func groupIsPredicate(at index: Int, budget: Int = PredicateParser.maximumDepth + 1) -> Bool {
        guard budget > 0 else { return false }
        var level = 0
        var i = index + 1
        while i < tokens.count {
            switch tokens[i].kind {
            case .end:
                return false
            case .symbol("("), .symbol("["), .symbol("{"):
                level += 1
            case .symbol(")"), .symbol("]"), .symbol("}"):
                if level == 0 {
                    // "((a > 1))": the only thing inside is a group, which decides.
                    if i > index + 1, isSymbol("(", tokens[index + 1]), matchingClose(of: index + 1) == i - 1 {
                        return groupIsPredicate(at: index + 1, budget: budget - 1)
                    }
                    return false
                }
                level -= 1
            case .symbol("="), .symbol("=="), .symbol("!="), .symbol("<>"), .symbol("<"), .symbol("<="),
                 .symbol("=<"), .symbol(">"), .symbol(">="), .symbol("=>"), .symbol("&&"), .symbol("||"), .symbol("!"):
                if level == 0 { return true }
            case .keyword(let k):
                if level == 0, Self.predicateKeywords.contains(k) { return true }
            default:
                break
            }
            i += 1
        }
        return false
    }

    func matchingClose(of index: Int) -> Int? {
        var level = 0
        for i in (index + 1)..<tokens.count {
            switch tokens[i].kind {
            case .symbol("("), .symbol("["), .symbol("{"): level += 1
            case .symbol(")"), .symbol("]"), .symbol("}"):
                if level == 0 { return i }
                level -= 1
            default: break
            }
        }
        return nil
    }

    static let predicateKeywords: Set<String> = [
        "AND", "OR", "NOT", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "BETWEEN",
        "ANY", "SOME", "ALL", "NONE", "TRUEPREDICATE", "FALSEPREDICATE",
    ]

    /// comparison ::= expression ["NOT"] operator [options] expression
    mutating func parseComparison(modifier: NSComparisonPredicate.Modifier) throws(PredicateFormatError) -> PredicateNode {
        let left = try parseExpression()
        var negated = false
        if isKeyword("NOT"), case .keyword(let next) = peek().kind,
           ["IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "BETWEEN"].contains(next) {
            negated = true
            advance()
        }
        let opToken = current
        guard let op = Self.comparisonOperator(current.kind) else {
            throw unexpected("a comparison operator (==, !=, <, <=, >, >=, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES, BETWEEN)")
        }
        advance()
        let options = try parseOptions()
        let right = try parseExpression()
        if op == .between {
            switch right {
            case .aggregate(let items) where items.count == 2: break
            case .constant(.array(let items)) where items.count == 2: break
            case .variable, .keyPath, .member, .function: break  // bound or computed at evaluation time
            default: throw invalid("BETWEEN needs a pair {lower, upper}", at: opToken)
            }
        }
        let node = PredicateNode.comparison(ComparisonNode(left, op, right, modifier: modifier, options: options))
        return negated ? .not(node) : node
    }

    static func comparisonOperator(_ kind: Token.Kind) -> NSComparisonPredicate.Operator? {
        switch kind {
        case .symbol("="), .symbol("=="): return .equalTo
        case .symbol("!="), .symbol("<>"): return .notEqualTo
        case .symbol("<"): return .lessThan
        case .symbol("<="), .symbol("=<"): return .lessThanOrEqualTo
        case .symbol(">"): return .greaterThan
        case .symbol(">="), .symbol("=>"): return .greaterThanOrEqualTo
        case .keyword("IN"): return .in
        case .keyword("CONTAINS"): return .contains
        case .keyword("BEGINSWITH"): return .beginsWith
        case .keyword("ENDSWITH"): return .endsWith
        case .keyword("LIKE"): return .like
        case .keyword("MATCHES"): return .matches
        case .keyword("BETWEEN"): return .between
        default: return nil
        }
    }

    /// options ::= "[" ("c" | "d" | "n")+ "]"
    mutating func parseOptions() throws(PredicateFormatError) -> NSComparisonPredicate.Options {
        guard isSymbol("[") else { return [] }
        advance()
        guard case .identifier(let letters, escaped: false) = current.kind else {
            throw unexpected("comparison options (c, d, n)")
        }
        var options: NSComparisonPredicate.Options = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            default: throw unexpected("comparison options (c, d, n)")
            }
        }
        advance()
        try expectSymbol("]")
        return options
    }
}
