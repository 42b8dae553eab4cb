import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Seeded random batch updates, deletes and inserts on seed 000's Products (with its subentity
/// FavoriteProducts) against a plain reference model: after every request the store holds what the
/// reference holds, and the request's count is the reference's.
@Suite("Batch requests, seeded random")
struct BatchRequestRandomTests {
    struct Row: Hashable, Comparable {
        var entity: String
        var name: String
        var price: Int
        static func < (a: Row, b: Row) -> Bool { (a.entity, a.name, a.price) < (b.entity, b.name, b.price) }
    }

    /// A predicate and the same condition in Swift.
    struct Condition {
        let predicate: NSPredicate?
        let matches: (Row) -> Bool
    }

    static func condition(_ rng: inout SeededRandom) -> Condition {
        let bound = rng.int(0...1000), low = rng.int(0...500), high = rng.int(500...1000)
        let name = rng.pick(SeedModel.productNames)
        switch rng.int(0...4) {
        case 0: return Condition(predicate: NSPredicate(format: "price < %d", bound)) { $0.price < bound }
        case 1: return Condition(predicate: NSPredicate(format: "name BEGINSWITH %@", "К")) { $0.name.hasPrefix("К") }
        case 2: return Condition(predicate: NSPredicate(format: "price BETWEEN {%d, %d}", low, high)) { $0.price >= low && $0.price <= high }
        case 3: return Condition(predicate: NSPredicate(format: "name == %@ OR price > %d", name, bound)) { $0.name == name || $0.price > bound }
        default: return Condition(predicate: nil) { _ in true }
        }
    }

    func storeRows(_ container: NSPersistentContainer) throws -> [Row] {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            try context.fetch(NSFetchRequest<Products>(entityName: "Products")).map {
                Row(entity: $0.entity.name!, name: $0.name ?? "", price: Int($0.price))
            }.sorted()
        }
    }

    @Test("Random batch requests leave the store equal to the reference model", arguments: [1, 2, 3, 4] as [UInt64])
    func randomRequests(seed: UInt64) throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container()
        var rng = SeededRandom(seed: seed)
        var reference: [Row] = []
        let context = container.viewContext
        for step in 0..<40 {
            let entity = rng.chance(0.3) ? "FavoriteProducts" : "Products"
            let subentities = rng.chance(0.7)
            func targets(_ row: Row) -> Bool { row.entity == entity || (subentities && entity == "Products") }
            let count: Int
            var expected = reference
            switch step == 0 ? 2 : rng.int(0...2) {
            case 0:
                let condition = Self.condition(&rng)
                let request = NSBatchUpdateRequest(entityName: entity)
                request.predicate = condition.predicate
                request.includesSubentities = subentities
                request.resultType = .updatedObjectsCountResultType
                let k = rng.int(-50...50), constant = rng.int(0...999), newName = rng.pick(SeedModel.productNames)
                let kind = rng.int(0...2)
                request.propertiesToUpdate = kind == 0 ? ["price": NSExpression(format: "price + %d", k)]
                    : kind == 1 ? ["price": constant] : ["name": newName, "price": NSExpression(format: "price")]
                count = ((try context.execute(request) as! NSBatchUpdateResult).result as! NSNumber).intValue
                let hits = expected.indices.filter { targets(expected[$0]) && condition.matches(expected[$0]) }
                for i in hits {
                    switch kind {
                    case 0: expected[i].price += k
                    case 1: expected[i].price = constant
                    default: expected[i].name = newName
                    }
                }
                #expect(count == hits.count, "seed \(seed) step \(step): update count")
            case 1:
                let condition = Self.condition(&rng)
                let fetch = NSFetchRequest<any NSFetchRequestResult>(entityName: entity)
                fetch.predicate = condition.predicate
                fetch.includesSubentities = subentities
                let request = NSBatchDeleteRequest(fetchRequest: fetch)
                request.resultType = .resultTypeCount
                count = ((try context.execute(request) as! NSBatchDeleteResult).result as! NSNumber).intValue
                let before = expected.count
                expected.removeAll { targets($0) && condition.matches($0) }
                #expect(count == before - expected.count, "seed \(seed) step \(step): delete count")
            default:
                let rows = (0..<rng.int(1...30)).map { _ in Row(entity: entity, name: rng.pick(SeedModel.productNames), price: rng.int(0...999)) }
                let request = NSBatchInsertRequest(entityName: entity, objects: rows.map { ["name": $0.name, "price": $0.price] })
                request.resultType = .count
                count = ((try context.execute(request) as! NSBatchInsertResult).result as! NSNumber).intValue
                expected += rows
                #expect(count == rows.count, "seed \(seed) step \(step): insert count")
            }
            reference = expected.sorted()
            let actual = try storeRows(container)
            #expect(actual == reference, "seed \(seed) step \(step): the store differs from the reference")
            if actual != reference { return }
        }
    }
}
