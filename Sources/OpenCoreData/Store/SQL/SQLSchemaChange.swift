import Foundation

/// A statement that makes or changes the schema, as a value independent of the database that runs it:
/// an entity hierarchy's table and its indexes, a join table, the Z tables, history's tables. A dialect's
/// printer renders it with its own type map (``SQLColumnType``).
package enum SQLSchemaChange: Hashable {
    case createTable(SQLCreateTable)
    case createIndex(SQLCreateIndex)
    case dropTable(String, ifExists: Bool = false)
    case dropIndex(String, ifExists: Bool = false)
    /// `ALTER TABLE table ADD COLUMN …`.
    case addColumn(table: String, SQLColumnDefinition)
}

/// What kind of value a column holds, as Core Data declares it; each dialect maps it to a type of its own
/// (SQLite: Core Data's declared types, `INTEGER`, `FLOAT`, `TIMESTAMP`, `VARCHAR`, `BLOB`, …).
package enum SQLColumnType: Hashable {
    case integer
    /// A double or a float.
    case float
    case decimal
    /// A date, as seconds since 2001-01-01 (Core Data's reference date).
    case timestamp
    /// A string, at most `length` characters long where one is given.
    case varchar(length: Int?)
    case blob
    /// No declared type: the column keeps what it is given (SQLite: no affinity, so −0.0 stays −0.0).
    case untyped

    /// The column type Core Data declares for an attribute of `type`; nil for a composite, which has no
    /// column of its own (each element has one).
    init?(_ type: NSAttributeType) {
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType: self = .integer
        case .decimalAttributeType: self = .decimal
        case .doubleAttributeType, .floatAttributeType: self = .float
        case .dateAttributeType: self = .timestamp
        case .stringAttributeType, .URIAttributeType: self = .varchar(length: nil)
        case .binaryDataAttributeType, .UUIDAttributeType, .transformableAttributeType, .undefinedAttributeType, .objectIDAttributeType:
            self = .blob
        case .compositeAttributeType: return nil
        }
    }
}

/// One column of a `CREATE TABLE` or an `ADD COLUMN`.
package struct SQLColumnDefinition: Hashable {
    var name: String
    var type: SQLColumnType
    /// The table's one-column primary key (`Z_PK INTEGER PRIMARY KEY`).
    var isPrimaryKey = false

    init(_ name: String, _ type: SQLColumnType, primaryKey: Bool = false) {
        self.name = name
        self.type = type
        self.isPrimaryKey = primaryKey
    }
}

/// `CREATE TABLE name ( columns…[, PRIMARY KEY (…)] )`.
package struct SQLCreateTable: Hashable {
    var name: String
    var columns: [SQLColumnDefinition]
    /// A primary key of several columns (a join table's pair), as a table constraint.
    var primaryKey: [String] = []
    var ifNotExists = false
    /// Whether the column list is written with a space inside its parentheses: Core Data writes its
    /// entity, join and history tables that way and `Z_PRIMARYKEY`, `Z_METADATA` without, and the SQLite
    /// printer keeps each as Core Data writes it, so that `sqlite_master` reads the same.
    var padded = true
}

/// `CREATE [UNIQUE] INDEX name ON table (columns…) [WHERE condition]`.
package struct SQLCreateIndex: Hashable {
    /// One indexed column, with Core Data's `COLLATE BINARY ASC|DESC` where the index declares an order
    /// (fetch indexes, uniqueness constraints); nil for the store's own indexes, which name the column only.
    package struct Column: Hashable {
        var name: String
        var ascending: Bool?

        init(_ name: String, ascending: Bool? = nil) {
            self.name = name
            self.ascending = ascending
        }
    }

    var name: String
    var table: String
    var columns: [Column]
    var unique = false
    var ifNotExists = false
    /// A partial index's condition, columns named bare and values as ``SQLExpression/constant(_:)``.
    var condition: SQLExpression? = nil
}
