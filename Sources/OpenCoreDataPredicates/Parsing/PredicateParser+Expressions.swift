import Foundation

/// The expression half of the grammar (operands, arithmetic, set operators, functions, aggregates).
extension PredicateParser {

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
    mutating func parseAdditive() throws(PredicateFormatError) -> ExpressionNode {
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
    mutating func parseTerm() throws(PredicateFormatError) -> ExpressionNode {
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
    mutating func parsePower() throws(PredicateFormatError) -> ExpressionNode {
        let base = try parseUnary()
        guard isSymbol("**") else { return base }
        advance()
        let exponent = try nested { p throws(PredicateFormatError) in try p.parsePower() }
        return .function("raise:toPower:", [base, exponent])
    }

    /// unary ::= "-" unary | postfix
    mutating func parseUnary() throws(PredicateFormatError) -> ExpressionNode {
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

    /// postfix ::= primary ("." key | "[" index "]")*   (a key may be `%K`: see ``parseKey()``)
    mutating func parsePostfix() throws(PredicateFormatError) -> ExpressionNode {
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
    func checkChain(_ chain: inout Int) throws(PredicateFormatError) {
        chain += 1
        guard depth + chain <= Self.maximumDepth else {
            throw PredicateFormatError(.tooDeep(limit: Self.maximumDepth), format: format, offset: current.offset,
                                       found: current.describe(in: scalars))
        }
    }

    static func mergesKeyPath(_ node: ExpressionNode) -> Bool {
        switch node {
        case .evaluatedObject, .keyPath, .member: return true
        default: return false
        }
    }

    /// `base.key`: key paths on `SELF` or on a key path stay one key path, as on Darwin.
    static func member(_ base: ExpressionNode, _ key: String) -> ExpressionNode {
        switch base {
        case .evaluatedObject: return .keyPath(key)
        case .keyPath(let path): return .keyPath(path + "." + key)
        case .member(let inner, let path): return .member(inner, path + "." + key)
        default: return .member(base, key)
        }
    }

    /// key ::= name | "#" name | "@" name | "%K"
    ///
    /// A `%K` argument after a `.` continues the key path (`$FETCH_SOURCE.%K`, `author.%K`), as on Darwin.
    mutating func parseKey() throws(PredicateFormatError) -> String {
        switch current.kind {
        case .identifier(let name, _):
            advance()
            return name
        case .atIdentifier(let name):
            advance()
            return "@" + name
        case .specifier("K"):
            let token = current
            advance()
            guard case .keyPath(let path) = try arguments.next("K", at: token, format: format, scalars: scalars) else {
                fatalError("%K always yields a key path")
            }
            return path
        default:
            throw unexpected("a key (reserved words as keys are written with #, as in #size)")
        }
    }

    /// primary ::= literal | argument | variable | SELF | ANYKEY | key path | "(" expression ")"
    ///           | "{" list "}" | SUBQUERY(…) | FUNCTION(…) | TERNARY(…) | CAST(…) | function-name "(" list ")"
    mutating func parsePrimary() throws(PredicateFormatError) -> ExpressionNode {
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
            // A `$variable` receiver is bound by whoever evaluates the expression (a migration's `$manager`,
            // `$entityPolicy`), which answers its selectors.
            let boundReceiver = if case .variable = args[0] { true } else { false }
            guard boundReceiver || BuiltinFunctions.acceptsFUNCTION(selector, argumentCount: args.count - 2) else {
                throw invalid("FUNCTION(…, '\(selector)') names no function this library knows: Linux has no Objective-C "
                              + "dispatch, so the selector must be one of NSExpression's functions or uppercaseString, "
                              + "lowercaseString, length", at: token)
            }
            return .function("FUNCTION", args)
        case .keyword("FETCH"):
            advance()
            try expectSymbol("(")
            return try nested { p throws(PredicateFormatError) in
                let request = try p.parseExpression()
                try p.expectSymbol(",")
                let context = try p.parseExpression()
                try p.expectSymbol(",")
                let flag = p.current
                let countOnly = try p.parseExpression()
                try p.expectSymbol(")")
                guard case .constant(.bool(let b)) = countOnly else {
                    throw p.invalid("FETCH's third argument is YES or NO (count only)", at: flag)
                }
                return .fetch(request, context, countOnly: b)
            }
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
    mutating func parseSubquery() throws(PredicateFormatError) -> ExpressionNode {
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
    mutating func parseFunctionCall() throws(PredicateFormatError) -> ExpressionNode {
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
    mutating func parseList(closing: String) throws(PredicateFormatError) -> [ExpressionNode] {
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
    static func cast(_ value: ExpressionNode, _ type: ExpressionNode, token: Token, parser: PredicateParser) throws(PredicateFormatError) -> ExpressionNode {
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
