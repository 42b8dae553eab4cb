import Foundation
import Testing
@testable import OpenCoreDataPredicates
import class OpenCoreDataPredicates.NSPredicate
import class OpenCoreDataPredicates.NSComparisonPredicate
import class OpenCoreDataPredicates.NSCompoundPredicate
import class OpenCoreDataPredicates.NSExpression
import class OpenCoreDataPredicates.NSSortDescriptor

@Suite("Public structure: comparison, compound, expression classes")
struct StructureTests {
    @Test func comparisonPredicateStructure() throws {
        let p = NSPredicate(format: "ANY items.name CONTAINS[cd] %@", "x")
        let c = try #require(p as? NSComparisonPredicate)
        #expect(c.predicateOperatorType == .contains)
        #expect(c.comparisonPredicateModifier == .any)
        #expect(c.options == [.caseInsensitive, .diacriticInsensitive])
        #expect(c.leftExpression.expressionType == .keyPath)
        #expect(c.leftExpression.keyPath == "items.name")
        #expect(c.rightExpression.expressionType == .constantValue)
        #expect(c.rightExpression.constantValue as? String == "x")
        #expect(!(p is NSCompoundPredicate))
    }

    @Test func rawValuesMatchApple() {
        #expect(NSComparisonPredicate.Operator.lessThan.rawValue == 0)
        #expect(NSComparisonPredicate.Operator.equalTo.rawValue == 4)
        #expect(NSComparisonPredicate.Operator.in.rawValue == 10)
        #expect(NSComparisonPredicate.Operator.contains.rawValue == 99)
        #expect(NSComparisonPredicate.Operator.between.rawValue == 100)
        #expect(NSComparisonPredicate.Modifier.any.rawValue == 2)
        #expect(NSComparisonPredicate.Options.diacriticInsensitive.rawValue == 2)
        #expect(NSCompoundPredicate.LogicalType.or.rawValue == 2)
        #expect(NSExpression.ExpressionType.subquery.rawValue == 13)
        #expect(NSExpression.ExpressionType.conditional.rawValue == 20)
    }

    @Test func builtPredicatesEqualParsedOnes() throws {
        let built = NSComparisonPredicate(
            leftExpression: NSExpression(forKeyPath: "name"), rightExpression: NSExpression(forConstantValue: "x"),
            modifier: .direct, type: .beginsWith, options: [.caseInsensitive])
        #expect(built == NSPredicate(format: "name BEGINSWITH[c] 'x'"))
        let and = NSCompoundPredicate(andPredicateWithSubpredicates: [built, NSPredicate(format: "price < 5")])
        #expect(and.predicateFormat == "name BEGINSWITH[c] \"x\" AND price < 5")
        #expect(and == NSPredicate(format: "name BEGINSWITH[c] 'x' AND price < 5"))
        #expect(and.compoundPredicateType == .and)
        #expect(and.subpredicates.count == 2)
        #expect((and.subpredicates[0] as? NSComparisonPredicate)?.predicateOperatorType == .beginsWith)
        let or = NSCompoundPredicate(orPredicateWithSubpredicates: [and, NSPredicate(value: false)])
        #expect(or.predicateFormat == "(name BEGINSWITH[c] \"x\" AND price < 5) OR FALSEPREDICATE")
        let not = NSCompoundPredicate(notPredicateWithSubpredicate: or)
        #expect(not.predicateFormat == "NOT ((name BEGINSWITH[c] \"x\" AND price < 5) OR FALSEPREDICATE)")
        #expect((NSPredicate(format: "NOT a == 1 OR b == 2") as? NSCompoundPredicate)?.compoundPredicateType == .or)
        #expect(NSCompoundPredicate(type: .and, subpredicates: []).evaluate(with: nil))
        #expect(!NSCompoundPredicate(type: .or, subpredicates: []).evaluate(with: nil))
    }

    @Test func expressionKinds() throws {
        #expect(NSExpression.expressionForEvaluatedObject().description == "SELF")
        #expect(NSExpression.expressionForAnyKey().description == "ANYKEY")
        let anyKey = try NSPredicate(validatingFormat: "ANYKEY CONTAINS[c] 'x'")
        #expect((anyKey as? NSComparisonPredicate)?.leftExpression.expressionType == .anyKey)
        #expect(try NSPredicate(validatingFormat: anyKey.predicateFormat) == anyKey)
        #expect(throws: PredicateEvaluationError.self) { try anyKey.evaluate(validating: ["a": "x"]) }
        #expect(NSExpression(forVariable: "v").description == "$v")
        #expect(NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "a")]).description == "sum:(a)")
        #expect(NSExpression(forFunction: "add:to:", arguments: [1, 2]).description == "1 + 2")
        #expect(NSExpression(forAggregate: [1, "a"]).description == "{1, \"a\"}")
        let sub = NSExpression(forSubquery: NSExpression(forKeyPath: "items"), usingIteratorVariable: "x",
                               predicate: NSPredicate(format: "$x.p > 1"))
        #expect(sub.description == "SUBQUERY(items, $x, $x.p > 1)")
        #expect(sub.expressionType == .subquery)
        #expect(sub.variable == "x")
        let cond = NSExpression(forConditional: NSPredicate(value: true), trueExpression: NSExpression(forConstantValue: 1),
                                falseExpression: NSExpression(forConstantValue: 2))
        #expect(cond.description == "TERNARY(TRUEPREDICATE, 1, 2)")
        #expect(cond.expressionValue(with: nil, context: nil) as? Int == 1)
        let member = NSExpression(format: "$x.name")
        #expect(member.expressionType == .keyPath)
        #expect(member.keyPath == "name")
        #expect(member.operand.expressionType == .variable)
        let date = Date(timeIntervalSinceReferenceDate: 12.5)
        #expect(NSExpression(forConstantValue: date).description == "CAST(12.5, \"NSDate\")")
        #expect(NSExpression(format: "CAST(12.5, 'NSDate')").constantValue as? Date == date)
        #expect(NSExpression(forConstantValue: nil).description == "nil")
        #expect(NSExpression(forConstantValue: true).description == "TRUE")
    }
}
