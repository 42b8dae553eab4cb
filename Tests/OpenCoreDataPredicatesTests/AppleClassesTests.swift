import Foundation
import Testing
@testable import OpenCoreDataPredicates
import class OpenCoreDataPredicates.NSPredicate
import class OpenCoreDataPredicates.NSComparisonPredicate
import class OpenCoreDataPredicates.NSCompoundPredicate
import class OpenCoreDataPredicates.NSExpression

/// Issue #17, items 1, 2, 6 and 8: parsed predicates are Apple's classes, format arguments as Apple reads
/// them, function names from Apple's list only, constants keep their object.
@Suite("Apple's classes, arguments, functions and constants")
struct AppleClassesTests {
    // Apple: "NSPredicate(format:)" returns an NSComparisonPredicate for a comparison, an
    // NSCompoundPredicate for AND/OR/NOT (Predicate Programming Guide, "Creating Predicates").
    @Test func parsedPredicatesAreTheSubclasses() throws {
        let comparison = try #require(NSPredicate(format: "name CONTAINS 'y'") as? NSComparisonPredicate)
        #expect(comparison.predicateOperatorType == .contains)
        #expect(comparison.leftExpression.keyPath == "name")
        #expect(comparison.rightExpression.constantValue as? String == "y")

        let and = try #require(NSPredicate(format: "a == 1 AND b == 2") as? NSCompoundPredicate)
        #expect(and.compoundPredicateType == .and)
        #expect(and.subpredicates.count == 2)
        #expect(NSPredicate(format: "a == 1 OR b == 2") is NSCompoundPredicate)
        let not = try #require(NSPredicate(format: "NOT a == 1") as? NSCompoundPredicate)
        #expect(not.compoundPredicateType == .not)
        #expect(NSPredicate(format: "NONE tags == 'x'") is NSCompoundPredicate)

        let truePredicate = NSPredicate(format: "TRUEPREDICATE")
        #expect(!(truePredicate is NSComparisonPredicate) && !(truePredicate is NSCompoundPredicate))
        #expect(truePredicate.evaluate(with: nil))
        #expect(!(NSPredicate(format: "FALSEPREDICATE").evaluate(with: nil)))

        #expect(NSPredicate(format: "a == %@", argumentArray: [1]) is NSComparisonPredicate)
        #expect(try NSPredicate(validatingFormat: "a == 1 || b == 2") is NSCompoundPredicate)
        #expect(try NSPredicate(validatingFormat: "a == %@", argumentArray: [1]) is NSComparisonPredicate)

        let kind: String
        switch NSPredicate(format: "a BETWEEN {1, 2}") {
        case let c as NSComparisonPredicate: kind = "comparison \(c.predicateOperatorType)"
        case is NSCompoundPredicate: kind = "compound"
        default: kind = "other"
        }
        #expect(kind == "comparison between")
    }

    @Test func subclassInitializersAndTheDeprecatedAlias() throws {
        let c = NSComparisonPredicate(format: "a < 3")
        #expect(c.predicateOperatorType == .lessThan)
        #expect(throws: PredicateFormatError.self) { try NSComparisonPredicate(validatingFormat: "a < 3 AND b < 2") }
        let p = NSPredicate(format: "a == 1")
        #expect((p as? NSComparisonPredicate) == p)
    }

    // Apple, "Predicate Format String Syntax": "single or double quoting variables (or substitution
    // variable strings) cause %@, %K, or $variable to be interpreted as a literal in the format string".
    @Test func quotedSpecifiersAreLiterals() throws {
        let p = NSPredicate(format: "SELF == '%@'", "Do")
        #expect(p.evaluate(with: "%@"))
        #expect(!p.evaluate(with: "Do"))
        #expect(NSPredicate(format: "name == \"%K\"", "x").evaluate(with: ["name": "%K"]))
        #expect(NSPredicate(format: "name == '$VAR'").evaluate(with: ["name": "$VAR"]))
        #expect((NSPredicate(format: "name == '$VAR'") as? NSComparisonPredicate)?.rightExpression.expressionType == .constantValue)
    }

    @Test func unusedArgumentsAreIgnoredByInitFormatOnly() throws {
        #expect(NSPredicate(format: "a == %@", 1, 2, 3).evaluate(with: ["a": 1]))
        #expect(NSPredicate(format: "TRUEPREDICATE", argumentArray: ["unused"]).evaluate(with: nil))
        #expect(NSExpression(format: "%@", 1, 2).constantValue as? Int == 1)
        let error = try #require(throws: PredicateFormatError.self) { try NSPredicate(validatingFormat: "SELF == '%@'", "Do") }
        #expect(error.reason.contains("quoted"))
        #expect(throws: PredicateFormatError.self) { try NSExpression(validatingFormat: "1", argumentArray: [2]) }
    }

