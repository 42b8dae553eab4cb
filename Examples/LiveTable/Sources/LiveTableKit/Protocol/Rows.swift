import Foundation

/// One product row as the page shows it: the object ID's URI, the name and the price.
public struct RowData: Codable, Equatable, Hashable, Sendable {
    /// `NSManagedObjectID.uriRepresentation()`, as a string.
    public var id: String
    /// The `name` attribute.
    public var name: String
    /// The `price` attribute (Integer 32).
    public var price: Int
    /// The `category` attribute, the section's name (empty when nil).
    public var category: String

    /// A row with these values.
    public init(id: String, name: String, price: Int, category: String) {
        self.id = id
        self.name = name
        self.price = price
        self.category = category
    }
}

/// One section of the table: its name (the category) and its rows in order.
public struct SectionData: Codable, Equatable, Sendable {
    /// `NSFetchedResultsSectionInfo.name`.
    public var name: String
    /// The section's rows, in the controller's order.
    public var rows: [RowData]

    /// A section with these rows.
    public init(name: String, rows: [RowData]) {
        self.name = name
        self.rows = rows
    }
}

/// A table position in UIKit's terms: `[section, row]` on the wire.
public struct Position: Codable, Equatable, Hashable, Comparable, Sendable {
    /// `IndexPath.section`.
    public var section: Int
    /// `IndexPath.row`.
    public var row: Int

    /// The position of an index path.
    public init(_ indexPath: IndexPath) { self.init(section: indexPath.section, row: indexPath.row) }
    /// A position.
    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    public init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        section = try c.decode(Int.self)
        row = try c.decode(Int.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(section)
        try c.encode(row)
    }

    public static func < (a: Position, b: Position) -> Bool { (a.section, a.row) < (b.section, b.row) }
}

extension [SectionData] {
    /// Whether two tables show the same thing, up to the order of rows that tie on every sort key
    /// (category, name, price): Core Data leaves that order undefined, so a fresh fetch may differ there.
    public func sameTable(as other: [SectionData]) -> Bool {
        guard map(\.name) == other.map(\.name) else { return false }
        return zip(self, other).allSatisfy { a, b in
            a.rows.map { [$0.name, String($0.price)] } == b.rows.map { [$0.name, String($0.price)] }
                && a.rows.sorted(by: Self.byKeysThenID) == b.rows.sorted(by: Self.byKeysThenID)
        }
    }

    private static func byKeysThenID(_ a: RowData, _ b: RowData) -> Bool {
        (a.name, a.price, a.id) < (b.name, b.price, b.id)
    }
}
