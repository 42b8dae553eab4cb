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
///     key              ::= name | "#" name | "@" name
///     literal          ::= string | number | "TRUE" | "YES" | "FALSE" | "NO" | "NULL" | "NIL"
///     number           ::= decimal digits ["." digits] [exponent] | "0x" hex | "0o" octal | "0b" binary
///
/// A `(` at the start of a predicate opens a predicate group when the tokens up to its matching `)`
/// contain, outside any nested bracket, a comparison operator, a logical operator or a quantifier;
/// otherwise it is a parenthesized expression (`(a + b) > 3`). Nesting deeper than
/// ``PredicateParser/maximumDepth`` levels is an error, never a stack overflow.
package struct PredicateParser {
    package static let maximumDepth = 64

    private let format: String
    private let scalars: [Unicode.Scalar]
    private let tokens: [Token]
    private var position = 0
    private var depth = 0
    private var arguments: FormatArguments
    /// Whether arguments the format does not use are ignored (Darwin's `init(format:)`) or an error (the
    /// validating entry points).
    private let allowsUnusedArguments: Bool

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
        var parser = try PredicateParser(format, arguments: arguments, allowsUnusedArguments: allowsUnusedArguments)
        let node = try parser.parsePredicate()
        try parser.finish()
        return node
    }

    /// Parses a whole expression format string (`NSExpression(format:)`).
    package static func parseExpression(_ format: String, arguments: [Any], allowsUnusedArguments: Bool = false) throws(PredicateFormatError) -> ExpressionNode {
        var parser = try PredicateParser(format, arguments: arguments, allowsUnusedArguments: allowsUnusedArguments)
        let node = try parser.parseExpression()
        try parser.finish()
        return node
    }

    private mutating func finish() throws(PredicateFormatError) {
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

    private var current: Token { tokens[position] }
    private func peek(_ ahead: Int = 1) -> Token { tokens[min(position + ahead, tokens.count - 1)] }
    private mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    private func isSymbol(_ s: String, _ token: Token? = nil) -> Bool {
        if case .symbol(s) = (token ?? current).kind { return true }
        return false
    }

    private func isKeyword(_ k: String, _ token: Token? = nil) -> Bool {
        if case .keyword(k) = (token ?? current).kind { return true }
        return false
    }

    private mutating func expectSymbol(_ s: String) throws(PredicateFormatError) {
        guard isSymbol(s) else { throw unexpected("\"\(s)\"") }
        advance()
    }

    private func unexpected(_ expected: String, at token: Token? = nil) -> PredicateFormatError {
        let t = token ?? current
        return PredicateFormatError(.unexpected(expected: expected), format: format, offset: t.offset, found: t.describe(in: scalars))
    }

    private func invalid(_ why: String, at token: Token) -> PredicateFormatError {
        PredicateFormatError(.invalid(why), format: format, offset: token.offset, found: token.describe(in: scalars))
    }

    /// Runs `body` one nesting level deeper, failing past the limit.
    private mutating func nested<T>(_ body: (inout PredicateParser) throws(PredicateFormatError) -> T) throws(PredicateFormatError) -> T {
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
    private mutating func parsePredicate() throws(PredicateFormatError) -> PredicateNode {
        var parts = [try parseAndPredicate()]
        while isKeyword("OR") || isSymbol("||") {
            advance()
            parts.append(try parseAndPredicate())
        }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    /// and-predicate ::= not-predicate (("AND" | "&&") not-predicate)*
    private mutating func parseAndPredicate() throws(PredicateFormatError) -> PredicateNode {
        var parts = [try parseNotPredicate()]
        while isKeyword("AND") || isSymbol("&&") {
            advance()
            parts.append(try parseNotPredicate())
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    /// not-predicate ::= ("NOT" | "!") not-predicate | primary-predicate
    private mutating func parseNotPredicate() throws(PredicateFormatError) -> PredicateNode {
        if isKeyword("NOT") || isSymbol("!") {
            advance()
            return .not(try nested { p throws(PredicateFormatError) in try p.parseNotPredicate() })
        }
        return try parsePrimaryPredicate()
    }

    /// primary-predicate ::= "(" predicate ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | [quantifier] comparison
    private mutating func parsePrimaryPredicate() throws(PredicateFormatError) -> PredicateNode {
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
    private func groupIsPredicate(at index: Int, budget: Int = PredicateParser.maximumDepth + 1) -> Bool {
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

    private func matchingClose(of index: Int) -> Int? {
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

    private static let predicateKeywords: Set<String> = [
        "AND", "OR", "NOT", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "BETWEEN",
        "ANY", "SOME", "ALL", "NONE", "TRUEPREDICATE", "FALSEPREDICATE",
    ]

    /// comparison ::= expression ["NOT"] operator [options] expression
    private mutating func parseComparison(modifier: NSComparisonPredicate.Modifier) throws(PredicateFormatError) -> PredicateNode {
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

    private static func comparisonOperator(_ kind: Token.Kind) -> NSComparisonPredicate.Operator? {
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
    private mutating func parseOptions() throws(PredicateFormatError) -> NSComparisonPredicate.Options {
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

    // MARK: - Expressions

    /// expression ::= additive (("UNION" | "INTERSECT" | "MINUS") additive)*
    ///
    /// The set operators are words only in this position (after a whole operand), so a key named `union`
    /// or `minus` needs no `#` anywhere else.
    mutating func parseExpression() throws(PredicateFormatError) -> ExpressionNode {
        var left = try parseAdditive()
        var chain = 0
        while case .identifier(let word, escaped: false) = current.kind, let op = SetOperation(rawValue: word.uppercased()) {
            try checkChain(&chain)
            advance()
            left = .setOperation(op, left, try parseAdditive())
        }
        return left
    }

    /// additive ::= term (("+" | "-") term)*
    private mutating func parseAdditive() throws(PredicateFormatError) -> ExpressionNode {
        var left = try parseTerm()
        var chain = 0
        while isSymbol("+") || isSymbol("-") {
            let name = isSymbol("+") ? "add:to:" : "from:subtract:"
            try checkChain(&chain)
            advance()
            left = .function(name, [left, try parseTerm()])
        }
        return left
    }

    /// term ::= power (("*" | "/") power)*
    private mutating func parseTerm() throws(PredicateFormatError) -> ExpressionNode {
        var left = try parsePower()
        var chain = 0
        while isSymbol("*") || isSymbol("/") {
            let name = isSymbol("*") ? "multiply:by:" : "divide:by:"
            try checkChain(&chain)
            advance()
            left = .function(name, [left, try parsePower()])
        }
        return left
    }

    /// power ::= unary ["**" power]
    private mutating func parsePower() throws(PredicateFormatError) -> ExpressionNode {
        let base = try parseUnary()
        guard isSymbol("**") else { return base }
        advance()
        let exponent = try nested { p throws(PredicateFormatError) in try p.parsePower() }
        return .function("raise:toPower:", [base, exponent])
    }

    /// unary ::= "-" unary | postfix
    private mutating func parseUnary() throws(PredicateFormatError) -> ExpressionNode {
        guard isSymbol("-") else { return try parsePostfix() }
        advance()
        let operand = try nested { p throws(PredicateFormatError) in try p.parseUnary() }
        switch operand {
        case .constant(.int(let v)) where v != Int64.min: return .constant(.int(-v))
        case .constant(.double(let v)): return .constant(.double(-v))
        case .constant(.decimal(let v)): return .constant(.decimal(-v))
        default: return .function("from:subtract:", [.constant(.int(0)), operand])
        }
    }

    /// postfix ::= primary ("." key | "[" index "]")*
    private mutating func parsePostfix() throws(PredicateFormatError) -> ExpressionNode {
        var node = try parsePrimary()
        var chain = 0
        while true {
            if isSymbol("[") || (isSymbol(".") && !Self.mergesKeyPath(node)) { try checkChain(&chain) }
            if isSymbol(".") {
                advance()
                let key = try parseKey()
                node = Self.member(node, key)
            } else if isSymbol("[") {
                advance()
                let index: ExpressionNode
                switch current.kind {
                case .keyword("FIRST"), .keyword("LAST"), .keyword("SIZE"):
                    guard case .keyword(let k) = current.kind else { fatalError() }
                    index = .symbol(k)
                    advance()
                default:
                    index = try nested { p throws(PredicateFormatError) in try p.parseExpression() }
                }
                try expectSymbol("]")
                node = .function("objectFrom:withIndex:", [node, index])
            } else {
                return node
            }
        }
    }

    /// Each operator of a left-associative chain (`a + b + c`, `a[0][1]`) nests the tree one level deeper.
    private func checkChain(_ chain: inout Int) throws(PredicateFormatError) {
        chain += 1
        guard depth + chain <= Self.maximumDepth else {
            throw PredicateFormatError(.tooDeep(limit: Self.maximumDepth), format: format, offset: current.offset,
                                       found: current.describe(in: scalars))
        }
    }

    private static func mergesKeyPath(_ node: ExpressionNode) -> Bool {
        switch node {
        case .evaluatedObject, .keyPath, .member: return true
        default: return false
        }
    }

    /// `base.key`: key paths on `SELF` or on a key path stay one key path, as on Darwin.
    private static func member(_ base: ExpressionNode, _ key: String) -> ExpressionNode {
        switch base {
        case .evaluatedObject: return .keyPath(key)
        case .keyPath(let path): return .keyPath(path + "." + key)
        case .member(let inner, let path): return .member(inner, path + "." + key)
        default: return .member(base, key)
        }
    }

    /// key ::= name | "#" name | "@" name
    private mutating func parseKey() throws(PredicateFormatError) -> String {
        switch current.kind {
        case .identifier(let name, _):
            advance()
            return name
        case .atIdentifier(let name):
            advance()
            return "@" + name
        default:
            throw unexpected("a key (reserved words as keys are written with #, as in #size)")
        }
    }

    /// primary ::= literal | argument | variable | SELF | ANYKEY | key path | "(" expression ")"
    ///           | "{" list "}" | SUBQUERY(…) | FUNCTION(…) | TERNARY(…) | CAST(…) | function-name "(" list ")"
    private mutating func parsePrimary() throws(PredicateFormatError) -> ExpressionNode {
        let token = current
        switch token.kind {
        case .string(let s):
            advance()
            return .constant(.string(s))
        case .integer(let v):
            advance()
            return .constant(.int(v))
        case .decimal(let v):
            advance()
            return .constant(.double(v))
        case .keyword("TRUE"), .keyword("YES"):
            advance()
            return .constant(.bool(true))
        case .keyword("FALSE"), .keyword("NO"):
            advance()
            return .constant(.bool(false))
        case .keyword("NULL"), .keyword("NIL"):
            advance()
            return .constant(.null)
        case .keyword("SELF"):
            advance()
            return .evaluatedObject
        case .keyword("ANYKEY"):
            advance()
            return .anyKey
        case .variable(let name):
            advance()
            return .variable(name)
        case .specifier(let spec):
            advance()
            return try arguments.next(spec, at: token, format: format, scalars: scalars)
        case .atIdentifier(let name):
            advance()
            return .keyPath("@" + name)
        case .identifier(let name, let escaped):
            if !escaped, isSymbol("(", peek()) || (isSymbol(":", peek())) {
                return try parseFunctionCall()
            }
            advance()
            return .keyPath(name)
        case .symbol("("):
            advance()
            let inner = try nested { p throws(PredicateFormatError) in try p.parseExpression() }
            try expectSymbol(")")
            return inner
        case .symbol("{"):
            advance()
            let items = try nested { p throws(PredicateFormatError) in try p.parseList(closing: "}") }
            return .aggregate(items)
        case .keyword("SUBQUERY"):
            advance()
            return try nested { p throws(PredicateFormatError) in try p.parseSubquery() }
        case .keyword("FUNCTION"):
            advance()
            try expectSymbol("(")
            let args = try nested { p throws(PredicateFormatError) in try p.parseList(closing: ")") }
            guard args.count >= 2, case .constant(.string(let selector)) = args[1] else {
                throw invalid("FUNCTION needs a receiver and a selector name string", at: token)
            }
            guard BuiltinFunctions.acceptsFUNCTION(selector, argumentCount: args.count - 2) else {
                throw invalid("FUNCTION(…, '\(selector)') names no function this library knows: Linux has no Objective-C "
                              + "dispatch, so the selector must be one of NSExpression's functions or uppercaseString, "
                              + "lowercaseString, length", at: token)
            }
            return .function("FUNCTION", args)
        case .keyword("TERNARY"):
            advance()
            try expectSymbol("(")
            return try nested { p throws(PredicateFormatError) in
                let condition = try p.parsePredicate()
                try p.expectSymbol(",")
                let t = try p.parseExpression()
                try p.expectSymbol(",")
                let f = try p.parseExpression()
                try p.expectSymbol(")")
                return .conditional(condition, t, f)
            }
        case .keyword("CAST"):
            advance()
            try expectSymbol("(")
            let args = try nested { p throws(PredicateFormatError) in try p.parseList(closing: ")") }
            guard args.count == 2 else { throw invalid("CAST takes a value and a class name", at: token) }
            return try Self.cast(args[0], args[1], token: token, parser: self)
        case .end:
            throw unexpected("an expression")
        default:
            throw unexpected("an expression")
        }
    }

    /// SUBQUERY "(" expression "," "$" name "," predicate ")" — after the keyword.
    private mutating func parseSubquery() throws(PredicateFormatError) -> ExpressionNode {
        try expectSymbol("(")
        let collection = try parseExpression()
        try expectSymbol(",")
        guard case .variable(let variable) = current.kind else { throw unexpected("a $variable for SUBQUERY") }
        advance()
        try expectSymbol(",")
        let predicate = try parsePredicate()
        try expectSymbol(")")
        return .subquery(collection, variable, predicate)
    }

    /// function-name "(" [expression ("," expression)*] ")"
    private mutating func parseFunctionCall() throws(PredicateFormatError) -> ExpressionNode {
        let start = current
        var name = ""
        while case .identifier(let part, escaped: false) = current.kind {
            name += part
            advance()
            if isSymbol(":") {
                name += ":"
                advance()
            } else {
                break
            }
        }
        guard isSymbol("(") else { throw unexpected("\"(\" after the function name \(name)") }
        advance()
        let args = try nested { p throws(PredicateFormatError) in try p.parseList(closing: ")") }
        guard let canonical = BuiltinFunctions.canonicalName(name, arity: args.count) else {
            throw invalid("unknown function \(name) with \(args.count) argument\(args.count == 1 ? "" : "s")", at: start)
        }
        return .function(canonical, args)
    }

    /// [expression ("," expression)*] closing
    private mutating func parseList(closing: String) throws(PredicateFormatError) -> [ExpressionNode] {
        var items: [ExpressionNode] = []
        if isSymbol(closing) {
            advance()
            return items
        }
        while true {
            items.append(try parseExpression())
            if isSymbol(",") {
                advance()
                continue
            }
            try expectSymbol(closing)
            return items
        }
    }

    /// `CAST(constant, 'NSDate')` and friends fold into typed constants, so printed dates, decimals, UUIDs
    /// and data parse back to the same value. Other casts stay the function `castObject:toType:`.
    private static func cast(_ value: ExpressionNode, _ type: ExpressionNode, token: Token, parser: PredicateParser) throws(PredicateFormatError) -> ExpressionNode {
        guard case .constant(.string(let typeName)) = type else {
            throw parser.invalid("CAST needs a class name string as its second argument", at: token)
        }
        if case .constant(let v) = value, let folded = ValueCasting.cast(v, to: typeName) {
            return .constant(folded)
        }
        guard ValueCasting.knownTypes.contains(typeName) else {
            throw parser.invalid("CAST to unknown class \(typeName)", at: token)
        }
        return .function("castObject:toType:", [value, type])
    }
}
