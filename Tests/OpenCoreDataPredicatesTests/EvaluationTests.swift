import Foundation
import Testing
@testable import OpenCoreDataPredicates
import class OpenCoreDataPredicates.NSPredicate
import class OpenCoreDataPredicates.NSComparisonPredicate
import class OpenCoreDataPredicates.NSCompoundPredicate
import class OpenCoreDataPredicates.NSExpression
import class OpenCoreDataPredicates.NSSortDescriptor

@Suite("Evaluation semantics")
struct EvaluationTests {
    private func eval(_ format: String, _ object: Any?, _ args: Any?...) throws -> Bool {
        try NSPredicate(validatingFormat: format, argumentArray: args.map { $0 as Any }).evaluate(validating: object)
    }

    @Test func numbersCompareAcrossKinds() throws {
        let object: [String: Any] = ["i": 1, "d": 1.0, "b": true, "dec": Decimal(string: "1.00")!, "i32": Int32(1),
                                     "n": NSNumber(value: 1), "f": Float(1)]
        for key in ["i", "d", "b", "dec", "i32", "n", "f"] {
            #expect(try eval("%K == 1", object, key), "\(key) == 1")
            #expect(try eval("%K == 1.0", object, key), "\(key) == 1.0")
            #expect(try eval("%K == TRUE", object, key), "\(key) == TRUE")
            #expect(try eval("%K < 1.5", object, key), "\(key) < 1.5")
            #expect(try !eval("%K > 1", object, key), "\(key) > 1")
        }
        #expect(try eval("i == d AND d == dec AND dec == b", object))
    }

    @Test func nilEqualsOnlyNilAndNeverOrders() throws {
        let object: [String: Any] = ["a": NSNull(), "s": "x"]
        #expect(try eval("a == nil", object))
        #expect(try eval("missing == nil", object))
        #expect(try !eval("s == nil", object))
        #expect(try eval("s != nil", object))
        for op in ["<", "<=", ">", ">="] {
            #expect(try !eval("a \(op) 1", object))
            #expect(try !eval("1 \(op) a", object))
            #expect(try !eval("a \(op) nil", object))
        }
        #expect(try !eval("a BEGINSWITH \"x\"", object))
        #expect(try !eval("a CONTAINS \"x\"", object))
        #expect(try !eval("a LIKE \"*\"", object))
        #expect(try !eval("a MATCHES \".*\"", object))
        #expect(try !eval("a IN {1}", object))
        #expect(try eval("nil IN {1, nil}", object))
    }

    @Test func caseAndDiacriticFolding() throws {
        let object: [String: Any] = ["name": "Колбаса «Молочная»", "street": "Straße", "word": "ΣΊΣΥΦΟΣ"]
        #expect(try eval("name CONTAINS[cd] %@", object, "колбаса"))
        #expect(try eval("name CONTAINS[c] %@", object, "КОЛБАСА"))
        #expect(try !eval("name CONTAINS %@", object, "колбаса"))
        #expect(try eval("'cafe' ==[d] 'café'", nil))
        #expect(try !eval("'cafe' == 'café'", nil))
        #expect(try eval("'CAFE' ==[cd] 'café'", nil))
        #expect(try eval("'Йогурт' BEGINSWITH[d] 'Иог'", nil))  // й decomposes to и + breve
        #expect(try eval("street ==[c] 'STRASSE'", object))      // full case folding: ß ~ SS
        #expect(try eval("word ==[cd] 'σισυφος'", object))       // final sigma, tonos
        // [n] is literal and supersedes [c][d].
        #expect(try !eval("'cafe' ==[cdn] 'CAFÉ'", nil))
        // Canonically equivalent strings are equal without options (precomposed vs decomposed é).
        #expect(try eval("%@ == %@", nil, "caf\u{E9}", "cafe\u{301}"))
    }

    @Test func likeWildcards() throws {
        #expect(try eval("'abc' LIKE 'a*'", nil))
        #expect(try eval("'abc' LIKE '*c'", nil))
        #expect(try eval("'abc' LIKE 'a?c'", nil))
        #expect(try eval("'abc' LIKE '*'", nil))
        #expect(try eval("'' LIKE '*'", nil))
        #expect(try !eval("'abc' LIKE 'a?'", nil))
        #expect(try !eval("'abc' LIKE 'b*'", nil))
        #expect(try eval("'a*c' LIKE 'a\\\\*c'", nil))
        #expect(try !eval("'abc' LIKE 'a\\\\*c'", nil))
        #expect(try eval("'aXbXc' LIKE '*b*'", nil))
        #expect(try eval("'ABC' LIKE[c] 'a*'", nil))
        #expect(try eval("'Crème' LIKE[cd] 'creme'", nil))
        #expect(try eval("'aaaaaaaaaaaaaaaaaaaaaaaaaaaaab' LIKE '*a*a*a*a*a*b'", nil))
    }

    @Test func matchesIsWholeStringRegularExpression() throws {
        #expect(try eval("'abc' MATCHES 'a.c'", nil))
        #expect(try !eval("'abcd' MATCHES 'a.c'", nil))
        #expect(try eval("'ab' MATCHES 'a|ab'", nil))
        #expect(try eval("'ABC' MATCHES[c] 'abc'", nil))
        #expect(try eval("'été' MATCHES[d] 'ete'", nil))
        #expect(throws: PredicateEvaluationError.self) { try eval("'a' MATCHES '('", nil) }
        #expect(try eval("'' MATCHES ''", nil))
        #expect(try !eval("'a' MATCHES ''", nil))
        // Unbalanced patterns that the whole-string wrapper `\A(?:…)\z` would otherwise balance.
        for pattern in ["b)|(c", "a)(", ")|(", "x)|(?:y"] {
            #expect(throws: PredicateEvaluationError.self, "\(pattern)") { try eval("'abc' MATCHES %@", nil, pattern) }
        }
    }

