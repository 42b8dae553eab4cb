import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Issue 32 B7 in fetches: a custom selector comparison is refused by the SQL store, naming the selector,
/// before any SQL runs; the fetched objects filter with it in memory. And `FUNCTION(x, 'length')` counts
/// UTF-16 units in SQL and in memory, as `NSString`'s `length` and the key `length` do.
@Suite("Custom selectors and length in fetches")
struct CustomSelectorFetchTests {
    @Test func customSelectorsAreRefusedBySQLAndRunInMemory() throws {
        let file = TemporaryStore()
        defer { file.cleanUp() }
        let context = try file.container().newBackgroundContext()
        try context.performAndWait {
            insertProducts(context, count: 40)
            try context.save()
            let store = try context.persistentStoreCoordinator!.firstStoreBackend()
            let before = store.queryCount
            let custom = NSComparisonPredicate(leftExpression: NSExpression(forKeyPath: "name"),
                                               rightExpression: NSExpression(forConstantValue: "Колбаса"),
                                               customSelector: Selector("hasPrefix:"))
            for predicate in [custom, NSCompoundPredicate(orPredicateWithSubpredicates: [NSPredicate(format: "price < 0"), custom])] {
                let request = NSFetchRequest<Products>(entityName: "Products")
                request.predicate = predicate
                #expect { try context.fetch(request) } throws: { error in
                    "\(error)".contains("the custom selector hasPrefix: in name hasPrefix: \"Колбаса\"")
                }
                #expect { try context.count(for: request) } throws: { "\($0)".contains("hasPrefix:") }
            }
            #expect(store.queryCount == before)
            let all = try context.fetch(NSFetchRequest<Products>(entityName: "Products"))
            #expect(all.filtered(using: custom).count == all.filter { $0.name?.hasPrefix("Колбаса") == true }.count)
            #expect(all.filtered(using: custom).count > 0)
        }
    }

    @Test func functionLengthCountsUTF16UnitsInSQLAndInMemory() throws {
        let file = TemporaryStore()
        defer { file.cleanUp() }
        let context = try file.container().newBackgroundContext()
        try context.performAndWait {
            // 😀 is one Character and two UTF-16 units, 🇫🇷 one Character and four units. (A decomposed
            // "e\u{301}" would not do: the store keeps strings in NFC, where it is one unit.)
            for name in ["😀", "🇫🇷", "ab", "Сыр", "é"] {
                let p = Products(context: context)
                p.name = name
                p.price = 1
            }
            try context.save()
            for format in ["FUNCTION(name, 'length') == 2", "length:(name) == 2", "name.length == 2"] {
                let request = NSFetchRequest<Products>(entityName: "Products")
                request.predicate = NSPredicate(format: format)
                let names = Set(try context.fetch(request).compactMap(\.name))
                #expect(names == ["😀", "ab"], "\(format)")
                let all = try context.fetch(NSFetchRequest<Products>(entityName: "Products"))
                #expect(Set(all.filtered(using: NSPredicate(format: format)).compactMap(\.name)) == names, "\(format) in memory")
            }
        }
    }
}
