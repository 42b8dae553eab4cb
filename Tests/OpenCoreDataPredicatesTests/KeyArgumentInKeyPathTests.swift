import Foundation
import Testing
@testable import OpenCoreDataPredicates
import class OpenCoreDataPredicates.NSPredicate
import class OpenCoreDataPredicates.NSExpression

/// `%K` after a `.` of a key path: Apple's predicate format grammar lets a key path's parts be `%K`
/// arguments, after a variable (`$FETCH_SOURCE.%K`, as fetched properties write it) or after a key.
@Suite("%K inside key paths")
struct KeyArgumentInKeyPathTests {
    @Test func afterAVariable() {
        let p = NSPredicate(format: "%K == $FETCH_SOURCE.%K", "author", "name")
        #expect(p.predicateFormat == "author == $FETCH_SOURCE.name")
        let source: [String: Any] = ["name": "Tolstoy"]
        #expect(p.evaluate(with: ["author": "Tolstoy"], substitutionVariables: ["FETCH_SOURCE": source]))
        #expect(!p.evaluate(with: ["author": "Chekhov"], substitutionVariables: ["FETCH_SOURCE": source]))
    }

    @Test func afterAKeyAndAfterSELF() {
        #expect(NSPredicate(format: "author.%K == %@", "name", "x").predicateFormat == "author.name == \"x\"")
        #expect(NSPredicate(format: "SELF.%K == 1", "count").predicateFormat == "count == 1")
        #expect(NSPredicate(format: "%K.%K.%K > 2", "a", "b", "c").predicateFormat == "a.b.c > 2")
        // A %K argument may itself be dotted, and mixes with written keys and collection operators.
        #expect(NSPredicate(format: "a.%K.@count == 0", "b.c").predicateFormat == "a.b.c.@count == 0")
        let nested: [String: Any] = ["a": ["b": ["c": 3]]]
        #expect(NSPredicate(format: "%K.%K.%K > 2", "a", "b", "c").evaluate(with: nested))
    }

    @Test func argumentsAreConsumedInOrder() {
        let p = NSPredicate(format: "$V.%K == %@ AND %K == %d", "x", "one", "y", 2)
        #expect(p.predicateFormat == "$V.x == \"one\" AND y == 2")
    }

    @Test func aBadKeyArgumentAfterADotIsAnError() {
        #expect(throws: PredicateFormatError.self) { try NSPredicate(validatingFormat: "a.%K == 1", argumentArray: [5]) }
        #expect(throws: PredicateFormatError.self) { try NSPredicate(validatingFormat: "a.%K == 1", argumentArray: ["b..c"]) }
        #expect(throws: PredicateFormatError.self) { try NSPredicate(validatingFormat: "a.%K == 1", argumentArray: []) }
        // Only %K names a key: %@ after a dot is not a key path.
        #expect(throws: PredicateFormatError.self) { try NSPredicate(validatingFormat: "a.%@ == 1", argumentArray: ["b"]) }
    }
}
