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

/// Issue #17, item 7: key-value coding of Foundation values.
@Suite("Key-value coding of Foundation values")
struct FoundationKeyValueCodingTests {
    @Test func stringsCollectionsAndOperators() throws {
        #expect(NSPredicate(format: "name.length == 5").evaluate(with: ["name": "Hello"]))
        #expect(NSPredicate(format: "name.length == 2").evaluate(with: ["name": "😀"]), "UTF-16 units, as NSString's length")
        #expect(NSPredicate(format: "tags.@count == 2").evaluate(with: ["tags": ["a", "b"]]))
        #expect(NSPredicate(format: "info.@count == 1").evaluate(with: ["info": ["k": 1]]))
        #expect(NSPredicate(format: "ANY tags.length > 3").evaluate(with: ["tags": ["ab", "abcd"]]))
        #expect(NSPredicate(format: "items.@sum.price == 6 AND items.@avg.price == 2 AND items.@max.price == 3 AND items.@min.price == 1")
            .evaluate(with: ["items": [["price": 1], ["price": 2], ["price": 3]]]))
        #expect(NSPredicate(format: "items.@distinctUnionOfObjects.kind == %@", ["a", "b"])
            .evaluate(with: ["items": [["kind": "a"], ["kind": "b"], ["kind": "a"]]]))
        #expect(NSPredicate(format: "name.uppercaseString == 'AB'").evaluate(with: ["name": "ab"]))
        #expect(NSPredicate(format: "n.description == '5'").evaluate(with: ["n": 5]))
        #expect(throws: PredicateEvaluationError.self) { try NSPredicate(format: "name.nope == 1").evaluate(validating: ["name": "x"]) }
        let error = try #require(throws: PredicateEvaluationError.self) { try NSPredicate(format: "tags.count == 1").evaluate(validating: ["tags": ["x"]]) }
        #expect(error.description.contains("\"count\""))
    }

    @Test func valueForKeyPathOnDictionaries() throws {
        let d: [String: Any] = ["owner": ["name": "Ann", "pets": ["Rex", "Tom"]], "n": 3]
        #expect(d.value(forKeyPath: "owner.name") as? String == "Ann")
        #expect(d.value(forKeyPath: "owner.pets.@count") as? Int == 2)
        #expect(d.value(forKeyPath: "owner.name.length") as? Int == 3)
        #expect(d.value(forKeyPath: "owner.missing") == nil)
        let ns = NSDictionary(dictionary: ["a": ["b": 1]])
        // swift-corelibs-foundation declares its own NSDictionary.value(forKeyPath:) (which does not follow
        // paths); through KeyValueCoding, or the validating form, ours runs.
        #expect((ns as KeyValueCoding).value(forKeyPath: "a.b") as? Int == 1)
        #expect(try ns.validatedValue(forKeyPath: "a.b") as? Int == 1)
        #expect(throws: PredicateEvaluationError.self) { try d.validatedValue(forKeyPath: "n.nope") }
    }
}
