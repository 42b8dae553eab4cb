import Foundation

/// Mirrors Core Data's `NSFetchedResultsController<ResultType>`: fetches once, groups into sections, and
/// (with a delegate) keeps its results current from the context's processed changes — its own edits
/// after `processPendingChanges()`, its saves, merges from other contexts — telling the delegate which
/// sections and rows changed. It tracks changes without refetching (docs/FetchedResults.md says when it queries).
///
/// Three modes, as in Core Data: no delegate (no tracking), a delegate (memory tracking), a delegate and
/// a `cacheName` (sections loaded from a cache file when it still matches the request and the store;
/// docs/FetchedResults.md, ``deleteCache(withName:)``).
open class NSFetchedResultsController<ResultType>: NSObject, @unchecked Sendable {
    let core: FetchedResultsCore
    private let typedRequest: NSFetchRequest<ResultType>?

    /// Mirrors `init(fetchRequest:managedObjectContext:sectionNameKeyPath:cacheName:)`. The controller keeps
    /// `fetchRequest` itself, not a copy: as Core Data documents, do not modify the request after this
    /// (to change it, delete the cache, modify it, and call `performFetch()` again).
    public init(fetchRequest: NSFetchRequest<ResultType>, managedObjectContext context: NSManagedObjectContext,
                sectionNameKeyPath: String?, cacheName name: String?) {
        self.core = FetchedResultsCore(request: fetchRequest, context: context, sectionNameKeyPath: sectionNameKeyPath, cacheName: name)
        self.typedRequest = fetchRequest
        super.init()
        core.titleProvider = { [weak self] name in self?.sectionIndexTitle(forSectionName: name) }
    }

    /// The type-erased view handed to delegates.
    init(core: FetchedResultsCore) {
        self.core = core
        self.typedRequest = nil
        super.init()
    }

    /// Mirrors `fetchRequest`.
    public var fetchRequest: NSFetchRequest<ResultType> {
        if let typedRequest { return typedRequest }
        let copy = NSFetchRequest<ResultType>(entityName: core.request.entityName ?? "")
        copy.predicate = core.request.predicate
        copy.sortDescriptors = core.request.sortDescriptors
        copy.fetchLimit = core.request.fetchLimit
        copy.fetchOffset = core.request.fetchOffset
        return copy
    }
    /// Mirrors `managedObjectContext`.
    public var managedObjectContext: NSManagedObjectContext { core.context }
    /// Mirrors `sectionNameKeyPath`.
    public var sectionNameKeyPath: String? { core.sectionNameKeyPath }
    /// Mirrors `cacheName`.
    public var cacheName: String? { core.cacheName }
    /// Mirrors `delegate` (held weakly, as in Core Data).
    public weak var delegate: NSFetchedResultsControllerDelegate? {
        get { core.delegate }
        set { core.delegate = newValue }
    }

    /// Mirrors `performFetch()`. Throws if the request has no sort descriptors, or if the objects are not
    /// sorted by section name (Core Data's error 134060 and message).
    open func performFetch() throws { try core.performFetch() }

    /// Mirrors `fetchedObjects` (`nil` before `performFetch()`).
    public var fetchedObjects: [ResultType]? {
        core.sections.map { $0.flatMap { $0.entries.map { $0.object as! ResultType } } }
    }

    /// Mirrors `object(at:)`. An index path outside the results (negative indexes included, or before
    /// `performFetch()`) is a programming error and traps with Core Data's `NSRangeException` reason
    /// ("no object at index 5 in section at index 0", "no section at index 2"), as Core Data raises (its
    /// Swift signature cannot throw).
    public func object(at indexPath: IndexPath) -> ResultType {
        if let screen = core.firstScreen {
            if let object = screen.object(at: indexPath) { return object as! ResultType }
            if let message = Self.outOfRangeMessage(indexPath, objectCounts: screen.sections.map(\.numberOfObjects)) {
                preconditionFailure("NSFetchedResultsController.object(at:): " + message)
            }
        }
        let sections = core.sections
        if let message = Self.outOfRangeMessage(indexPath, objectCounts: sections?.map(\.entries.count)) {
            preconditionFailure("NSFetchedResultsController.object(at:): " + message)
        }
        return sections![indexPath.section].entries[indexPath.row].object as! ResultType
    }

    /// Why `indexPath` names no object of sections holding `objectCounts` objects (`nil`: not fetched
    /// yet), or `nil` when it names one.
    static func outOfRangeMessage(_ indexPath: IndexPath, objectCounts: [Int]?) -> String? {
        guard indexPath.count == 2 else {
            return "\(indexPath) is not an index path of a section and a row"
        }
        let section = indexPath.section, row = indexPath.row
        guard let objectCounts else { return "no section at index \(section) (performFetch() has not run)" }
        guard objectCounts.indices.contains(section) else {
            return "no section at index \(section) (\(objectCounts.count) sections)"
        }
        guard row >= 0 && row < objectCounts[section] else {
            return "no object at index \(row) in section at index \(section) (\(objectCounts[section]) objects)"
        }
        return nil
    }

    /// Mirrors `indexPath(forObject:)`.
    public func indexPath(forObject object: ResultType) -> IndexPath? {
        guard let managed = object as? NSManagedObject else { return nil }
        return core.indexPath(of: managed)
    }

    /// Mirrors `sections`.
    /// With `fetchBatchSize` (and no `fetchLimit`/`fetchOffset`) the sections' names, index titles and
    /// sizes are known before the objects past the first batch are read (docs/FetchedResults.md).
    public var sections: [NSFetchedResultsSectionInfo]? { core.firstScreen?.sections ?? core.sections }

    /// Mirrors `sectionIndexTitles`: each section's index title, once, in section order.
    open var sectionIndexTitles: [String] {
        var seen = Set<String>()
        return (sections ?? []).compactMap { $0.indexTitle }.filter { seen.insert($0).inserted }
    }

    /// Mirrors `sectionIndexTitle(forSectionName:)`: the capitalized first letter of the name. Override it
    /// (or implement the delegate method) for other titles.
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        sectionName.first.map { String($0).uppercased() }
    }

    /// Mirrors `section(forSectionIndexTitle:at:)`: the first section with that index title.
    open func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        sections?.firstIndex { $0.indexTitle == title } ?? sectionIndex
    }

    /// Mirrors `deleteCache(withName:)`: removes one cache file, or all of them for `nil`.
    public class func deleteCache(withName name: String?) {
        FetchedResultsCache.delete(name)
    }
}
