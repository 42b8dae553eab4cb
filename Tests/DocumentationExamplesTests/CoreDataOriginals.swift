// Core Data's side of the porting article's before/after pairs: the code an Apple-platform app has
// before the port. Kept here so that the snippet check (SnippetTests) holds the article to it; it is
// parsed but never compiled (APPLE_CORE_DATA is defined nowhere: Linux has no Core Data, and Linux Swift
// rejects `@objc`, `#keyPath`, `#selector` and key-value observing). Each "after" is compiled and run
// in PortingExamples.swift.
#if APPLE_CORE_DATA

// doc: porting-classes-before
import CoreData

@objc(Book)
public class Book: NSManagedObject {}

extension Book {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Book> {
        return NSFetchRequest<Book>(entityName: "Book")
    }

    @NSManaged public var title: String?
    @NSManaged public var genre: String?
    @NSManaged public var pages: Int32
    @NSManaged public var published: Date?
    @NSManaged public var author: Author?
}

// MARK: Generated accessors for books
extension Author {
    @objc(addBooksObject:)
    @NSManaged public func addToBooks(_ value: Book)
}
// end-doc

// doc: porting-keyvalue-before
extension Book {
    @objc public var titleInitial: String { String((title ?? "?").prefix(1)) }
}
// end-doc

func keyPathBefore(context: NSManagedObjectContext) throws {
    // doc: porting-keypath-before
    let request: NSFetchRequest<Book> = Book.fetchRequest()
    request.predicate = NSPredicate(format: "%K == %@", #keyPath(Book.genre), "Fantasy")
    request.sortDescriptors = [NSSortDescriptor(key: #keyPath(Book.title), ascending: true)]
    // end-doc
}

func castBefore(context: NSManagedObjectContext) throws {
    // doc: porting-cast-before
    let request: NSFetchRequest<Book> = Book.fetchRequest() as! NSFetchRequest<NSDictionary>
    request.resultType = .dictionaryResultType
    request.propertiesToFetch = ["title", "pages"]
    let rows = try context.fetch(request)
    // end-doc
}

class SaveWatcher: NSObject {
    let viewContext: NSManagedObjectContext

    init(viewContext: NSManagedObjectContext, background: NSManagedObjectContext) {
        self.viewContext = viewContext
        super.init()
        // doc: porting-selector-before
        NotificationCenter.default.addObserver(self, selector: #selector(contextDidSave(_:)),
                                               name: .NSManagedObjectContextDidSave, object: background)
        // end-doc
    }

    // doc: porting-selector-handler-before
    @objc func contextDidSave(_ notification: Notification) {
        viewContext.perform { self.viewContext.mergeChanges(fromContextDidSave: notification) }
    }
    // end-doc
}

func observationBefore(book: Book, fetch: NSFetchRequest<Book>, context: NSManagedObjectContext) throws {
    // doc: porting-kvo-before
    let titleObservation = book.observe(\.title, options: [.new]) { book, change in
        print("retitled:", change.newValue ?? nil)
    }
    let asynchronousFetch = NSAsynchronousFetchRequest(fetchRequest: fetch) { result in
        print("fetched", result.finalResult?.count ?? 0)
    }
    let result = try context.execute(asynchronousFetch) as! NSAsynchronousFetchResult<Book>
    let progressObservation = result.progress?.observe(\.completedUnitCount) { progress, _ in
        print("fetched so far:", progress.completedUnitCount)
    }
    // end-doc
}

// doc: porting-required-before
final class LabelledContainer: NSPersistentContainer {
    let label: String

    init(name: String, managedObjectModel model: NSManagedObjectModel, label: String) {
        self.label = label
        super.init(name: name, managedObjectModel: model)
    }
}
// end-doc

// doc: porting-generic-archive-before
func archive<T: NSObject & NSSecureCoding>(_ value: T) throws -> Data {
    try NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
}

func unarchive<T: NSObject & NSSecureCoding>(_ type: T.Type, from data: Data) throws -> T? {
    try NSKeyedUnarchiver.unarchivedObject(ofClass: type, from: data)
}
// end-doc

#endif
