import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// `NSFetchRequest.havingPredicate`: the condition on the groups of a `propertiesToGroupBy` dictionary
/// fetch, naming grouped keys and the expression descriptions of `propertiesToFetch` (`$count > 1`, as
/// Core Data's examples write it, or `count > 1`), printed as SQL `HAVING` with its values bound.
@Suite("havingPredicate")
struct HavingPredicateTests {
    /// `count:(name)` named `count`, `sum:(price)` named `total`.
    static func expressions() -> (count: NSExpressionDescription, total: NSExpressionDescription) {
        let count = NSExpressionDescription()
        count.name = "count"
        count.expression = NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "name")])
        count.expressionResultType = .integer64AttributeType
        let total = NSExpressionDescription()
        total.name = "total"
        total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "price")])
        total.expressionResultType = .integer64AttributeType
        return (count, total)
    }

    /// Products grouped by name with their count and total price, filtered by `having`.
    static func request(having: NSPredicate?) -> NSFetchRequest<NSDictionary> {
        let (count, total) = expressions()
        let request = NSFetchRequest<NSDictionary>(entityName: "Products")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["name", count, total]
        request.propertiesToGroupBy = ["name"]
        request.havingPredicate = having
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        return request
    }

    static func sql(_ request: NSFetchRequest<NSDictionary>) throws -> (String, [Value]) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: makeProductsModel())
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        let plan = try FetchPlan(request, model: coordinator.managedObjectModel)
        let columns = try DictionaryFetch(plan: plan, request: request).resolve().columns
        return try coordinator.sqlite.columnsSQL(plan, columns)
    }

    @Test func havingPrintsAfterGroupByWithItsValuesBound() throws {
        let request = Self.request(having: NSPredicate(format: "$count > %d AND total <= %d", 1, 1500))
        request.predicate = NSPredicate(format: "price >= %d", 100)
        let (text, arguments) = try Self.sql(request)
        #expect(text == "SELECT t0.ZNAME, COUNT(t0.ZNAME), SUM(t0.ZPRICE) FROM ZPRODUCTS t0 WHERE t0.ZPRICE >= ? GROUP BY t0.ZNAME HAVING (COUNT(t0.ZNAME) > ? AND SUM(t0.ZPRICE) <= ?) ORDER BY t0.ZNAME")
        #expect(arguments == [.int(100), .int(1), .int(1500)])
    }

    /// A grouped key, an expression description's name written as a key path, and a variable given as
    /// an `NSExpression` argument (`%@` with `NSExpression(forVariable:)`).
    @Test func namesAsKeyPathsAndVariables() throws {
        let grouped = try Self.sql(Self.request(having: NSPredicate(format: "name != %@ OR count == 2", "Сыр")))
        #expect(grouped.0.hasSuffix("GROUP BY t0.ZNAME HAVING (t0.ZNAME IS NOT ? OR COUNT(t0.ZNAME) = ?) ORDER BY t0.ZNAME"))
        #expect(grouped.1 == [.string("Сыр"), .int(2)])
        let variable = NSPredicate(format: "%@ > 3", argumentArray: [NSExpression(forVariable: "count")])
        let (text, arguments) = try Self.sql(Self.request(having: variable))
        #expect(text.contains(" HAVING COUNT(t0.ZNAME) > ? "))
        #expect(arguments == [.int(3)])
    }

    /// Seeded random products; the fetch's groups against the same groups computed in Swift.
    @Test(arguments: [UInt64(1), 7, 2026])
    func resultsMatchGroupsComputedInSwift(seed: UInt64) throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().viewContext
        let products = insertProducts(context, count: 60, seed: seed)
        try context.save()
        var groups: [String: (count: Int, total: Int)] = [:]
        for p in products { groups[p.name!, default: (0, 0)].count += 1; groups[p.name!]!.total += Int(p.price) }
        // Thresholds from the data: the median count, and the largest total (its group is left out).
        let minimum = groups.values.map(\.count).sorted()[groups.count / 2], ceiling = groups.values.map(\.total).max()!
        let expected = groups.filter { $0.value.count >= minimum && $0.value.total < ceiling }
            .map { "\($0.key) \($0.value.count) \($0.value.total)" }.sorted()
        let request = Self.request(having: NSPredicate(format: "$count >= %d AND total < %d", minimum, ceiling))
        let fetched = try context.fetch(request).map { d in
            "\(d["name"] as! String) \((d["count"] as! NSNumber).intValue) \((d["total"] as! NSNumber).intValue)"
        }.sorted()
        #expect(fetched == expected, "seed \(seed): having count >= \(minimum) AND total < \(ceiling)")
        #expect(!expected.isEmpty && expected.count < groups.count, "seed \(seed): the thresholds keep some groups and drop others")
    }

    @Test func havingWithoutGroupByIsRefused() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().viewContext
        insertProducts(context, count: 5)
        try context.save()
        let request = Self.request(having: NSPredicate(format: "$count > 1"))
        request.propertiesToGroupBy = nil
        let error = #expect(throws: CoreDataError.self) { try context.fetch(request) }
        #expect(error?.message.contains("havingPredicate requires propertiesToGroupBy") == true)
        #expect(error?.message.contains("Products") == true)
        #expect(try context.count(for: NSFetchRequest<Products>(entityName: "Products")) == 5)
    }

    @Test func keysNeitherGroupedNorFetchedAreRefused() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().viewContext
        let error = #expect(throws: CoreDataError.self) {
            try context.fetch(Self.request(having: NSPredicate(format: "price > 1")))
        }
        #expect(error?.message.contains("keypath price in the havingPredicate of a fetch of entity Products") == true)
        #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "price")
        let variable = #expect(throws: CoreDataError.self) {
            try context.fetch(Self.request(having: NSPredicate(format: "$average > 1")))
        }
        #expect(variable?.message.contains("keypath average") == true)
        for format in ["ANY name == 'a'", "count:(price) > 1", "SUBQUERY(name, $x, $x == 'a').@count > 0"] {
            let refused = #expect(throws: CoreDataError.self) { try context.fetch(Self.request(having: NSPredicate(format: format))) }
            #expect(refused?.message.contains("unsupported in the havingPredicate of a fetch of entity Products") == true, "\(format)")
        }
    }
}
