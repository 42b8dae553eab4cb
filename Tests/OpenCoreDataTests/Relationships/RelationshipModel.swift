import Foundation
@testable import OpenCoreData

/// A small graph for the relationship tests: Animal ↔ Classification (to-one / to-many), Animal ↔ Zoo
/// (many-to-many), Playlist ↔ Song (ordered to-many), Owner → Pet (cascade), Vault → Item (deny),
/// Keeper → Tool (no action).
enum RelationshipModel {
    static func make(animalsRule: NSDeleteRule = .nullifyDeleteRule) -> NSManagedObjectModel {
        func entity(_ name: String, _ properties: [NSPropertyDescription]) -> NSEntityDescription {
            NSEntityDescription(name: name, properties: properties)
        }
        let string = { (name: String) in NSAttributeDescription(name: name, type: .stringAttributeType) }
        return NSManagedObjectModel(entities: [
            entity("Animal", [string("commonName"), string("habitat"),
                              NSRelationshipDescription(name: "classification", destination: "Classification", inverse: "animals"),
                              NSRelationshipDescription(name: "zoos", destination: "Zoo", inverse: "animals", toMany: true)]),
            entity("Classification", [string("order"), string("family"),
                                      NSRelationshipDescription(name: "animals", destination: "Animal", inverse: "classification", toMany: true, deleteRule: animalsRule)]),
            entity("Zoo", [string("name"),
                           NSRelationshipDescription(name: "animals", destination: "Animal", inverse: "zoos", toMany: true)]),
            entity("Playlist", [string("title"),
                                NSRelationshipDescription(name: "songs", destination: "Song", inverse: "playlist", toMany: true, ordered: true)]),
            entity("Song", [string("title"),
                            NSRelationshipDescription(name: "playlist", destination: "Playlist", inverse: "songs")]),
            entity("Owner", [string("name"),
                             NSRelationshipDescription(name: "pets", destination: "Pet", inverse: "owner", toMany: true, deleteRule: .cascadeDeleteRule)]),
            entity("Pet", [string("name"),
                           NSRelationshipDescription(name: "owner", destination: "Owner", inverse: "pets"),
                           NSRelationshipDescription(name: "toys", destination: "Toy", inverse: "pet", toMany: true, deleteRule: .cascadeDeleteRule)]),
            entity("Toy", [string("name"), NSRelationshipDescription(name: "pet", destination: "Pet", inverse: "toys")]),
            entity("Vault", [string("name"),
                             NSRelationshipDescription(name: "items", destination: "Item", inverse: "vault", toMany: true, deleteRule: .denyDeleteRule)]),
            entity("Item", [string("name"), NSRelationshipDescription(name: "vault", destination: "Vault", inverse: "items")]),
            entity("Keeper", [string("name"),
                              NSRelationshipDescription(name: "tools", destination: "Tool", inverse: "keeper", toMany: true, deleteRule: .noActionDeleteRule)]),
            entity("Tool", [string("name"), NSRelationshipDescription(name: "keeper", destination: "Keeper", inverse: "tools")]),
        ])
    }
}

extension NSManagedObjectContext {
    /// Inserts an object of `entity` with `values` set by key.
    @discardableResult
    func make(_ entity: String, _ values: [String: Any] = [:]) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: self)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }
}

extension NSManagedObject {
    /// The objects of a to-many relationship, by `value(forKey:)`.
    func set(_ key: String) -> Set<NSManagedObject> {
        Set((value(forKey: key) as! NSSet).allObjects.map { $0 as! NSManagedObject })
    }
    func string(_ key: String) -> String? { value(forKey: key) as? String }
}
