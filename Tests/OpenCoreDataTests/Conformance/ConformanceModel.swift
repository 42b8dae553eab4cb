import Foundation
import OpenCoreData

/// The conformance suite's model, built in code: `Author` (name required) with the to-many `books`
/// (cascade) ↔ `Book` (title, pages, price, published, cover, author); `Tag` (code unique, label).
/// Version 2 adds the optional `Book.subtitle`, for a lightweight migration.
enum ConformanceModel {
    static func make(version: Int = 1) -> NSManagedObjectModel {
        let author = NSEntityDescription(name: "Author", properties: [
            NSAttributeDescription(name: "name", type: .stringAttributeType, optional: false),
            NSRelationshipDescription(name: "books", destination: "Book", inverse: "author", toMany: true, deleteRule: .cascadeDeleteRule),
        ])
        var bookProperties: [NSPropertyDescription] = [
            NSAttributeDescription(name: "title", type: .stringAttributeType),
            NSAttributeDescription(name: "pages", type: .integer64AttributeType, optional: false, defaultValue: 0),
            NSAttributeDescription(name: "price", type: .decimalAttributeType),
            NSAttributeDescription(name: "rating", type: .doubleAttributeType),
            NSAttributeDescription(name: "inPrint", type: .booleanAttributeType),
            NSAttributeDescription(name: "published", type: .dateAttributeType),
            NSAttributeDescription(name: "cover", type: .binaryDataAttributeType),
            NSAttributeDescription(name: "isbn", type: .UUIDAttributeType),
            NSRelationshipDescription(name: "author", destination: "Author", inverse: "books", maxCount: 1),
        ]
        if version >= 2 { bookProperties.append(NSAttributeDescription(name: "subtitle", type: .stringAttributeType)) }
        let book = NSEntityDescription(name: "Book", properties: bookProperties)
        let tag = NSEntityDescription(name: "Tag", properties: [
            NSAttributeDescription(name: "code", type: .stringAttributeType),
            NSAttributeDescription(name: "label", type: .stringAttributeType),
        ])
        tag.uniquenessConstraints = [["code"]]
        return NSManagedObjectModel(entities: [author, book, tag])
    }

    /// Inserts an author with books of the given titles (pages 100, 200, …).
    @discardableResult
    static func author(_ name: String, books titles: [String], in context: NSManagedObjectContext) -> NSManagedObject {
        let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
        author.setValue(name, forKey: "name")
        for (i, title) in titles.enumerated() {
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            book.setValue(title, forKey: "title")
            book.setValue((i + 1) * 100, forKey: "pages")
            book.setValue(author, forKey: "author")
        }
        return author
    }

    /// Inserts a tag.
    @discardableResult
    static func tag(_ code: String, _ label: String, in context: NSManagedObjectContext) -> NSManagedObject {
        let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
        tag.setValue(code, forKey: "code")
        tag.setValue(label, forKey: "label")
        return tag
    }

    /// A fetch request of `entity`, sorted by `key` when given.
    static func request(_ entity: String, _ format: String? = nil, sortedBy key: String? = nil) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        if let format { request.predicate = NSPredicate(format: format) }
        if let key { request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)] }
        return request
    }

    /// The values of `key` of the objects of `entity`, sorted by `key`.
    static func values(_ entity: String, _ key: String, in context: NSManagedObjectContext) throws -> [String] {
        try context.fetch(request(entity, sortedBy: key)).map { "\($0.value(forKey: key) ?? "nil")" }
    }

    /// Seeds two authors (Ada: three books, Grace: one) and saves.
    static func seedAuthors(_ context: NSManagedObjectContext) throws {
        try context.performAndWait { () throws in
            author("Ada", books: ["Notes", "Sketch", "Engine"], in: context)
            author("Grace", books: ["Compiler"], in: context)
            try context.save()
        }
    }
}
