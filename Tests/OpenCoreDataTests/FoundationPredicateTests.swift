import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Issue #35, item 2: `NSPredicate(_:)` of a Foundation `#Predicate`. Each predicate runs four ways over
/// seeded random rows — converted, in SQL and in memory; Foundation's own evaluation of the `Predicate`;
/// and its format-string twin in SQL — and all four select the same objects.
@Suite struct FoundationPredicateTests {
    typealias Case<T: NSManagedObject> = (name: String, predicate: Predicate<T>, format: String)

    static let limit: Int32 = 500
    static let prefix = "Колбаса"

    static var productCases: [Case<Products>] {
        let limit = Self.limit, prefix = Self.prefix
        let same = ComparisonResult.orderedSame, ascending = ComparisonResult.orderedAscending, descending = ComparisonResult.orderedDescending
        return [
            // Foundation on Linux has no string expressions for these: OpenCoreData provides Apple's.
            ("localizedStandardContains", #Predicate<Products> { ($0.name ?? "").localizedStandardContains("КОЛ") }, "name CONTAINS[cd] 'КОЛ'"),
            ("caseInsensitiveCompare ==", #Predicate<Products> { ($0.name ?? "").caseInsensitiveCompare("сЫр") == same }, "name ==[c] 'сЫр'"),
            ("caseInsensitiveCompare !=", #Predicate<Products> { ($0.name ?? "").caseInsensitiveCompare("сЫр") != same }, "name !=[c] 'сЫр'"),
            ("caseInsensitiveCompare <", #Predicate<Products> { $0.name.flatMap { $0.caseInsensitiveCompare("м") == ascending } == true }, "name <[c] 'м'"),
            ("caseInsensitiveCompare >", #Predicate<Products> { $0.name.flatMap { descending == $0.caseInsensitiveCompare("М") } == true }, "name >[c] 'М'"),
            ("comparison", #Predicate<Products> { $0.price < 300 }, "price < 300"),
            ("captured value", #Predicate<Products> { $0.price >= limit }, "price >= 500"),
            ("and, or, not", #Predicate<Products> { ($0.price > 100 && $0.price < 200) || !($0.price < 900) }, "(price > 100 AND price < 200) OR NOT price < 900"),
            ("equality", #Predicate<Products> { $0.name == "Сыр" }, "name == 'Сыр'"),
            ("not nil", #Predicate<Products> { $0.name != nil }, "name != nil"),
            ("contains", #Predicate<Products> { ($0.name ?? "").contains("ло") }, "name CONTAINS 'ло'"),
            ("flatMap", #Predicate<Products> { $0.name.flatMap { $0.starts(with: prefix) } == true }, "name BEGINSWITH 'Колбаса'"),
            ("optional ?? false", #Predicate<Products> { $0.name?.starts(with: "М") ?? false }, "name BEGINSWITH 'М'"),
            ("arithmetic", #Predicate<Products> { ($0.price + 2) * 3 > 1500 }, "(price + 2) * 3 > 1500"),
            ("subtraction", #Predicate<Products> { $0.price - 100 < 0 }, "price - 100 < 0"),
            ("conditional", #Predicate<Products> { $0.price > 500 ? $0.name == "Сыр" : $0.name == "Масло" },
             "(price > 500 AND name == 'Сыр') OR (price <= 500 AND name == 'Масло')"),
            ("string count", #Predicate<Products> { ($0.name ?? "").count > 5 }, "length:(name) > 5"),
        ]
    }

    static var animalCases: [Case<Animal>] {
        [
            ("to-one key path", #Predicate<Animal> { $0.classification?.family == "Atelidae" }, "classification.family == 'Atelidae'"),
            ("contains(where:)", #Predicate<Animal> { $0.zoos.contains(where: { $0.name == "San Diego Zoo" }) }, "ANY zoos.name == 'San Diego Zoo'"),
            ("allSatisfy", #Predicate<Animal> { $0.zoos.allSatisfy { ($0.name ?? "").contains("Zoo") && $0.name != "Lowry Park Zoo" } },
             "SUBQUERY(zoos, $z, NOT ($z.name CONTAINS 'Zoo' AND $z.name != 'Lowry Park Zoo')).@count == 0"),
            ("to-many count", #Predicate<Animal> { $0.zoos.count >= 2 }, "zoos.@count >= 2"),
            ("filter count", #Predicate<Animal> { $0.zoos.filter { $0.name != "San Diego Zoo" }.count == 1 },
             "SUBQUERY(zoos, $z, $z.name != 'San Diego Zoo').@count == 1"),
            ("set contains", #Predicate<Animal> { ["Primate Exhibit", "Aquatic Mammals Exhibit"].contains($0.habitat ?? "") }, "habitat IN {'Primate Exhibit', 'Aquatic Mammals Exhibit'}"),
        ]
    }

    func check<T: NSManagedObject>(_ cases: [Case<T>], entity: String, _ context: NSManagedObjectContext, seed: UInt64) throws {
        let all = try context.fetch(NSFetchRequest<T>(entityName: entity))
        for (name, predicate, format) in cases {
            let converted = try #require(NSPredicate(predicate), "\(name) converts (seed \(seed))")
            let request = NSFetchRequest<T>(entityName: entity)
            request.predicate = converted
            let inSQL = Set(try context.fetch(request).map(\.objectID))
            let inMemory = Set(all.filter { converted.evaluate(with: $0) }.map(\.objectID))
            let bySwift = Set(try all.filter { try predicate.evaluate($0) }.map(\.objectID))
            request.predicate = NSPredicate(format: format)
            let byFormat = Set(try context.fetch(request).map(\.objectID))
            #expect(inSQL == bySwift, "\(name): SQL vs Swift (\(converted.predicateFormat)), seed \(seed)")
            #expect(inMemory == bySwift, "\(name): memory vs Swift, seed \(seed)")
            #expect(byFormat == bySwift, "\(name): format twin vs Swift, seed \(seed)")
        }
    }

    @Test(arguments: [UInt64(1), 7, 2026])
    func predicatesRunAlikeInSQLInMemoryAndInSwift(seed: UInt64) throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().viewContext
        SeedModel.insertProducts(context, count: 60, seed: seed)
        try context.save()
        try check(Self.productCases, entity: "Products", context, seed: seed)
    }

    @Test func relationshipPredicatesRunAlike() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(ZooModel.make()).viewContext
        ZooModel.seed(context)
        try context.save()
        try check(Self.animalCases, entity: "Animal", context, seed: 0)
    }

    @Test func theConvertedTreeIsTheFormatStringsTree() throws {
        let limit = Self.limit
        let converted = try #require(NSPredicate(#Predicate<Products> { $0.price < limit && $0.name != nil }))
        #expect(converted.predicateFormat == "price < 500 AND name != nil")
        let toOne = try #require(NSPredicate(#Predicate<Animal> { $0.classification?.order == "Primates" }))
        #expect(toOne.predicateFormat == "classification.order == \"Primates\"")
        let search = "cafe"
        let contains = try #require(NSPredicate(#Predicate<Products> { ($0.name ?? "").localizedStandardContains(search) }))
        #expect(contains.predicateFormat == "TERNARY(name != nil, name, \"\") CONTAINS[cd] \"cafe\"")
        let same = ComparisonResult.orderedSame
        let equal = try #require(NSPredicate(#Predicate<Products> { $0.name.flatMap { $0.caseInsensitiveCompare("Сыр") != same } == true }))
        #expect(equal.predicateFormat == "name != nil AND name !=[c] \"Сыр\"")
    }

    /// Apple's string expressions evaluate in Swift as the string methods do.
    @Test func stringExpressionsEvaluateAsTheStringMethods() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let product = Products(context: try store.container().viewContext)
        product.name = "Café au Lait"
        let same = ComparisonResult.orderedSame, ascending = ComparisonResult.orderedAscending
        #expect(try #Predicate<Products> { ($0.name ?? "").localizedStandardContains("CAFE AU") }.evaluate(product))
        #expect(try !#Predicate<Products> { ($0.name ?? "").localizedStandardContains("thé") }.evaluate(product))
        #expect(try #Predicate<Products> { ($0.name ?? "").caseInsensitiveCompare("CAFÉ AU LAIT") == same }.evaluate(product))
        #expect(try #Predicate<Products> { ($0.name ?? "").localizedCompare("Zebra") == ascending }.evaluate(product))
        // No store orders by the current locale: localizedCompare has no NSPredicate form.
        #expect(NSPredicate(#Predicate<Products> { ($0.name ?? "").localizedCompare("Zebra") == ascending }) == nil)
    }

    @Test func whatDoesNotConvertIsNil() {
        // A computed Swift property is no modeled key: nil, as Core Data returns for what it cannot convert.
        #expect(NSPredicate(#Predicate<Animal> { $0.description == "x" }) == nil)
        #expect(NSPredicate(#Predicate<Products> { $0.isFault }) == nil)
        // A type that is not a managed object class has no modeled keys.
        #expect(NSPredicate(#Predicate<PlainObject> { $0.count > 1 }) == nil)
    }
}

final class PlainObject: NSObject {
    var count = 0
}
