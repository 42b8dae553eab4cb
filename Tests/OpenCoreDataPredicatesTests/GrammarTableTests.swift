import Foundation
import Testing
@testable import OpenCoreDataPredicates
import class OpenCoreDataPredicates.NSPredicate
import class OpenCoreDataPredicates.NSComparisonPredicate
import class OpenCoreDataPredicates.NSCompoundPredicate
import class OpenCoreDataPredicates.NSExpression
import class OpenCoreDataPredicates.NSSortDescriptor

/// One row of the grammar table: a format, its canonical print, and its value on the sample object.
struct GrammarCase: CustomTestStringConvertible, Sendable {
    let format: String
    let canonical: String
    let expected: Bool
    var testDescription: String { format }
    init(_ format: String, _ canonical: String, _ expected: Bool) {
        self.format = format
        self.canonical = canonical
        self.expected = expected
    }
    init(_ format: String, _ expected: Bool) { self.init(format, format, expected) }
}

/// The object every row is evaluated against.
var sample: [String: Any] { [
    "name": "Колбаса «Молочная»",
    "title": "Café de Flore",
    "price": 420,
    "weight": 1.5,
    "count": Int32(7),
    "flag": true,
    "nothing": NSNull(),
    "tags": ["red", "green", "blue"],
    "scores": [3, 9, 12],
    "items": [
        ["name": "a", "price": 5, "qty": 2],
        ["name": "b", "price": 15, "qty": 0],
        ["name": "c", "price": 25, "qty": 1],
    ] as [[String: Any]],
    "owner": ["name": "Ann", "age": 40, "address": ["city": "Oslo"]] as [String: Any],
    "size": 3,
    "created": Date(timeIntervalSinceReferenceDate: 1000),
    "code": "file10",
] }

