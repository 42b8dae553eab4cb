import Foundation

/// Mirrors UIKit/AppKit's `NSDiffableDataSourceSnapshot` (Linux has neither): section identifiers and,
/// per section, item identifiers, plus the items to reload.
public struct NSDiffableDataSourceSnapshot<SectionIdentifierType: Hashable, ItemIdentifierType: Hashable> {
    private var sections: [(SectionIdentifierType, [ItemIdentifierType])] = []
    /// Mirrors `reloadedItemIdentifiers`.
    public private(set) var reloadedItemIdentifiers: [ItemIdentifierType] = []

    /// Mirrors `init()`.
    public init() {}

    /// Mirrors `numberOfSections`.
    public var numberOfSections: Int { sections.count }
    /// Mirrors `numberOfItems`.
    public var numberOfItems: Int { sections.reduce(0) { $0 + $1.1.count } }
    /// Mirrors `sectionIdentifiers`.
    public var sectionIdentifiers: [SectionIdentifierType] { sections.map(\.0) }
    /// Mirrors `itemIdentifiers`.
    public var itemIdentifiers: [ItemIdentifierType] { sections.flatMap(\.1) }

    /// Mirrors `numberOfItems(inSection:)`.
    public func numberOfItems(inSection identifier: SectionIdentifierType) -> Int { itemIdentifiers(inSection: identifier).count }
    /// Mirrors `itemIdentifiers(inSection:)`.
    public func itemIdentifiers(inSection identifier: SectionIdentifierType) -> [ItemIdentifierType] {
        sections.first { $0.0 == identifier }?.1 ?? []
    }
    /// Mirrors `sectionIdentifier(containingItem:)`.
    public func sectionIdentifier(containingItem identifier: ItemIdentifierType) -> SectionIdentifierType? {
        sections.first { $0.1.contains(identifier) }?.0
    }
    /// Mirrors `indexOfItem(_:)`.
    public func indexOfItem(_ identifier: ItemIdentifierType) -> Int? { itemIdentifiers.firstIndex(of: identifier) }

    /// Mirrors `appendSections(_:)`.
    public mutating func appendSections(_ identifiers: [SectionIdentifierType]) {
        sections += identifiers.map { ($0, []) }
    }
    /// Mirrors `appendItems(_:toSection:)` (to the last section when `nil`).
    public mutating func appendItems(_ identifiers: [ItemIdentifierType], toSection sectionIdentifier: SectionIdentifierType? = nil) {
        guard let index = sectionIdentifier.flatMap({ id in sections.firstIndex { $0.0 == id } }) ?? (sections.isEmpty ? nil : sections.count - 1) else {
            preconditionFailure("appendItems: no section to append to")
        }
        sections[index].1 += identifiers
    }
    /// Mirrors `reloadItems(_:)`.
    public mutating func reloadItems(_ identifiers: [ItemIdentifierType]) { reloadedItemIdentifiers += identifiers }
    /// Mirrors `reconfigureItems(_:)` (treated as a reload).
    public mutating func reconfigureItems(_ identifiers: [ItemIdentifierType]) { reloadedItemIdentifiers += identifiers }
}

/// Mirrors `NSDiffableDataSourceSnapshotReference`, what Core Data hands the snapshot delegate method:
/// section names (`String`) and object IDs.
public final class NSDiffableDataSourceSnapshotReference: NSObject, @unchecked Sendable {
    let snapshot: NSDiffableDataSourceSnapshot<String, NSManagedObjectID>
    init(_ snapshot: NSDiffableDataSourceSnapshot<String, NSManagedObjectID>) {
        self.snapshot = snapshot
        super.init()
    }
    /// Mirrors `numberOfItems`.
    public var numberOfItems: Int { snapshot.numberOfItems }
    /// Mirrors `numberOfSections`.
    public var numberOfSections: Int { snapshot.numberOfSections }
    /// Mirrors `sectionIdentifiers` (section names).
    public var sectionIdentifiers: [Any] { snapshot.sectionIdentifiers }
    /// Mirrors `itemIdentifiers` (object IDs).
    public var itemIdentifiers: [Any] { snapshot.itemIdentifiers }
}

extension NSDiffableDataSourceSnapshot where SectionIdentifierType == String, ItemIdentifierType == NSManagedObjectID {
    /// The typed snapshot of a reference: on Darwin `snapshot as NSDiffableDataSourceSnapshot<String,
    /// NSManagedObjectID>`; Linux has no `as` bridging, so write this instead.
    public init(_ reference: NSDiffableDataSourceSnapshotReference) { self = reference.snapshot }
}