    // Apple: init(forFunction:arguments:) lists the supported functions; others raise.
    @Test func functionNamesFromApplesListOnly() throws {
        let sum = NSExpression(forFunction: "sum:", arguments: [NSExpression(forConstantValue: [1, 2, 3])])
        #expect(sum.expressionValue(with: nil, context: nil) as? Int == 6)
        let modulus = NSExpression(forFunction: "modulus:by:", arguments: [NSExpression(forConstantValue: 7), NSExpression(forConstantValue: 3)])
        #expect(modulus.expressionValue(with: nil, context: nil) as? Int == 1)
        #expect(NSExpression(forFunction: "now", arguments: []).expressionType == .function)
        let unknown = try #require(throws: FunctionNameError.self) { try NSExpression(validatingFunction: "nosuchfunction:", arguments: [1]) }
        #expect(unknown.description.contains("unknown function nosuchfunction:"))
        let arity = try #require(throws: FunctionNameError.self) { try NSExpression(validatingFunction: "add:to:", arguments: [1]) }
        #expect(arity.expected == 2)
        #expect(throws: FunctionNameError.self) { try NSExpression(validatingFunction: "sum", arguments: [[1]]) }
        #expect(throws: FunctionNameError.self) { try NSExpression(validatingFunction: "distanceToLocation:fromLocation:", arguments: [1, 2]) }
        // FUNCTION(…) with a selector no built-in function or string method answers: a format error.
        #expect(throws: PredicateFormatError.self) { try NSPredicate(validatingFormat: "FUNCTION(name, 'nosuchmethod') == 1") }
        #expect(NSPredicate(format: "FUNCTION(name, 'uppercaseString') == 'AB'").evaluate(with: ["name": "ab"]))
        #expect(NSPredicate(format: "FUNCTION(2, 'add:to:', 3) == 5").evaluate(with: nil))
    }

    final class Box: NSObject {}

    @Test func constantsKeepTheirObject() throws {
        let box = Box()
        #expect(NSExpression(forConstantValue: box).constantValue as AnyObject === box)
        let number = NSNumber(value: 3)
        #expect(NSExpression(forConstantValue: number).constantValue as AnyObject === number)
        let array = NSArray(array: [1, 2])
        #expect(NSExpression(forConstantValue: array).constantValue as AnyObject === array)
        let decimal = NSDecimalNumber(string: "1.5")
        #expect(NSExpression(forConstantValue: decimal).constantValue as AnyObject === decimal)
        #expect(NSExpression(forConstantValue: nil).constantValue == nil)
        let built = NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: "a"), rightExpression: NSExpression(forConstantValue: box),
                                          modifier: .direct, type: .equalTo)
        #expect(built.rightExpression.constantValue as AnyObject === box)
        #expect(built.evaluate(with: ["a": box]))
    }

    /// Darwin keeps the object of every constant given — a `%@` argument, a substitution variable, an
    /// expression built with `forConstantValue:` — wherever it sits in the predicate.
    @Test func constantsKeepTheirObjectWhereverTheySit() throws {
        let box = Box(), other = Box()
        let string = NSString(string: "x")
        let parsed = try #require(NSPredicate(format: "a == 1 AND (b == %@ OR c IN %@) AND d == %@", box, [other], string) as? NSCompoundPredicate)
        func right(_ p: Any) -> Any? { (p as? NSComparisonPredicate)?.rightExpression.constantValue }
        #expect(right(parsed.subpredicates[0]) as? NSNumber == 1, "a literal stays a value")
        let inner = try #require(parsed.subpredicates[1] as? NSCompoundPredicate)
        #expect(right(inner.subpredicates[0]) as AnyObject === box)
        #expect((right(inner.subpredicates[1]) as? [Box])?.first === other)
        #expect(right(parsed.subpredicates[2]) as AnyObject === string)
        #expect(parsed.evaluate(with: ["a": 1, "b": box, "c": other, "d": "x"]))

        let built = NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: "a"), rightExpression: NSExpression(forConstantValue: box),
                                          modifier: .direct, type: .equalTo)
        let folded = NSCompoundPredicate(orPredicateWithSubpredicates: [NSPredicate(format: "b == 2"), NSCompoundPredicate(notPredicateWithSubpredicate: built)])
        let negated = try #require(folded.subpredicates[1] as? NSCompoundPredicate)
        #expect(right(negated.subpredicates[0]) as AnyObject === box)

        let substituted = try #require(NSPredicate(format: "a == $X").withSubstitutionVariables(["X": box]) as? NSComparisonPredicate)
        #expect(substituted.rightExpression.constantValue as AnyObject === box)

        let array = NSArray(array: [1, 2])
        let function = NSExpression(forFunction: "count:", arguments: [NSExpression(forConstantValue: array)])
        #expect(function.arguments?.first?.constantValue as AnyObject === array)
        let ternary = NSExpression(forConditional: NSPredicate(format: "a == %@", box), trueExpression: NSExpression(forConstantValue: other),
                                   falseExpression: NSExpression(forConstantValue: 0))
        #expect(ternary.trueExpression.constantValue as AnyObject === other)
        #expect((ternary.predicate as? NSComparisonPredicate)?.rightExpression.constantValue as AnyObject === box)
        let expression = NSExpression(format: "%@ UNION {1}", NSExpression(forConstantValue: array))
        #expect(expression.leftExpression.constantValue as AnyObject === array)
    }
}
