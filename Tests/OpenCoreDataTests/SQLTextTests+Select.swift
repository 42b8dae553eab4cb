import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// The exact SQL of whole statements (``SQLSelect``) as ``SQLitePrinter`` prints them: grouping,
/// `HAVING`, ordering, the window, and the order's last term decided by what a fetch selects.
extension SQLTextTests {
    private static var name: SQLExpression { .column(alias: "t0", name: "ZNAME") }
    private static var price: SQLExpression { .column(alias: "t0", name: "ZPRICE") }

    private func printed(_ select: SQLSelect) -> (String, [Value]) {
        var context = SQLGenerationContext()
        let text = SQLitePrinter.sql(select, &context)
        return (text, context.arguments)
    }

    @Test func aWholeSelectPrintsEachClauseInOrder() {
        var select = SQLSelect(selection: .columns([Self.name, .function(.sum, [Self.price])]), source: .table("ZPRODUCTS", alias: "t0"))
        select.conditions = [.compare(Self.price, .lessThan, .parameter(.int(500))), .isNotNull(Self.name)]
        select.groupBy = [Self.name]
        select.having = .compare(.function(.count, [Self.price]), .greaterThan, .parameter(.int(1)))
        select.orderBy = [SQLSelect.Ordering(expression: Self.name, ascending: false), SQLSelect.Ordering(expression: Self.price, ascending: true)]
        select.limit = 10
        select.offset = 5
        let (text, arguments) = printed(select)
        #expect(text == "SELECT t0.ZNAME, SUM(t0.ZPRICE) FROM ZPRODUCTS t0 WHERE t0.ZPRICE < ? AND t0.ZNAME IS NOT NULL GROUP BY t0.ZNAME HAVING COUNT(t0.ZPRICE) > ? ORDER BY t0.ZNAME DESC, t0.ZPRICE LIMIT 10 OFFSET 5")
        #expect(arguments == [.int(500), .int(1)])
    }

    @Test func windowsDistinctAndCounts() {
        var select = SQLSelect(distinct: true, selection: .columns([Self.name]), source: .table("ZPRODUCTS", alias: "t0"))
        select.offset = 3
        #expect(printed(select).0 == "SELECT DISTINCT t0.ZNAME FROM ZPRODUCTS t0 LIMIT -1 OFFSET 3")
        select.offset = nil
        select.limit = 7
        #expect(printed(select).0 == "SELECT DISTINCT t0.ZNAME FROM ZPRODUCTS t0 LIMIT 7")
        let count = SQLSelect(selection: .count, source: .select(select))
        #expect(printed(count).0 == "SELECT COUNT(*) FROM (SELECT DISTINCT t0.ZNAME FROM ZPRODUCTS t0 LIMIT 7)")
        let entities = SQLSelect(selection: .count, source: .table("ZPRODUCTS", alias: "t0"),
                                 conditions: [.inList(.column(alias: "t0", name: "Z_ENT"), [.integer(1), .integer(2)])])
        #expect(printed(entities) == ("SELECT COUNT(*) FROM ZPRODUCTS t0 WHERE t0.Z_ENT IN (1, 2)", []))
    }

    /// A dictionary fetch's statement: its columns and groups, the sort descriptors without the key
    /// tiebreak that fetches of objects end with, the window, every value bound.
    @Test func dictionaryFetchesGroupOrderAndWindow() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeProductsModel())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let request = NSFetchRequest<NSDictionary>(entityName: "Products")
        request.resultType = .dictionaryResultType
        let total = NSExpressionDescription()
        total.name = "total"
        total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "price")])
        total.expressionResultType = .integer64AttributeType
        request.propertiesToFetch = ["name", total]
        request.propertiesToGroupBy = ["name"]
        request.predicate = NSPredicate(format: "price < %d", 500)
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
        request.fetchLimit = 3
        request.fetchOffset = 1
        let plan = try FetchPlan(request, model: coordinator.managedObjectModel)
        let columns = try DictionaryFetch(plan: plan, request: request).resolve().columns
        let (text, arguments) = try coordinator.sqlite.columnsSQL(plan, columns)
        #expect(text == "SELECT t0.ZNAME, SUM(t0.ZPRICE) FROM ZPRODUCTS t0 WHERE t0.ZPRICE < ? GROUP BY t0.ZNAME ORDER BY t0.ZNAME DESC LIMIT 3 OFFSET 1")
        #expect(arguments == [.int(500)])
        // The same plan fetching objects ends its order with the key; counting it counts the window.
        #expect(try coordinator.sqlite.selectSQL(plan, .objects([FetchSelection.key]), limited: true).0
                == "SELECT t0.Z_PK FROM ZPRODUCTS t0 WHERE t0.ZPRICE < ? ORDER BY t0.ZNAME DESC, t0.Z_PK LIMIT 3 OFFSET 1")
        #expect(try coordinator.sqlite.countSQL(plan).0
                == "SELECT COUNT(*) FROM (SELECT t0.Z_PK FROM ZPRODUCTS t0 WHERE t0.ZPRICE < ? ORDER BY t0.ZNAME DESC, t0.Z_PK LIMIT 3 OFFSET 1)")
    }

    /// The plan resolves the predicate's key paths once; the translator reads them from it.
    @Test func thePlanResolvesKeyPathsForTheTranslator() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeProductsModel())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.predicate = NSPredicate(format: "name BEGINSWITH 'a' AND price > 1")
        let plan = try FetchPlan(request, model: coordinator.managedObjectModel)
        #expect(plan.keyPaths.count == 2)
        var translator = PredicateTranslator(plan)
        _ = try translator.condition(try #require(plan.predicate))
        #expect(translator.keyPaths.count == 2)
    }
}
