import Foundation

/// Mirrors Core Data's `NSFetchedResultsChangeType`, with Apple's raw values.
public enum NSFetchedResultsChangeType: UInt, Sendable {
    case insert = 1
    case delete = 2
    case move = 3
    case update = 4
}

extension IndexPath {
    /// Mirrors UIKit's `IndexPath(row:section:)`, which Linux lacks.
    public init(row: Int, section: Int) { self.init(indexes: [section, row]) }
    /// Mirrors UIKit's `IndexPath(item:section:)`.
    public init(item: Int, section: Int) { self.init(indexes: [section, item]) }
    /// Mirrors UIKit's `IndexPath.row`.
    public var row: Int { self[1] }
    /// Mirrors UIKit's `IndexPath.item`.
    public var item: Int { self[1] }
    /// Mirrors UIKit's `IndexPath.section`.
    public var section: Int { self[0] }
}
