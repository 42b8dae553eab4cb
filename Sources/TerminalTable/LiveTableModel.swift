import Foundation
import OpenCoreData
import DemoModels

/// What a live table shows and how its keys edit it: the fetch request and section key path of its
/// fetched results controller, a row's text, and the edits behind the keys (and the background writer).
/// Each edit runs on the queue of the object's context.
///
/// Mirrors nothing in Core Data: it is the app's part of the demo.
public protocol LiveTableModel: Sendable {
    associatedtype Object: NSManagedObject
    /// The title line's name.
    var title: String { get }
    /// The controller's request (sorted first by the section key).
    func fetchRequest() -> NSFetchRequest<Object>
    /// The controller's `sectionNameKeyPath`.
    var sectionNameKeyPath: String { get }
    /// A row's text.
    func cell(_ object: Object) -> String
    /// The object in a sentence (the title line's save texts): by default its row's text without the
    /// table's padding.
    func summary(_ object: Object) -> String
    /// Inserts a new object (the `a` key).
    func insert(into context: NSManagedObjectContext, using random: inout SeededRandom) throws -> Object
    /// Renames an object (the `r` key).
    func rename(_ object: Object, using random: inout SeededRandom)
    /// Changes the object's second value (the `p` key): a product's price, an animal's classification.
    func reprice(_ object: Object, using random: inout SeededRandom)
    /// What the `p` key does, as the help line names it ("re-price", "next class").
    var secondValueChange: String { get }
}

extension LiveTableModel {
    /// "re-price".
    public var secondValueChange: String { "re-price" }

    /// The row's text with each run of spaces made one (`Milk 120 ₽`, not the column's `Milk      120 ₽`).
    public func summary(_ object: Object) -> String {
        cell(object).split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    /// One random change in `context` as the background writer makes them: an insert, a rename, a
    /// re-price or a delete (never leaving fewer than five objects). Returns what it did.
    func randomChange(in context: NSManagedObjectContext, using random: inout SeededRandom) throws -> String {
        let objects = try context.fetch(fetchRequest())
        let kind = objects.isEmpty ? 0 : random.int(0...3)
        if kind == 0 || (kind == 3 && objects.count <= 5) {
            let object = try insert(into: context, using: &random)
            return "insert \(summary(object))"
        }
        let object = random.pick(objects)
        let before = summary(object)
        switch kind {
        case 1: rename(object, using: &random)
        case 2: reprice(object, using: &random)
        default:
            context.delete(object)
            return "delete \(before)"
        }
        return "\(before) → \(summary(object))"
    }
}
