import Foundation

/// Prints the canonical format of a predicate or expression (`predicateFormat`, `description`).
///
/// The canonical form follows Darwin's: double-quoted strings, `==`, upper-case keywords, options in
/// brackets after the operator (`CONTAINS[cd]`), nested `AND`/`OR` groups in parentheses, dates as
/// `CAST(seconds, "NSDate")`. Where Darwin prints something it cannot parse back, we print a form that
/// parses to the same value: `TRUE`/`FALSE` for booleans (Darwin: `1`/`0`), `CAST("…", "NSDecimalNumber")`,
/// `CAST("…", "NSUUID")`, `CAST("base64", "NSData")`, `CAST("…", "NSURL")`. For every parsed predicate,
/// parsing the printed form gives an equal predicate.
package enum PredicatePrinter {
    package static func format(_ node: PredicateNode) -> String {
        var out = ""
        write(node, into: &out)
        return out
    }

    package static func format(_ node: ExpressionNode) -> String {
        var out = ""
        write(node, into: &out)
        return out
    }

    private static func write(_ node: PredicateNode, into out: inout String) {
        switch node {
        case .constant(let b):
            out += b ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .comparison(let c):
            write(c, into: &out)
        case .and(let parts), .or(let parts):
            let isAnd: Bool
            if case .and = node { isAnd = true } else { isAnd = false }
            if parts.isEmpty {
                out += isAnd ? "TRUEPREDICATE" : "FALSEPREDICATE"
                return
            }
            for (i, part) in parts.enumerated() {
                if i > 0 { out += isAnd ? " AND " : " OR " }
                writeGrouped(part, into: &out)
            }
        case .not(let inner):
            out += "NOT "
            writeGrouped(inner, into: &out)
        case .block(let b):
            out += b.format
        }
    }

    /// Compound subpredicates are parenthesized, as Darwin does.
    private static func writeGrouped(_ node: PredicateNode, into out: inout String) {
        switch node {
        case .and(let parts) where parts.count > 1, .or(let parts) where parts.count > 1:
            out += "("
            write(node, into: &out)
            out += ")"
        default:
            write(node, into: &out)
        }
    }

    private static func write(_ c: ComparisonNode, into out: inout String) {
        switch c.modifier {
        case .any: out += "ANY "
        case .all: out += "ALL "
        case .direct: break
        }
        write(c.left, into: &out)
        // Darwin prints a custom selector comparison as `left selectorName: right` (the operator's symbol).
        out += " " + (c.op == .customSelector ? c.selector ?? operatorText(c.op) : operatorText(c.op))
        if !c.options.isEmpty {
            out += "["
            if c.options.contains(.caseInsensitive) { out += "c" }
            if c.options.contains(.diacriticInsensitive) { out += "d" }
            if c.options.contains(.normalized) { out += "n" }
            out += "]"
        }
        out += " "
        write(c.right, into: &out)
    }

    package static func operatorText(_ op: NSComparisonPredicate.Operator) -> String {
        switch op {
        case .lessThan: return "<"
        case .lessThanOrEqualTo: return "<="
        case .greaterThan: return ">"
        case .greaterThanOrEqualTo: return ">="
        case .equalTo: return "=="
        case .notEqualTo: return "!="
        case .matches: return "MATCHES"
        case .like: return "LIKE"
        case .beginsWith: return "BEGINSWITH"
        case .endsWith: return "ENDSWITH"
        case .in: return "IN"
        case .customSelector: return "CUSTOMSELECTOR"
        case .contains: return "CONTAINS"
        case .between: return "BETWEEN"
        }
    }

    private static func write(_ node: ExpressionNode, into out: inout String) {
        switch node {
        case .constant(let v):
            write(v, into: &out)
        case .evaluatedObject:
            out += "SELF"
        case .variable(let name):
            out += "$" + name
        case .keyPath(let path):
            writeKeyPath(path, into: &out)
        case .member(let base, let path):
            writeOperand(base, into: &out)
            out += "."
            writeKeyPath(path, into: &out)
        case .function(let name, let args):
            writeFunction(name, args, into: &out)
        case .aggregate(let items):
            out += "{"
            writeList(items, into: &out)
            out += "}"
        case .subquery(let collection, let variable, let predicate):
            out += "SUBQUERY("
            write(collection, into: &out)
            out += ", $" + variable + ", "
            write(predicate, into: &out)
            out += ")"
        case .conditional(let predicate, let t, let f):
            out += "TERNARY("
            write(predicate, into: &out)
            out += ", "
            write(t, into: &out)
            out += ", "
            write(f, into: &out)
            out += ")"
        case .anyKey:
            out += "ANYKEY"
        case .fetch(let request, let context, let countOnly):
            out += "FETCH("
            write(request, into: &out)
            out += ", "
            write(context, into: &out)
            out += countOnly ? ", YES)" : ", NO)"
        case .symbol(let s):
            out += s
        case .setOperation(let op, let l, let r):
            // Left-associative, looser than arithmetic: `a UNION b MINUS c` is `(a UNION b) MINUS c`.
            writeOperand(l, minimum: 0, into: &out)
            out += " " + op.rawValue + " "
            writeOperand(r, minimum: 1, into: &out)
        }
    }

    private static func writeList(_ items: [ExpressionNode], into out: inout String) {
        for (i, item) in items.enumerated() {
            if i > 0 { out += ", " }
            write(item, into: &out)
        }
    }

    /// An operand of an infix operator, index or member access: infix functions are parenthesized.
    /// How tightly an expression binds in the grammar (`expression`, `additive`, `term`, `power`, `unary`):
    /// `UNION INTERSECT MINUS` 0, `+ -` 1, `* /` 2, `**` 3, unary minus 4, anything else 5.
    private static func precedence(_ node: ExpressionNode) -> Int {
        if case .setOperation = node { return 0 }
        guard case .function(let name, let args) = node, args.count == 2, BuiltinFunctions.infix[name] != nil else { return 5 }
        if isUnaryMinus(node) { return 4 }
        switch name {
        case "add:to:", "from:subtract:": return 1
        case "multiply:by:", "divide:by:": return 2
        default: return 3
        }
    }

    /// `0 - x` as the parser makes it from `-x` (a numeric constant `x` is negated in place instead).
    private static func isUnaryMinus(_ node: ExpressionNode) -> Bool {
        guard case .function("from:subtract:", let args) = node, args.count == 2, args[0] == .constant(.int(0)) else { return false }
        switch args[1] {
        case .constant(.int), .constant(.double), .constant(.decimal): return false
        default: return true
        }
    }

    /// An operand, parenthesized only where the grammar needs it (binding looser than `minimum`), so
    /// that the print nests no deeper than the format it came from: `a - b - c`, not `(a - b) - c`.
    private static func writeOperand(_ node: ExpressionNode, minimum: Int = 5, into out: inout String) {
        if precedence(node) < minimum {
            out += "("
            write(node, into: &out)
            out += ")"
        } else {
            write(node, into: &out)
        }
    }

    private static func writeFunction(_ name: String, _ args: [ExpressionNode], into out: inout String) {
        if isUnaryMinus(.function(name, args)) {
            out += "-"
            writeOperand(args[1], minimum: 4, into: &out)
        } else if let op = BuiltinFunctions.infix[name], args.count == 2 {
            // `+ - * /` group to the left, `**` to the right; `**`'s left side is a unary expression.
            let p = precedence(.function(name, args))
            writeOperand(args[0], minimum: p == 3 ? 4 : p, into: &out)
            out += " " + op + " "
            writeOperand(args[1], minimum: p == 3 ? 3 : p + 1, into: &out)
        } else if name == "objectFrom:withIndex:", args.count == 2 {
            writeOperand(args[0], into: &out)
            out += "["
            write(args[1], into: &out)
            out += "]"
        } else if name == "castObject:toType:", args.count == 2 {
            out += "CAST("
            writeList(args, into: &out)
            out += ")"
        } else if name == "FUNCTION" {
            out += "FUNCTION("
            writeList(args, into: &out)
            out += ")"
        } else {
            out += name + "("
            writeList(args, into: &out)
            out += ")"
        }
    }

    private static func writeKeyPath(_ path: String, into out: inout String) {
        var first = true
        for component in path.split(separator: ".", omittingEmptySubsequences: false) {
            if !first { out += "." }
            first = false
            if component.hasPrefix("@") || !Lexer.reservedWords.contains(component.uppercased()) {
                out += component
            } else {
                out += "#" + component
            }
        }
    }

    private static func write(_ value: Value, into out: inout String) {
        switch value {
        case .null: out += "nil"
        case .bool(let b): out += b ? "TRUE" : "FALSE"
        case .int(let i):
            out += i == Int64.min ? "CAST(\"\(i)\", \"NSNumber\")" : String(i)
        case .double(let d):
            if d.isFinite {
                let text = "\(d)"
                out += text.contains(".") || text.contains("e") ? text : text + ".0"
            } else {
                out += "CAST(\"\(d.isNaN ? "nan" : d < 0 ? "-inf" : "inf")\", \"NSNumber\")"
            }
        case .decimal(let d): out += "CAST(" + quoted(d.description) + ", \"NSDecimalNumber\")"
        case .string(let s): out += quoted(s)
        case .date(let d): out += "CAST(" + format(ExpressionNode.constant(.double(d.timeIntervalSinceReferenceDate))) + ", \"NSDate\")"
        case .data(let d): out += "CAST(" + quoted(d.base64EncodedString()) + ", \"NSData\")"
        case .uuid(let u): out += "CAST(" + quoted(u.uuidString) + ", \"NSUUID\")"
        case .url(let u): out += "CAST(" + quoted(u.absoluteString) + ", \"NSURL\")"
        case .array(let items):
            out += "{" + items.map { format(ExpressionNode.constant($0)) }.joined(separator: ", ") + "}"
        case .set(let items):
            out += "{" + items.map { format(ExpressionNode.constant($0)) }.sorted().joined(separator: ", ") + "}"
        case .object(let o):
            out += quoted(String(describing: (value.anyValue ?? o) as Any))
        case .collection(let c): write(c.value.expanded, into: &out)
        }
    }

    /// A double-quoted string literal with `\"`, `\\` and control characters escaped.
    package static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\0": out += "\\0"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u" + String(format: "%04X", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// A value as plain text (`CAST(…, "NSString")`).
    package static func plainText(_ value: Value) -> String {
        switch value {
        case .string(let s): return s
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .bool(let b): return b ? "1" : "0"
        case .decimal(let d): return d.description
        case .uuid(let u): return u.uuidString
        case .url(let u): return u.absoluteString
        default: return format(ExpressionNode.constant(value))
        }
    }
}
