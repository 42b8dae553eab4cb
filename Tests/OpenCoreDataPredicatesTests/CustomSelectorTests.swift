import Foundation
import Testing
@testable import OpenCoreDataPredicates
import class OpenCoreDataPredicates.NSPredicate
import class OpenCoreDataPredicates.NSComparisonPredicate
import class OpenCoreDataPredicates.NSCompoundPredicate
import class OpenCoreDataPredicates.NSExpression
import struct OpenCoreDataPredicates.Selector

/// Issue 32 B7: `NSComparisonPredicate(leftExpression:rightExpression:customSelector:)`, its `customSelector`,
/// printing and archiving as Darwin does, and evaluation through `CustomSelectorRegistry`.
@Suite("Custom selector predicates")
struct CustomSelectorTests {
    static func custom(_ key: String, _ selector: Selector, _ value: Any?) -> NSComparisonPredicate {
        NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: key), rightExpression: NSExpression(forConstantValue: value),
                              customSelector: selector)
    }

    // Apple: "The selector is invoked on the left hand side with the right hand side as the argument";
    // the predicate's operator type is customSelector.
    @Test func initializerAndProperties() {
        let p = Self.custom("name", "hasPrefix:", "Ко")
        #expect(p.predicateOperatorType == .customSelector)
        #expect(p.customSelector == Selector("hasPrefix:"))
        #expect(p.comparisonPredicateModifier == .direct)
        #expect(p.options == [])
        #expect(p.leftExpression.keyPath == "name")
        #expect(p.rightExpression.constantValue as? String == "Ко")
        #expect((NSPredicate(format: "name BEGINSWITH 'a'") as? NSComparisonPredicate)?.customSelector == nil)
        #expect(p == Self.custom("name", "hasPrefix:", "Ко"))
        #expect(p != Self.custom("name", "hasSuffix:", "Ко"))
        #expect(p != NSPredicate(format: "name BEGINSWITH 'Ко'"))
    }

    // Darwin's predicateFormat is "%@ %@ %@" of the left expression, the operator (a custom operator's
    // symbol is the selector's name) and the right expression.
    @Test func printsAsDarwinDoes() {
        #expect(Self.custom("name", "hasPrefix:", "Ко").predicateFormat == "name hasPrefix: \"Ко\"")
        let not = NSCompoundPredicate(notPredicateWithSubpredicate: Self.custom("tags", "containsObject:", 3))
        #expect(not.predicateFormat == "NOT tags containsObject: 3")
        // Darwin's parser has no syntax for it, nor has ours.
        #expect(throws: PredicateFormatError.self) { try NSPredicate(validatingFormat: "name hasPrefix: \"Ко\"") }
    }

    @Test func builtInSelectorsTestAsTheirOperators() throws {
        let object: [String: Any] = ["name": "Колбаса", "price": 345, "tags": ["a", "b"], "when": Date(timeIntervalSince1970: 5)]
        let cases: [(String, Selector, Any?, Bool)] = [
            ("name", "isEqual:", "Колбаса", true), ("price", "isEqual:", 345.0, true), ("price", "isEqualTo:", 1, false),
            ("price", "isNotEqualTo:", 1, true), ("price", "isLessThan:", 400, true), ("price", "isGreaterThan:", 400, false),
            ("price", "isLessThanOrEqualTo:", 345, true), ("price", "isGreaterThanOrEqualTo:", 346, false),
            ("name", "isEqualToString:", "Колбаса", true), ("name", "isEqualToString:", "колбаса", false),
            ("price", "isEqualToNumber:", 345, true), ("when", "isEqualToDate:", Date(timeIntervalSince1970: 5), true),
            ("name", "hasPrefix:", "Кол", true), ("name", "hasSuffix:", "аса", true), ("name", "hasSuffix:", "Кол", false),
            ("name", "containsString:", "лба", true), ("name", "containsString:", "ЛБА", false),
            ("name", "localizedCaseInsensitiveContainsString:", "ЛБА", true),
            ("name", "localizedStandardContainsString:", "лба", true),
            ("name", "isLike:", "Кол*", true), ("name", "isLike:", "кол*", false), ("name", "isCaseInsensitiveLike:", "кол*", true),
            ("tags", "containsObject:", "b", true), ("tags", "doesContain:", "c", false),
            ("name", "hasPrefix:", 3, false), ("name", "isEqual:", nil, false),
        ]
        for (key, selector, value, expected) in cases {
            #expect(try Self.custom(key, selector, value).evaluate(validating: object) == expected, "\(key) \(selector) \(String(describing: value))")
        }
        #expect(CustomSelectorRegistry.builtIn.contains(Selector("hasPrefix:")))
        #expect(CustomSelectorRegistry.builtIn.count == BuiltInSelector.table.count)
    }

    @Test func errorsNameTheSelector() throws {
        let nilReceiver = try #require(throws: PredicateEvaluationError.self) {
            try Self.custom("missing", "hasPrefix:", "a").evaluate(validating: ["missing": NSNull()])
        }
        #expect(nilReceiver.description == "the custom selector hasPrefix:: cannot invoke the selector on nil")
        let wrongReceiver = try #require(throws: PredicateEvaluationError.self) {
            try Self.custom("price", "hasPrefix:", "a").evaluate(validating: ["price": 3])
        }
        #expect(wrongReceiver.description.contains("hasPrefix:") && wrongReceiver.description.contains("does not respond"))
        let unknown = try #require(throws: PredicateEvaluationError.self) {
            try Self.custom("name", "isAnagramOfTheFirstKind:", "a").evaluate(validating: ["name": "a"])
        }
        #expect(unknown.description.contains("isAnagramOfTheFirstKind:") && unknown.description.contains("CustomSelectorRegistry.register"))
    }

    @Test func registeredImplementationsRunAndCanBeRemoved() throws {
        let selector = Selector("isAnagramOfTheSecondKind:")
        let p = Self.custom("name", selector, "tac")
        #expect(throws: PredicateEvaluationError.self) { try p.evaluate(validating: ["name": "act"]) }
        CustomSelectorRegistry.register(selector) { receiver, argument in
            guard let s = receiver as? String, let t = argument as? String else { return false }
            return s.sorted() == t.sorted()
        }
        defer { CustomSelectorRegistry.unregister(selector) }
        #expect(p.evaluate(with: ["name": "act"]))
        #expect(!p.evaluate(with: ["name": "dog"]))
        // With ANY over a collection (Darwin's NSCustomPredicateOperator takes a modifier from an archive).
        let any = NSPredicate(node: .comparison(ComparisonNode(.keyPath("names"), .customSelector, .constant(.string("tac")),
                                                               modifier: .any, selector: selector.name)))
        #expect(any.evaluate(with: ["names": ["dog", "cat"]]))
        #expect(any.predicateFormat == "ANY names isAnagramOfTheSecondKind: \"tac\"")
        // The receiver is the value itself: numbers as NSNumber, objects as they are.
        struct Thing: Hashable { let n: Int }
        let thingSelector = Selector("hasTheSameNumberAs:")
        CustomSelectorRegistry.register(thingSelector) { receiver, argument in
            (receiver as? Thing)?.n == (argument as? NSNumber)?.intValue
        }
        defer { CustomSelectorRegistry.unregister(thingSelector) }
        #expect(Self.custom("thing", thingSelector, 4).evaluate(with: ["thing": Thing(n: 4)]))
        // A registration replaces a built-in one; removing it restores the built-in.
        let prefix = Selector("hasPrefix:")
        CustomSelectorRegistry.register(prefix) { _, _ in false }
        #expect(!Self.custom("name", prefix, "a").evaluate(with: ["name": "abc"]))
        CustomSelectorRegistry.unregister(prefix)
        #expect(Self.custom("name", prefix, "a").evaluate(with: ["name": "abc"]))
    }

    @Test func archivesAsNSCustomPredicateOperator() throws {
        let p = Self.custom("name", "hasPrefix:", "Ко")
        let data = try NSKeyedArchiver.archivedData(withRootObject: p, requiringSecureCoding: true)
        let plist = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        let objects = try #require(plist["$objects"] as? [Any])
        let op = try #require(objects.compactMap { $0 as? [String: Any] }.first { $0["NSOperatorType"] != nil })
        #expect((op["NSOperatorType"] as? NSNumber)?.intValue == 11)
        #expect(op["NSOptions"] == nil && op["NSNegate"] == nil)
        #expect(objects.contains { ($0 as? String) == "hasPrefix:" })
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSComparisonPredicate.self, from: data))
        #expect(decoded == p)
        #expect(decoded.customSelector == Selector("hasPrefix:"))
        decoded.allowEvaluation()
        #expect(decoded.evaluate(with: ["name": "Колбаса"]))
    }
}
