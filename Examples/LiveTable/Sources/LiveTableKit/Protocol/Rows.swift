import Foundation

/// One product row as the page shows it: the object ID's URI, the name and the price.
public struct RowData: Codable, Equatable, Hashable, Sendable {
    /// `NSManagedObjectID.uriRepresentation()`, as a string.
    public var id: String
    public var name: String
    public var price: Int
    public var category: String

    public init(id: String, name: String, price: Int, category: String) {
        self.id = id
        self.name = name
        self.price = price
        self.category = category
    }
}

/// One section of the table: its name (the category) and its rows in order.
public struct SectionData: Codable, Equatable, Sendable {
    public var name: String
    public var rows: [RowData]

    public init(name: String, rows: [RowData]) {
        self.name = name
        self.rows = rows
    }
}

/// A table position in UIKit's terms: `[section, row]` on the wire.
public struct Position: Codable, Equatable, Hashable, Comparable, Sendable {
    public var section: Int
    public var row: Int

    public init(_ indexPath: IndexPath) { self.init(section: indexPath.section, row: indexPath.row) }
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