let grammarCases: [GrammarCase] = [
    // Comparison operators, every spelling.
    GrammarCase("price = 420", "price == 420", true),
    GrammarCase("price == 420", true),
    GrammarCase("price != 420", false),
    GrammarCase("price <> 421", "price != 421", true),
    GrammarCase("price < 500", true),
    GrammarCase("price <= 420", true),
    GrammarCase("price =< 419", "price <= 419", false),
    GrammarCase("price > 400", true),
    GrammarCase("price >= 421", false),
    GrammarCase("price => 420", "price >= 420", true),
    GrammarCase("price BETWEEN {400, 500}", true),
    GrammarCase("price between {421, 500}", "price BETWEEN {421, 500}", false),
    GrammarCase("name IN {\"a\", \"Колбаса «Молочная»\"}", true),
    GrammarCase("\"Молоч\" IN name", true),
    GrammarCase("tags CONTAINS \"red\"", true),
    GrammarCase("name CONTAINS \"Молоч\"", true),
    GrammarCase("name BEGINSWITH \"Колбаса\"", true),
    GrammarCase("name ENDSWITH \"»\"", true),
    GrammarCase("name LIKE \"Колб*\"", true),
    GrammarCase("code LIKE \"file??\"", true),
    GrammarCase("code LIKE \"file?\"", false),
    GrammarCase("code MATCHES \"file[0-9]+\"", true),
    GrammarCase("code MATCHES \"file\"", false),
    GrammarCase("price NOT IN {1, 2}", "NOT price IN {1, 2}", true),
    // Options.
    GrammarCase("name CONTAINS[c] \"колбаса\"", true),
    GrammarCase("name CONTAINS[cd] \"колбаса\"", true),
    GrammarCase("name CONTAINS \"колбаса\"", false),
    GrammarCase("title ==[d] \"Cafe de Flore\"", true),
    GrammarCase("title ==[cd] \"CAFE DE FLORE\"", true),
    GrammarCase("title ==[c] \"CAFE DE FLORE\"", false),
    GrammarCase("title BEGINSWITH[dc] \"cafe\"", "title BEGINSWITH[cd] \"cafe\"", true),
    GrammarCase("title ==[n] \"Café de Flore\"", true),
    GrammarCase("title LIKE[cd] \"*FLORE\"", true),
    GrammarCase("title MATCHES[c] \"café.*\"", true),
    // Quantifiers.
    GrammarCase("ANY items.price > 20", true),
    GrammarCase("SOME items.price > 30", "ANY items.price > 30", false),
    GrammarCase("ALL items.price > 1", true),
    GrammarCase("ALL items.price > 10", false),
    GrammarCase("NONE items.price > 30", "NOT ANY items.price > 30", true),
    GrammarCase("ANY tags ==[c] \"RED\"", true),
    // Logic.
    GrammarCase("price > 1 AND price < 1000", true),
    GrammarCase("price > 1 && price < 2", "price > 1 AND price < 2", false),
    GrammarCase("price < 1 OR price > 2", true),
    GrammarCase("price < 1 || price > 2000", "price < 1 OR price > 2000", false),
    GrammarCase("NOT price == 1", true),
    GrammarCase("! price == 420", "NOT price == 420", false),
    GrammarCase("(price < 1 OR price > 2) AND flag == TRUE", true),
    GrammarCase("price < 1 OR (price > 2 AND flag == FALSE)", false),
    GrammarCase("NOT (price < 1 OR price > 2)", false),
    GrammarCase("((price > 1))", "price > 1", true),
    GrammarCase("TRUEPREDICATE", true),
    GrammarCase("FALSEPREDICATE", false),
    GrammarCase("truepredicate", "TRUEPREDICATE", true),
    GrammarCase("price > 1 and price < 1000 or flag == no", "(price > 1 AND price < 1000) OR flag == FALSE", true),
    // Literals.
    GrammarCase("name == 'Колбаса «Молочная»'", "name == \"Колбаса «Молочная»\"", true),
    GrammarCase("\"a\\\"b\" == 'a\"b'", "\"a\\\"b\" == \"a\\\"b\"", true),
    GrammarCase("\"tab\\there\" CONTAINS \"\\t\"", true),
    GrammarCase("\"\\u0041\" == \"A\"", "\"A\" == \"A\"", true),
    GrammarCase("weight == 1.5", true),
    GrammarCase("weight == 15e-1", "weight == 1.5", true),
    GrammarCase("price == 4.2E2", "price == 420.0", true),
    GrammarCase("price == 0x1A4", "price == 420", true),
    GrammarCase("price == 0o644", "price == 420", true),
    GrammarCase("price == 0b110100100", "price == 420", true),
    GrammarCase("price > -5", true),
    GrammarCase("flag == TRUE", true),
    GrammarCase("flag == YES", "flag == TRUE", true),
    GrammarCase("flag == 1", true),
    GrammarCase("flag == false", "flag == FALSE", false),
    GrammarCase("flag == NO", "flag == FALSE", false),
    GrammarCase("nothing == NULL", "nothing == nil", true),
    GrammarCase("missing == nil", true),
    GrammarCase("missing != NIL", "missing != nil", false),
    GrammarCase("missing < 5", false),
    GrammarCase("SELF == SELF", true),
    GrammarCase("scores == {3, 9, 12}", true),
    GrammarCase("{} == {}", true),
    // Key paths.
    GrammarCase("owner.name == \"Ann\"", true),
    GrammarCase("owner.address.city == \"Oslo\"", true),
    GrammarCase("SELF.price == 420", "price == 420", true),
    GrammarCase("#size == 3", true),
    GrammarCase("items.@count == 3", true),
    GrammarCase("items.@sum.price == 45", true),
    GrammarCase("items.@avg.price == 15", true),
    GrammarCase("items.@min.price == 5", true),
    GrammarCase("items.@max.price == 25", true),
    GrammarCase("tags.@count > 2", true),
    // Variables.
    GrammarCase("price == $PRICE", true),
    // Arithmetic.
    GrammarCase("price + 80 == 500", true),
    GrammarCase("price - 20 == 400", true),
    GrammarCase("price * 2 == 840", true),
    GrammarCase("price / 4 == 105", true),
    GrammarCase("2 ** 10 == 1024", true),
    // Printed with the parentheses the grammar needs and no more, so that a print nests no deeper than
    // its format (a long-run finding: `((a - b) - c)`-style prints exceeded the parser's depth limit).
    GrammarCase("price + 2 * 3 == 426", true),
    GrammarCase("(price + 2) * 3 == 1266", true),
    GrammarCase("price - 2 - 3 == 415", true),
    GrammarCase("price - (2 - 3) == 421", true),
    GrammarCase("-price < 0", true),
    GrammarCase("--price > 0", true),
    GrammarCase("-(price + 1) < 0", true),
    GrammarCase("0 - 5 == -5", true),
    GrammarCase("2 ** 3 ** 2 == 512", true),
    GrammarCase("(2 ** 3) ** 2 == 64", true),
    GrammarCase("-2 ** 2 == 4", true),
    // Indexes.
    GrammarCase("tags[0] == \"red\"", true),
    GrammarCase("tags[FIRST] == \"red\"", true),
    GrammarCase("tags[LAST] == \"blue\"", true),
    GrammarCase("tags[SIZE] == 3", true),
    GrammarCase("items[1].name == \"b\"", true),
    GrammarCase("owner[\"name\"] == \"Ann\"", true),
    // Functions.
    GrammarCase("sum:(scores) == 24", true),
    GrammarCase("sum(scores) == 24", "sum:(scores) == 24", true),
    GrammarCase("average:(scores) == 8", true),
    GrammarCase("count:(tags) == 3", true),
    GrammarCase("min:(scores) == 3", true),
    GrammarCase("max:({1, 5, 2}) == 5", true),
    GrammarCase("median:(scores) == 9", true),
    GrammarCase("modulus:by:(price, 100) == 20", true),
    GrammarCase("sqrt:(16) == 4", true),
    GrammarCase("abs:(-3) == 3", true),
    GrammarCase("floor:(weight) == 1", true),
    GrammarCase("ceiling:(weight) == 2", true),
    GrammarCase("trunc:(weight) == 1", true),
    GrammarCase("log:(100) == 2", true),
    GrammarCase("ln:(1) == 0", true),
    GrammarCase("exp:(0) == 1", true),
    GrammarCase("uppercase:(\"abc\") == \"ABC\"", true),
    GrammarCase("lowercase:(\"ABC\") == \"abc\"", true),
    GrammarCase("length:(\"abcd\") == 4", true),
    GrammarCase("bitwiseAnd:with:(6, 3) == 2", true),
    GrammarCase("bitwiseOr:with:(6, 3) == 7", true),
    GrammarCase("bitwiseXor:with:(6, 3) == 5", true),
    GrammarCase("leftshift:by:(1, 4) == 16", true),
    GrammarCase("rightshift:by:(16, 4) == 1", true),
    GrammarCase("onesComplement:(0) == -1", true),
    GrammarCase("now() > created", true),
    GrammarCase("random() < 1", true),
    GrammarCase("FUNCTION(name, 'uppercaseString') BEGINSWITH \"КОЛБАСА\"", "FUNCTION(name, \"uppercaseString\") BEGINSWITH \"КОЛБАСА\"", true),
    GrammarCase("FUNCTION(SELF, 'sum:', scores) == 24", "FUNCTION(SELF, \"sum:\", scores) == 24", true),
    GrammarCase("CAST(1000, 'NSDate') == created", "CAST(1000.0, \"NSDate\") == created", true),
    GrammarCase("CAST(\"420\", \"NSNumber\") == price", "420 == price", true),
    GrammarCase("CAST(price, \"NSString\") == \"420\"", true),
    GrammarCase("CAST(\"1.25\", \"NSDecimalNumber\") < weight", true),
    // Subqueries, conditionals, ANYKEY-free constructs.
    GrammarCase("SUBQUERY(items, $i, $i.price > 10).@count == 2", true),
    GrammarCase("SUBQUERY(items, $i, $i.price > 10 AND $i.qty > 0).@count == 1", true),
    GrammarCase("TERNARY(price > 100, \"big\", \"small\") == \"big\"", true),
    GrammarCase("TERNARY(flag == FALSE, 1, 2) == 2", true),
]

