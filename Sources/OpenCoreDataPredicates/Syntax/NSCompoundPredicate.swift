import Foundation

/// Mirrors Foundation's `NSCompoundPredicate`: `AND`, `OR` or `NOT` of subpredicates.
public class NSCompoundPredicate: NSPredicate, @unchecked Sendable {
    /// Mirrors `NSCompoundPredicate.LogicalType`, with Apple's raw values.
    public enum LogicalType: UInt, Sendable, Hashable, CaseIterable {
        case not = 0
        case and = 1
        case or = 2
    }

    package required init(node: PredicateNode) { super.init(node: node) }

    /// Mirrors `init(coder:)` (`NSSecureCoding`): Apple's keys `NSCompoundPredicateType` and
    /// `NSSubpredicates`. The predicate refuses evaluation until ``NSPredicate/allowEvaluation()``.
    public required init?(coder: NSCoder) {
        guard let node = PredicateCoding.decodeCompound(coder) else { return nil }
        super.init(node: node)
        archiveGate = EvaluationGate()
    }

    /// Mirrors `init(type:subpredicates:)`. An empty `AND` is true, an empty `OR` false, as on Darwin;
    /// `NOT` takes exactly one subpredicate (more is a programming error and traps).
    public convenience init(type: LogicalType, subpredicates: [NSPredicate]) {
        let nodes = subpredicates.map(\.node)
        switch type {
        case .and: self.init(node: .and(nodes))
        case .or: self.init(node: .or(nodes))
        case .not:
            precondition(nodes.count == 1, "NSCompoundPredicate(type: .not) takes one subpredicate, got \(nodes.count)")
            self.init(node: .not(nodes[0]))
        }
        givenConstants = GivenConstants.combining([], subpredicates.map(\.givenConstants))
    }

    /// Mirrors `init(andPredicateWithSubpredicates:)`.
    public convenience init(andPredicateWithSubpredicates subpredicates: [NSPredicate]) {
        self.init(type: .and, subpredicates: subpredicates)
    }

    /// Mirrors `init(orPredicateWithSubpredicates:)`.
    public convenience init(orPredicateWithSubpredicates subpredicates: [NSPredicate]) {
        self.init(type: .or, subpredicates: subpredicates)
    }

    /// Mirrors `init(notPredicateWithSubpredicate:)`.
    public convenience init(notPredicateWithSubpredicate predicate: NSPredicate) {
        self.init(type: .not, subpredicates: [predicate])
    }

    /// Mirrors `compoundPredicateType`.
    public var compoundPredicateType: LogicalType {
        switch node {
        case .and: return .and
        case .or: return .or
        case .not: return .not
        default: preconditionFailure("not a compound predicate: \(node)")
        }
    }

    /// Mirrors `subpredicates` (`[Any]` on Darwin; each element is an `NSPredicate`).
    public var subpredicates: [Any] {
        switch node {
        case .and(let ps), .or(let ps): return ps.enumerated().map { part(NSPredicate.wrap($1), at: $0) }
        case .not(let p): return [part(NSPredicate.wrap(p), at: 0)]
        default: return []
        }
    }
}

extension NSPredicate {
    /// The most specific public class for a node, as Darwin's parser would have returned.
    package static func wrap(_ node: PredicateNode) -> NSPredicate {
        switch node {
        case .comparison: return NSComparisonPredicate(node: node)
        case .and, .or, .not: return NSCompoundPredicate(node: node)
        case .constant, .block: return NSPredicate(node: node)
        }
    }
}
