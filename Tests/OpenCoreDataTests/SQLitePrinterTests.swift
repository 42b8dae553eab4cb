import Foundation
@testable import OpenCoreData
import Testing

/// The SQLite text of hand-built ``SQLExpression`` trees, and the values bound in placeholder order.
@Suite("SQLite printer")
struct SQLitePrinterTests {
    private func sql(_ expression: SQLExpression) -> (String, [Value]) {
        var context = SQLGenerationContext()
        let text = SQLitePrinter.sql(expression, &context)
        return (text, context.arguments)
    }

    private let name = SQLExpression.column(alias: "t0", name: "ZNAME")
    private let price = SQLExpression.column(alias: "t0", name: "ZPRICE")

    @Test func leavesAndComparisons() {
        #expect(sql(.literal(true)) == ("1", []))
        #expect(sql(.literal(false)) == ("0", []))
        #expect(sql(.null) == ("NULL", []))
        #expect(sql(.compare(price, .lessThanOrEqual, .parameter(.int(5)))) == ("t0.ZPRICE <= ?", [.int(5)]))
        #expect(sql(.compare(name, .equal, .parameter(.string("a")))) == ("t0.ZNAME = ?", [.string("a")]))
        #expect(sql(.isNull(name)) == ("t0.ZNAME IS NULL", []))
        #expect(sql(.isNotNull(name)) == ("t0.ZNAME IS NOT NULL", []))
        #expect(sql(.isNotDistinct(name, .column(alias: "t1", name: "ZTITLE"))) == ("t0.ZNAME IS t1.ZTITLE", []))
        #expect(sql(.isDistinct(name, .parameter(.string("x")))) == ("t0.ZNAME IS NOT ?", [.string("x")]))
    }

    @Test func twoValuedNotAndJunctions() {
        let cheap = SQLExpression.compare(price, .lessThan, .parameter(.int(5)))
        #expect(sql(.not(cheap)) == ("NOT COALESCE(t0.ZPRICE < ?, 0)", [.int(5)]))
        #expect(sql(.and([cheap])) == ("(t0.ZPRICE < ?)", [.int(5)]))
        #expect(sql(.or([.isNull(name), cheap])) == ("(t0.ZNAME IS NULL OR t0.ZPRICE < ?)", [.int(5)]))
        #expect(sql(.and([])) == ("1", []))
        #expect(sql(.or([])) == ("0", []))
    }

    /// More than 16 terms: a balanced tree of groups of at most 16 (SQLite's parser depth limit).
    @Test func longJunctionsAreGrouped() {
        let terms = (0..<17).map { SQLExpression.compare(price, .equal, .parameter(.int(Int64($0)))) }
        let (text, arguments) = sql(.or(terms))
        let first = Array(repeating: "t0.ZPRICE = ?", count: 8).joined(separator: " OR ")
        let second = Array(repeating: "t0.ZPRICE = ?", count: 9).joined(separator: " OR ")
        #expect(text == "((\(first)) OR (\(second)))")
        #expect(arguments == (0..<17).map { .int(Int64($0)) })
        #expect(sql(.and(Array(terms.prefix(16)))).0 == "(" + Array(repeating: "t0.ZPRICE = ?", count: 16).joined(separator: " AND ") + ")")
    }

