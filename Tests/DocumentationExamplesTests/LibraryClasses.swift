// doc: porting-classes-after
import OpenCoreData

public class Book: NSManagedObject {}

extension Book {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Book> {
        return NSFetchRequest<Book>(entityName: "Book")
    }

    @Managed public var title: String?
    @Managed public var genre: String?
    @Managed public var pages: Int32
    @Managed public var published: Date?
    @Managed public var author: Author?
}

public class Author: NSManagedObject {}

extension Author {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Author> {
        return NSFetchRequest<Author>(entityName: "Author")
    }

    @Managed public var name: String?
    @Managed public var books: NSSet?
}

// MARK: Generated accessors for books
extension Author {
    @ManagedAccessor public func addToBooks(_ value: Book)
    @ManagedAccessor public func removeFromBooks(_ value: Book)
    @ManagedAccessor public func addToBooks(_ values: NSSet)
    @ManagedAccessor public func removeFromBooks(_ values: NSSet)
}
// end-doc
