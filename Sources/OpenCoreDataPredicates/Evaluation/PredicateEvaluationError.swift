import Foundation

/// Why a predicate or expression could not be evaluated against an object. Darwin raises an Objective-C
/// exception in these cases; the throwing entry points (`evaluate(validating:)`) throw this.
public struct PredicateEvaluationError: Error, CustomStringConvertible, Sendable, Equatable {
    package enum Kind: Equatable, Sendable {
        case notKeyValueCodingCompliant(type: String, key: String)
        case unboundVariable(String)
        case notACollection(quantifier: String, found: String)
        case invalidRegularExpression(String)
        case indexOutOfRange(index: String, count: Int)
        case unsupported(String)
        case wrongArgument(function: String, found: String)
        case tooDeeplyNested(Int)
        case notASet(operation: String, found: String)
        case evaluationNotAllowed
        /// A custom selector comparison that could not run: the selector's name and why.
        case customSelector(String, String)
    }

    package let kind: Kind
    package init(_ kind: Kind) { self.kind = kind }

    public var description: String {
        switch kind {
        case .notKeyValueCodingCompliant(let type, let key):
            return "\(type) is not key value coding-compliant for the key \"\(key)\""
        case .unboundVariable(let name): return "no value for the variable $\(name) in the substitution variables"
        case .notACollection(let q, let found):
            return "the left side of \(q) must be an array or a set, found \(found)"
        case .invalidRegularExpression(let p): return "invalid regular expression for MATCHES: \(p)"
        case .indexOutOfRange(let index, let count): return "index \(index) out of range for a collection of \(count)"
        case .unsupported(let what): return "\(what) is not supported"
        case .wrongArgument(let function, let found): return "\(function) cannot take \(found)"
        case .notASet(let op, let found): return "both sides of \(op) must be arrays or sets, found \(found)"
        case .evaluationNotAllowed:
            return "this predicate was decoded from an archive: call allowEvaluation() before evaluating it (NSSecureCoding)"
        case .customSelector(let selector, let why): return "the custom selector \(selector): \(why)"
        case .tooDeeplyNested(let depth):
            return "the predicate is too deeply nested: \(depth) levels after merging nested ANDs and ORs, at most \(PredicateNode.maximumNestingDepth)"
        }
    }
}