    @Test func functionsByRole() {
        let abc = SQLExpression.parameter(.string("abc"))
        #expect(sql(.function(.fold([.caseInsensitive, .diacriticInsensitive]), [name])) == ("ocd_fold(t0.ZNAME, 3)", []))
        #expect(sql(.function(.contains([.caseInsensitive]), [name, abc])) == ("ocd_contains(t0.ZNAME, ?, 1)", [.string("abc")]))
        #expect(sql(.function(.beginsWith([]), [name, abc])).0 == "ocd_beginswith(t0.ZNAME, ?, 0)")
        #expect(sql(.function(.endsWith([]), [name, abc])).0 == "ocd_endswith(t0.ZNAME, ?, 0)")
        #expect(sql(.function(.like([.diacriticInsensitive]), [name, abc])).0 == "ocd_like(t0.ZNAME, ?, 2)")
        #expect(sql(.function(.matches([]), [name, abc])).0 == "ocd_matches(t0.ZNAME, ?, 0)")
        #expect(sql(.function(.upper, [name])).0 == "ocd_upper(t0.ZNAME)")
        #expect(sql(.function(.lower, [name])).0 == "ocd_lower(t0.ZNAME)")
        #expect(sql(.function(.utf16Length, [name])).0 == "ocd_utf16_length(t0.ZNAME)")
        #expect(sql(.function(.abs, [price])).0 == "abs(t0.ZPRICE)")
    }

    @Test func arithmeticCaseAndLists() {
        let two = SQLExpression.parameter(.int(2))
        #expect(sql(.arithmetic(price, .add, two)) == ("(t0.ZPRICE + ?)", [.int(2)]))
        #expect(sql(.arithmetic(price, .subtract, .null)).0 == "(t0.ZPRICE - NULL)")
        #expect(sql(.arithmetic(two, .multiply, price)).0 == "(? * t0.ZPRICE)")
        #expect(sql(.arithmetic(price, .divide, two)).0 == "(CAST(t0.ZPRICE AS REAL) / ?)")
        let pick = SQLExpression.caseWhen(.compare(price, .greaterThan, two), then: name, else: .parameter(.string("none")))
        #expect(sql(pick) == ("CASE WHEN t0.ZPRICE > ? THEN t0.ZNAME ELSE ? END", [.int(2), .string("none")]))
        #expect(sql(.inList(price, [two, .parameter(.int(3))])) == ("t0.ZPRICE IN (?, ?)", [.int(2), .int(3)]))
    }

    @Test func collations() {
        #expect(sql(.collate(name, .compare)).0 == "t0.ZNAME")
        #expect(sql(.collate(name, .caseInsensitiveCompare)).0 == "t0.ZNAME COLLATE ocd_ci")
        #expect(sql(.collate(name, .localizedCompare)).0 == "t0.ZNAME COLLATE ocd_localized")
        #expect(sql(.collate(name, .localizedCaseInsensitiveCompare)).0 == "t0.ZNAME COLLATE ocd_localized_ci")
        #expect(sql(.collate(name, .localizedStandardCompare)).0 == "t0.ZNAME COLLATE ocd_localized_standard")
    }

    /// A value appearing twice in the tree is bound twice, each time in text order.
    @Test func argumentsInPlaceholderOrder() {
        let folded = SQLExpression.parameter(.string("a"))
        let tree = SQLExpression.or([.inList(folded, [name, .parameter(.string("b"))]), .isNull(folded)])
        #expect(sql(tree) == ("(? IN (t0.ZNAME, ?) OR ? IS NULL)", [.string("a"), .string("b"), .string("a")]))
    }

    @Test func aliases() {
        var context = SQLGenerationContext()
        #expect(context.alias(for: []) == "t0")
        #expect(context.alias(for: ["owner"]) == nil)
        let owner = context.join(["owner"], table: "ZPERSON", key: .column(alias: "t0", name: "ZOWNER"))
        #expect(owner == "t1")
        #expect(context.join(["owner", "address"], table: "ZADDRESS", key: .column(alias: "t1", name: "ZADDRESS")) == "t2")
        #expect(context.join(["owner"], table: "ZPERSON", key: .column(alias: "t0", name: "ZOWNER")) == "t1")
        #expect(context.newAlias() == "t3")
        #expect(context.joins.map(\.alias) == ["t1", "t2"])
        #expect(SQLitePrinter.joins(context.joins, &context)
                == " LEFT OUTER JOIN ZPERSON t1 ON t0.ZOWNER = t1.Z_PK LEFT OUTER JOIN ZADDRESS t2 ON t1.ZADDRESS = t2.Z_PK")
    }
}