    @Test func quantifiersOverArraysAndSets() throws {
        let object: [String: Any] = ["a": [1, 2, 3], "s": Set([1, 2, 3]), "e": [Int](), "n": NSNull()]
        for key in ["a", "s"] {
            #expect(try eval("ANY %K == 2", object, key))
            #expect(try !eval("ANY %K == 5", object, key))
            #expect(try eval("ALL %K > 0", object, key))
            #expect(try !eval("ALL %K > 1", object, key))
            #expect(try eval("NONE %K > 3", object, key))
            #expect(try eval("%K CONTAINS 3", object, key))
            #expect(try eval("2 IN %K", object, key))
        }
        #expect(try !eval("ANY e == 1", object))
        #expect(try eval("ALL e == 1", object))
        #expect(try eval("NONE e == 1", object))
        #expect(try !eval("ANY n == 1", object))
        #expect(throws: PredicateEvaluationError.self) { try eval("ANY %K == 1", ["x": 5], "x") }
    }

    @Test func inAndContainsOnStringsAreSubstrings() throws {
        #expect(try eval("'ell' IN 'hello'", nil))
        #expect(try eval("'hello' CONTAINS 'ell'", nil))
        #expect(try eval("'ELL' IN[c] 'hello'", nil))
        #expect(try !eval("'xyz' IN 'hello'", nil))
        #expect(try eval("'b' IN {'a', 'b'}", nil))
        #expect(try eval("'B' IN[c] {'a', 'b'}", nil))
    }

    @Test func betweenIsInclusive() throws {
        #expect(try eval("5 BETWEEN {5, 10}", nil))
        #expect(try eval("10 BETWEEN {5, 10}", nil))
        #expect(try !eval("11 BETWEEN {5, 10}", nil))
        #expect(try eval("'b' BETWEEN {'a', 'c'}", nil))
        #expect(try eval("x BETWEEN %@", ["x": 7], [5, 10]))
        #expect(throws: PredicateEvaluationError.self) { try eval("x BETWEEN $range", ["x": 7]) }
    }

    @Test func substitutionVariables() throws {
        let p = try NSPredicate(validatingFormat: "name == $NAME AND price < $MAX")
        #expect(p.predicateFormat == "name == $NAME AND price < $MAX")
        let bound = p.withSubstitutionVariables(["NAME": "x", "MAX": 10])
        #expect(bound.predicateFormat == "name == \"x\" AND price < 10")
        #expect(bound.evaluate(with: ["name": "x", "price": 5]))
        #expect(p.evaluate(with: ["name": "x", "price": 5], substitutionVariables: ["NAME": "x", "MAX": 10]))
        #expect(!p.evaluate(with: ["name": "x", "price": 50], substitutionVariables: ["NAME": "x", "MAX": 10]))
        #expect(throws: PredicateEvaluationError.self) { try p.evaluate(validating: ["name": "x"]) }
        // A subquery's own variable is not substituted.
        let s = try NSPredicate(validatingFormat: "SUBQUERY(items, $x, $x.v == $V).@count > 0").withSubstitutionVariables(["x": 1, "V": 2])
        #expect(s.predicateFormat == "SUBQUERY(items, $x, $x.v == 2).@count > 0")
    }

    @Test func keyPathsThroughToManyCollections() throws {
        let object: [String: Any] = ["orders": [["lines": [["qty": 1], ["qty": 2]]], ["lines": [["qty": 5]]]]]
        #expect(try eval("ANY orders.lines.@count == 2", object))
        #expect(try eval("SUBQUERY(orders, $o, ANY $o.lines.qty > 4).@count == 1", object))
        #expect(try eval("orders.@count == 2", object))
    }

    @Test func customKeyValueCodingTypes() throws {
        struct Product: KeyValueCoding {
            var name: String, price: Int
            func value(forKey key: String) -> Any? {
                switch key { case "name": return name; case "price": return price; default: return nil }
            }
            func validatedValue(forKey key: String) throws -> Any? {
                guard ["name", "price"].contains(key) else {
                    throw PredicateEvaluationError(.notKeyValueCodingCompliant(type: "Product", key: key))
                }
                return value(forKey: key)
            }
        }
        let products = [Product(name: "a", price: 5), Product(name: "b", price: 50)]
        #expect(products.filtered(using: NSPredicate(format: "price < 10")).map(\.name) == ["a"])
        do {
            _ = try NSPredicate(format: "prise < 10").evaluate(validating: products[0])
            Issue.record("expected an error")
        } catch let error as PredicateEvaluationError {
            #expect(error.description == "Product is not key value coding-compliant for the key \"prise\"")
        }
    }

    @Test func expressionValues() throws {
        #expect(NSExpression(format: "2 + 3 * 4").expressionValue(with: nil, context: nil) as? Int == 14)
        #expect(NSExpression(format: "sum:({1, 2, 3})").expressionValue(with: nil, context: nil) as? Int == 6)
        #expect(NSExpression(format: "price * 2").expressionValue(with: ["price": 21], context: nil) as? Int == 42)
        #expect(NSExpression(format: "10 / 4").expressionValue(with: nil, context: nil) as? Double == 2.5)
        #expect(NSExpression(format: "uppercase:(%@)", "abc").expressionValue(with: nil, context: nil) as? String == "ABC")
        let context = NSMutableDictionary()
        context["X"] = 5
        #expect(NSExpression(format: "$X + 1").expressionValue(with: nil, context: context) as? Int == 6)
        #expect(NSExpression(format: "9223372036854775807 + 1").expressionValue(with: nil, context: nil) as? Double == 9.223372036854775808e18)
    }
}
