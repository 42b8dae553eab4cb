import Foundation
import Testing
@testable import OpenCoreDataPredicates
import class OpenCoreDataPredicates.NSPredicate
import class OpenCoreDataPredicates.NSComparisonPredicate
import class OpenCoreDataPredicates.NSCompoundPredicate
import class OpenCoreDataPredicates.NSExpression

/// Issue #17, items 3 and 4: block predicates; `UNION`, `INTERSECT`, `MINUS`.
@Suite("Block predicates and set expressions")
struct BlockAndSetTests {
    // Apple: init(block:) — "The block is applied to the object to be evaluated", with the bindings.
    @Test func blockPredicates() {
        let short = NSPredicate { object, _ in (object as? String).map { $0.count < 4 } ?? false }
        #expect(short.evaluate(with: "abc"))
        #expect(!short.evaluate(with: "abcd"))
        #expect(["a", "abcd", "xyz"].filtered(using: short) == ["a", "xyz"])
        #expect(Set(["a", "abcd"]).filtered(using: short) == ["a"])
        #expect((NSArray(array: ["a", "abcd"]).filtered(using: short) as? [String]) == ["a"])
        #expect(NSSet(array: ["a", "abcd"]).filtered(using: short) == ["a"])
        let mutable = NSMutableArray(array: ["a", "abcd"])
        mutable.filter(using: short)
        #expect(mutable.count == 1)

        let withBindings = NSPredicate { object, bindings in
            (object as? Int) == (bindings?["limit"] as? Int)
        }
        #expect(withBindings.evaluate(with: 3, substitutionVariables: ["limit": 3]))
        #expect(!withBindings.evaluate(with: 3))
        let both = NSCompoundPredicate(andPredicateWithSubpredicates: [NSPredicate(format: "SELF BEGINSWITH 'a'"), short])
        #expect(["abc", "abcd", "b"].filtered(using: both) == ["abc"])
        #expect(NSCompoundPredicate(notPredicateWithSubpredicate: short).evaluate(with: "abcdef"))
        #expect(short.predicateFormat.hasPrefix("BLOCKPREDICATE(0x"))
        #expect(short == short && short != NSPredicate { _, _ in true })
    }

    // Apple: init(forUnionSet:with:), init(forIntersectSet:with:), init(forMinusSet:with:).
    @Test func setExpressionsBuiltAndParsed() throws {
        let a = NSExpression(forConstantValue: Set([1, 2, 3])), b = NSExpression(forConstantValue: [3, 4])
        let union = NSExpression(forUnionSet: a, with: b)
        #expect(union.expressionType == .unionSet)
        #expect(union.leftExpression == a && union.rightExpression == b)
        func ints(_ e: NSExpression) -> [Int]? {
            (e.expressionValue(with: nil, context: nil) as? Set<AnyHashable>)?.compactMap { $0.base as? Int }.sorted()
        }
        #expect(ints(union) == [1, 2, 3, 4])
        #expect(ints(NSExpression(forIntersectSet: a, with: b)) == [3])
        #expect(ints(NSExpression(forMinusSet: a, with: b)) == [1, 2])
        #expect(NSExpression(forIntersectSet: a, with: b).expressionType == .intersectSet)
        #expect(NSExpression(forMinusSet: a, with: b).expressionType == .minusSet)

        let parsed = NSPredicate(format: "3 IN tags UNION %@", ["x"])
        #expect(parsed.evaluate(with: ["tags": [1, 3]]))
        #expect(!parsed.evaluate(with: ["tags": [1]]))
        #expect(NSPredicate(format: "'x' IN tags MINUS {'x'}").evaluate(with: ["tags": ["x"]]) == false)
        #expect(NSPredicate(format: "ANY tags INTERSECT {1, 2} > 1").evaluate(with: ["tags": [2, 5]]))
        #expect(NSPredicate(format: "(a union b).@count == 3").evaluate(with: ["a": [1, 2], "b": [2, 3]]))
        // Elements equal by `==` are one element: 1 and 1.0.
        #expect(NSPredicate(format: "{1} INTERSECT {1.0} CONTAINS 1").evaluate(with: nil))
        // Keys named like the operators need no #.
        #expect(NSPredicate(format: "union == 1 AND minus.x == 2").evaluate(with: ["union": 1, "minus": ["x": 2]]))
        #expect(throws: PredicateEvaluationError.self) { try NSPredicate(format: "a UNION b == 1").evaluate(validating: ["a": 1, "b": [1]]) }
    }

    @Test func setExpressionsPrintAndParseBack() throws {
        for format in [
            "x IN a UNION b", "x IN a UNION b MINUS c", "x IN a UNION (b MINUS c)", "{1, 2} INTERSECT $s CONTAINS x",
            "(a UNION b).@count == 2", "(a UNION b)[FIRST] == 1", "count:(a MINUS {1}) > 0",
        ] {
            let p = NSPredicate(format: format)
            let again = NSPredicate(format: p.predicateFormat)
            #expect(again == p, "\(format) → \(p.predicateFormat)")
        }
        #expect(NSPredicate(format: "x IN a UNION b MINUS c").predicateFormat == "x IN a UNION b MINUS c")
        #expect(NSPredicate(format: "x IN a union (b minus c)").predicateFormat == "x IN a UNION (b MINUS c)")
        let sub = NSPredicate(format: "x IN $a UNION $b").withSubstitutionVariables(["a": [1], "b": [2]])
        #expect(sub.evaluate(with: ["x": 2]))
    }
}
