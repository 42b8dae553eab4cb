import Foundation

/// How deeply a predicate nests, measured without recursion, and the flattened form every pass runs on.
///
/// A predicate built in code can nest without bound (`NSCompoundPredicate` of `NSCompoundPredicate` …,
/// ten thousand levels deep when an `OR` is folded over a list). The passes that walk the tree (compile,
/// evaluate, translate to SQL, check key paths) recurse, so they run on the *flattened* tree: an `AND`
/// directly inside an `AND` (an `OR` inside an `OR`) is merged into its parent, which does not change
/// the meaning (`AND` and `OR` are associative here, evaluated left to right). The folded list becomes
/// one `OR` of ten thousand comparisons, one level deep. What still nests beyond
/// ``maximumNestingDepth`` after flattening (`NOT` inside `AND` inside `NOT` …, or arithmetic nested in
/// code) is refused with ``PredicateEvaluationError`` "too deeply nested" on every path, never a crash.
extension PredicateNode {
    /// The deepest nesting of predicates and expressions the passes accept after flattening: four times
    /// what a format string can write (the parser stops at 64), far below what a thread's stack holds, and
    /// within SQLite's own limit on expression depth (1,000) once translated.
    package static let maximumNestingDepth = 256

    /// The tree's depth as built (`raw`) and after flattening (`flattened`), counted without recursion.
    /// A comparison with constant sides has depth 2 (the comparison and its expressions).
    package var nestingDepth: (raw: Int, flattened: Int) { depths(stoppingAbove: .max)! }

    /// Whether the tree nests at most `limit` levels as built, found without looking below that depth,
    /// so that asking costs little for a deep tree.
    package func isShallow(within limit: Int) -> Bool { depths(stoppingAbove: limit) != nil }

    /// Both depths, or `nil` as soon as the depth as built exceeds `limit`. One walk with an explicit
    /// stack; a child junction of its parent's kind (AND in AND, OR in OR) adds no flattened level.
    private func depths(stoppingAbove limit: Int) -> (raw: Int, flattened: Int)? {
        enum Item { case predicate(PredicateNode), expression(ExpressionNode) }
        var stack: [(Item, raw: Int, flat: Int)] = [(.predicate(self), 1, 1)]
        var deepest = (raw: 0, flattened: 0)
        while let (item, raw, flat) = stack.popLast() {
            guard raw <= limit else { return nil }
            deepest = (Swift.max(deepest.raw, raw), Swift.max(deepest.flattened, flat))
            switch item {
            case .predicate(let node):
                switch node {
                case .constant, .block: break
                case .and(let parts), .or(let parts):
                    let isAnd: Bool
                    if case .and = node { isAnd = true } else { isAnd = false }
                    for part in parts {
                        let merged: Bool
                        switch part {
                        case .and: merged = isAnd
                        case .or: merged = !isAnd
                        default: merged = false
                        }
                        stack.append((.predicate(part), raw + 1, merged ? flat : flat + 1))
                    }
                case .not(let inner): stack.append((.predicate(inner), raw + 1, flat + 1))
                case .comparison(let c):
                    stack.append((.expression(c.left), raw + 1, flat + 1))
                    stack.append((.expression(c.right), raw + 1, flat + 1))
                }
            case .expression(let node):
                switch node {
                case .constant, .evaluatedObject, .variable, .keyPath, .anyKey, .symbol: break
                case .member(let base, _): stack.append((.expression(base), raw + 1, flat + 1))
                case .function(_, let args), .aggregate(let args):
                    for a in args { stack.append((.expression(a), raw + 1, flat + 1)) }
                case .setOperation(_, let l, let r), .fetch(let l, let r, _):
                    stack.append((.expression(l), raw + 1, flat + 1))
                    stack.append((.expression(r), raw + 1, flat + 1))
                case .subquery(let collection, _, let predicate):
                    stack.append((.expression(collection), raw + 1, flat + 1))
                    stack.append((.predicate(predicate), raw + 1, flat + 1))
                case .conditional(let p, let t, let f):
                    stack.append((.predicate(p), raw + 1, flat + 1))
                    stack.append((.expression(t), raw + 1, flat + 1))
                    stack.append((.expression(f), raw + 1, flat + 1))
                }
            }
        }
        return deepest
    }

    /// The same predicate with every `AND` directly inside an `AND` (and `OR` inside `OR`) merged into its
    /// parent, in order. Recurses only where the flattened depth grows: call it only when
    /// `nestingDepth.flattened` is within ``maximumNestingDepth``.
    package func flattened() -> PredicateNode {
        switch self {
        case .constant, .block: return self
        case .and(let parts), .or(let parts):
            let isAnd: Bool
            if case .and = self { isAnd = true } else { isAnd = false }
            var out: [PredicateNode] = []
            var pending = Array(parts.reversed())
            while let part = pending.popLast() {
                switch part {
                case .and(let inner) where isAnd: pending.append(contentsOf: inner.reversed())
                case .or(let inner) where !isAnd: pending.append(contentsOf: inner.reversed())
                default: out.append(part.flattened())
                }
            }
            return isAnd ? .and(out) : .or(out)
        case .not(let inner): return .not(inner.flattened())
        case .comparison(var c):
            c.left = c.left.flattened()
            c.right = c.right.flattened()
            return .comparison(c)
        }
    }
}

extension ExpressionNode {
    /// The expression with the predicates inside it (`SUBQUERY`, `TERNARY`) flattened.
    package func flattened() -> ExpressionNode {
        switch self {
        case .constant, .evaluatedObject, .variable, .keyPath, .anyKey, .symbol: return self
        case .member(let base, let key): return .member(base.flattened(), key)
        case .function(let name, let args): return .function(name, args.map { $0.flattened() })
        case .aggregate(let items): return .aggregate(items.map { $0.flattened() })
        case .subquery(let collection, let variable, let predicate):
            return .subquery(collection.flattened(), variable, predicate.flattened())
        case .conditional(let p, let t, let f): return .conditional(p.flattened(), t.flattened(), f.flattened())
        case .setOperation(let op, let l, let r): return .setOperation(op, l.flattened(), r.flattened())
        case .fetch(let request, let context, let countOnly): return .fetch(request.flattened(), context.flattened(), countOnly: countOnly)
        }
    }
}

/// What an `NSPredicate` works from, made once on first use (building a predicate does no work, so
/// nesting `NSCompoundPredicate`s in code is linear): the flattened tree and its compiled form, or the
/// reason it cannot run.
package final class PreparedPredicate: Sendable {
    /// The flattened tree; `nil` when it nests deeper than ``PredicateNode/maximumNestingDepth``.
    package let node: PredicateNode?
    /// Whether the tree as built is shallow enough to walk as it is (to print it, to substitute variables).
    package let rawIsShallow: Bool
    let compiled: CompiledPredicate?
    let depth: Int

    init(_ built: PredicateNode) {
        let (raw, flat) = built.nestingDepth
        depth = flat
        rawIsShallow = raw <= PredicateNode.maximumNestingDepth
        if flat <= PredicateNode.maximumNestingDepth {
            let node = raw == flat ? built : built.flattened()
            self.node = node
            compiled = CompiledPredicate.compile(node)
        } else {
            node = nil
            compiled = nil
        }
    }

    /// The tree to run, or the "too deeply nested" error.
    package func runnable() throws -> PredicateNode {
        guard let node else { throw PredicateEvaluationError(.tooDeeplyNested(depth)) }
        return node
    }
}
