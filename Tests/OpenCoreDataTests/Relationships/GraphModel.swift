import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting

/// The object graph of the relationship differential test: Kingdom ← Classification ← Animal ↔ Zoo, with
/// numbers, strings and dates to compare. Entity numbers by name: Animal 1, Classification 2, Kingdom 3,
/// Zoo 4; Animal.zoos ↔ Zoo.animals is the join table `Z_1ZOOS (Z_1ANIMALS, Z_4ZOOS)`.
enum GraphModel {
    static func make() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription { NSAttributeDescription(name: name, type: type) }
        return NSManagedObjectModel(entities: [
            NSEntityDescription(name: "Kingdom", properties: [
                attribute("name", .stringAttributeType), attribute("age", .integer64AttributeType),
                NSRelationshipDescription(name: "classifications", destination: "Classification", inverse: "kingdom", toMany: true)]),
            NSEntityDescription(name: "Classification", properties: [
                attribute("order", .stringAttributeType), attribute("rank", .integer64AttributeType),
                NSRelationshipDescription(name: "kingdom", destination: "Kingdom", inverse: "classifications"),
                NSRelationshipDescription(name: "animals", destination: "Animal", inverse: "classification", toMany: true)]),
            NSEntityDescription(name: "Animal", properties: [
                attribute("name", .stringAttributeType), attribute("weight", .doubleAttributeType),
                attribute("legs", .integer64AttributeType), attribute("born", .dateAttributeType),
                NSRelationshipDescription(name: "classification", destination: "Classification", inverse: "animals"),
                NSRelationshipDescription(name: "zoos", destination: "Zoo", inverse: "animals", toMany: true)]),
            NSEntityDescription(name: "Zoo", properties: [
                attribute("name", .stringAttributeType), attribute("size", .integer64AttributeType),
                NSRelationshipDescription(name: "animals", destination: "Animal", inverse: "zoos", toMany: true)]),
        ])
    }

    static let strings = ["", "a", "A", "abc", "Bronx", "bronx", "Berlin", "café", "CAFE", "Колбаса", "колбаса", "straße", "zz", "ß"]

    /// A random graph: random values (some nil), random links (some nil to-ones, some empty to-manys).
    static func populate(_ context: NSManagedObjectContext, _ rng: inout SeededRandom, kingdoms: Int = 3, classifications: Int = 6,
                         animals: Int = 30, zoos: Int = 5) -> [String: [NSManagedObject]] {
        func maybe<T>(_ value: T) -> T? { rng.chance(0.12) ? nil : value }
        func string() -> String? { maybe(rng.pick(strings)) }
        func int(_ r: ClosedRange<Int>) -> Int? { maybe(rng.int(r)) }
        var made: [String: [NSManagedObject]] = [:]
        for _ in 0..<kingdoms {
            made["Kingdom", default: []].append(context.make("Kingdom", ["name": string() as Any, "age": int(0...5) as Any]))
        }
        for _ in 0..<classifications {
            let c = context.make("Classification", ["order": string() as Any, "rank": int(0...5) as Any])
            c.setValue(rng.chance(0.8) ? rng.pick(made["Kingdom"]!) : nil, forKey: "kingdom")
            made["Classification", default: []].append(c)
        }
        for _ in 0..<zoos {
            made["Zoo", default: []].append(context.make("Zoo", ["name": string() as Any, "size": int(0...5) as Any]))
        }
        for _ in 0..<animals {
            let a = context.make("Animal", ["name": string() as Any, "weight": maybe(Double(rng.int(-8...40)) / 4) as Any,
                                            "legs": int(0...6) as Any,
                                            "born": maybe(Date(timeIntervalSinceReferenceDate: Double(rng.int(0...6)) * 1000)) as Any])
            a.setValue(rng.chance(0.8) ? rng.pick(made["Classification"]!) : nil, forKey: "classification")
            let zoos = made["Zoo"]!
            a.mutableSetValue(forKey: "zoos").addObjects(from: (0..<rng.int(0...3)).map { _ in rng.pick(zoos) })
            made["Animal", default: []].append(a)
        }
        return made
    }
}
