import Foundation

/// Mirrors Core Data's `NSFetchedResultsSectionInfo`.
public protocol NSFetchedResultsSectionInfo {
    /// Mirrors `name`: the section's value of `sectionNameKeyPath` (`""` for nil).
    var name: String { get }
    /// Mirrors `indexTitle`.
    var indexTitle: String? { get }
    /// Mirrors `numberOfObjects`.
    var numberOfObjects: Int { get }
    /// Mirrors `objects`.
    var objects: [Any]? { get }
}

/// One section: its name, index title and objects in sort order, with the sort keys each object was
/// placed by (so that its old position is found by binary search after its values changed). A value:
/// the sections handed to the delegate as the old state never change under it.
struct FetchedSection: NSFetchedResultsSectionInfo {
    let name: String
    let indexTitle: String?
    var entries: [FetchedEntry]

    var numberOfObjects: Int { entries.count }
    var objects: [Any]? { entries.map(\.object) }
}

/// An object with the values that place it: section name, sort key values, and the tiebreak the store
/// uses (`Z_PK`, then insertion order for unsaved objects).
struct FetchedEntry {
    let object: NSManagedObject
    let section: String
    let keys: [Value]
    let tiebreak: Int64
}
