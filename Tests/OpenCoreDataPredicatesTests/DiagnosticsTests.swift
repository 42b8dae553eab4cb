import Foundation
import Testing
@testable import OpenCoreDataPredicates
import class OpenCoreDataPredicates.NSPredicate
import class OpenCoreDataPredicates.NSComparisonPredicate
import class OpenCoreDataPredicates.NSCompoundPredicate
import class OpenCoreDataPredicates.NSExpression
import class OpenCoreDataPredicates.NSSortDescriptor

@Suite("Diagnostics for bad input")
struct DiagnosticsTests {
    private func error(_ format: String, _ args: Any?...) -> PredicateFormatError? {
        do {
            _ = try NSPredicate(validatingFormat: format, argumentArray: args.map { $0 as Any })
            return nil
        } catch {
            return error as? PredicateFormatError
        }
    }

    @Test func exactTextOfAnUnexpectedToken() throws {
        let e = try #require(error("name == == 1"))
        #expect(e.description == """
            Unable to parse the format string "name == == 1": expected an expression, found "==" at offset 8
            name == == 1
                    ^
            """)
        #expect(e.offset == 8)
        #expect(e.expected == "an expression")
        #expect(e.found == "\"==\"")
    }

    @Test(arguments: [
        ("name ==", "expected an expression, found end of input at offset 7"),
        ("name CONTAINS[x] 'a'", "expected comparison options (c, d, n), found \"x\" at offset 14"),
        ("name == 'abc", "expected a closing ' for the string that starts at offset 8, found end of input at offset 12"),
        ("(a == 1", "expected \")\", found end of input at offset 7"),
        ("a == 1 b", "expected end of input, found \"b\" at offset 7"),
        ("a == 1 ^ 2", "expected a token, found \"^\" at offset 7"),
        ("a 1", "expected a comparison operator (==, !=, <, <=, >, >=, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES, BETWEEN), found \"1\" at offset 2"),
        ("", "expected a predicate, found end of input at offset 0"),
        ("a == foo(1)", "unknown function foo with 1 argument at offset 5"),
        ("a BETWEEN 5", "BETWEEN needs a pair {lower, upper} at offset 2"),
        ("a == $", "expected a variable name after \"$\", found end of input at offset 6"),
        ("size == 1", "expected an expression, found \"size\" at offset 0"),
        ("a.size == 1", "expected a key (reserved words as keys are written with #, as in #size), found \"size\" at offset 2"),
        ("a == 0x", "expected a base-16 number that fits in 64 bits, found \"0x\" at offset 5"),
        ("a == %y", "expected a format specifier (%@, %K, %d, %f, …), found \"%y\" at offset 5"),
        ("a == CAST(1, 'NSFoo')", "CAST to unknown class NSFoo at offset 5"),
        ("SUBQUERY(items, x, x == 1).@count > 0", "expected a $variable for SUBQUERY, found \"x\" at offset 16"),
    ])
    func reasonAndOffset(_ format: String, _ message: String) throws {
        let e = try #require(error(format), "\(format) should not parse")
        #expect(e.description.hasPrefix("Unable to parse the format string \"\(format)\": \(message)\n"))
        let lines = e.description.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3)
        #expect(lines.last == Substring(String(repeating: " ", count: e.offset) + "^"))
    }

    @Test func argumentErrors() throws {
        #expect(error("name == %@")?.reason == "no argument for %@ (argument 1)")
        #expect(error("name == %@ AND price < %d", "x")?.reason == "no argument for %d (argument 2)")
        #expect(error("price < %d", "five")?.reason == "argument 1 for %d is a String, expected an integer")
        #expect(error("price < %f", "five")?.reason == "argument 1 for %f is a String, expected a floating-point number")
        #expect(error("%K == 1", 5)?.reason == "argument 1 for %K is a Int, expected a key path string")
        #expect(error("%K == 1", "a..b")?.reason == "argument 1 for %K is not a key path: \"a..b\"")
        #expect(error("name == %@", "a", "b")?.reason == "the format uses 1 argument but 2 were given")
        #expect(error("name == 'literal %@'", "x")?.reason == "the format uses 0 arguments but 1 were given (a quoted '%@', '%K' or '$VAR' is literal text, not a specifier)")
    }

    @Test func nestingLimitIsAnErrorNotACrash() throws {
        let ok = String(repeating: "(", count: 63) + "a == 1" + String(repeating: ")", count: 63)
        #expect(error(ok) == nil)
        for format in [
            String(repeating: "(", count: 65) + "a == 1" + String(repeating: ")", count: 65),
            String(repeating: "NOT ", count: 100) + "a == 1",
            "a == " + String(repeating: "{", count: 10_000),
            "a == " + String(repeating: "-", count: 10_000) + "1",
            "a == " + Array(repeating: "1", count: 10_000).joined(separator: " + "),
            "a == b" + String(repeating: "[0]", count: 10_000),
            "a == " + String(repeating: "(", count: 100_000),
            String(repeating: "(", count: 100_000) + "a == 1" + String(repeating: ")", count: 100_000),
            "a == 2" + String(repeating: " ** 2", count: 10_000),
        ] {
            let e = try #require(error(format))
            #expect(e.reason == "nesting deeper than 64 levels", "\(format.prefix(30))")
        }
    }

    @Test func expressionsHaveAThrowingEntryPoint() {
        #expect(throws: PredicateFormatError.self) { try NSExpression(validatingFormat: "1 +") }
        #expect(throws: Never.self) { try NSExpression(validatingFormat: "1 + 2") }
    }
}