@Suite("Grammar table")
struct GrammarTableTests {
    @Test(arguments: grammarCases)
    func parsePrintReparseEvaluate(_ row: GrammarCase) throws {
        let predicate = try NSPredicate(validatingFormat: row.format)
        #expect(predicate.predicateFormat == row.canonical)
        let reparsed = try NSPredicate(validatingFormat: predicate.predicateFormat)
        #expect(reparsed == predicate, "round trip of \(row.format)")
        #expect(reparsed.predicateFormat == predicate.predicateFormat)
        let result = try predicate.evaluate(validating: sample, substitutionVariables: ["PRICE": 420])
        #expect(result == row.expected, "\(row.format) on the sample")
    }

    @Test func keywordsAreCaseInsensitive() throws {
        let a = try NSPredicate(validatingFormat: "any items.price between {1, 10} and not name contains[c] 'x' or tags.@count in {3}")
        let b = try NSPredicate(validatingFormat: "ANY items.price BETWEEN {1, 10} AND NOT name CONTAINS[c] 'x' OR tags.@count IN {3}")
        #expect(a == b)
    }

    @Test func reservedWordsAsKeysPrintEscaped() throws {
        let p = NSPredicate(format: "%K == 1", "size")
        #expect(p.predicateFormat == "#size == 1")
        #expect(try NSPredicate(validatingFormat: p.predicateFormat) == p)
        #expect(NSPredicate(format: "%K == 1", "owner.first").predicateFormat == "owner.#first == 1")
    }
}
