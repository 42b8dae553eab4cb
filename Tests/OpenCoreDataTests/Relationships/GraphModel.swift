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
                attribute("name", .stringAttributeType), attribute("capacity", .integer64AttributeType),
                NSRelationshipDescription(name: "animals", destination: "Animal", inverse: "zoos", toMany: true)]),
        ])
    }

    static let strings = ["", "a", "A", "abc", "Bronx", "bronx", "Berlin", "café", "CAFE", "Колбаса", "колбаса", "straße", "zz", "ß"]

    /// The attributes of each entity.
    static let attributes = ["Kingdom": ["name", "age"], "Classification": ["order", "rank"], "Animal": ["name", "weight", "legs", "born"],
                             "Zoo": ["name", "capacity"]]

    /// A random value for an attribute (nil sometimes).
    static func value(_ attribute: String, _ rng: inout SeededRandom) -> Any? {
        if rng.chance(0.12) { return nil }
        switch attribute {
        case "name", "order": return rng.pick(strings)
        case "weight": return Double(rng.int(-8...40)) / 4
        case "legs": return rng.int(0...6)
        case "born": return Date(timeIntervalSinceReferenceDate: Double(rng.int(0...6)) * 1000)
        default: return rng.int(0...5)
        }
    }

    /// A new object of `entity` with random values and random links to `existing` objects (some nil
    /// to-ones, some empty to-manys).
    @discardableResult
    static func insert(_ entity: String, _ context: NSManagedObjectContext, _ rng: inout SeededRandom,
                       _ existing: [String: [NSManagedObject]]) -> NSManagedObject {
        let object = context.make(entity)
        for attribute in attributes[entity]! { object.setValue(value(attribute, &rng), forKey: attribute) }
        link(object, &rng, existing)
        return object
    }

    /// Sets an object's to-ones (nil sometimes) and, for an animal, its zoos, at random.
    static func link(_ object: NSManagedObject, _ rng: inout SeededRandom, _ existing: [String: [NSManagedObject]]) {
        func pick(_ entity: String) -> NSManagedObject? {
            guard let candidates = existing[entity]?.filter({ !$0.isDeleted }), !candidates.isEmpty, rng.chance(0.8) else { return nil }
            return rng.pick(candidates)
        }
        switch object.entity.name {
        case "Classification": object.setValue(pick("Kingdom"), forKey: "kingdom")
        case "Animal":
            object.setValue(pick("Classification"), forKey: "classification")
            object.setValue(Set((0..<rng.int(0...3)).compactMap { _ in pick("Zoo") }), forKey: "zoos")
        default: break
        }
    }

    /// A random graph: random values (some nil), random links (some nil to-ones, some empty to-manys).
    static func populate(_ context: NSManagedObjectContext, _ rng: inout SeededRandom, kingdoms: Int = 3, classifications: Int = 6,
                         animals: Int = 30, zoos: Int = 5) -> [String: [NSManagedObject]] {
        var made: [String: [NSManagedObject]] = [:]
        for (entity, count) in [("Kingdom", kingdoms), ("Classification", classifications), ("Zoo", zoos), ("Animal", animals)] {
            for _ in 0..<count { made[entity, default: []].append(insert(entity, context, &rng, made)) }
        }
        return made
    }
}
