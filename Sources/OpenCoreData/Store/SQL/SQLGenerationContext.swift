import Foundation

/// What SQL generation collects besides the text: the table aliases handed out, the tables joined to
/// the fetched entity's, and the values bound to the placeholders, in placeholder order (values are
/// never spliced into SQL text).
///
/// The translator asks it for aliases and joins; a printer asks it to bind values. The fetched entity's
/// table is always ``rootAlias`` (`t0`); every other table of the statement — joined to it, or read by a
/// subquery — gets the next alias (`t1`, `t2`, …), so that no two tables of one statement share one.
package struct SQLGenerationContext {
    /// The alias of the fetched entity's table.
    static let rootAlias = "t0"

    /// The values of the placeholders printed so far, in order.
    private(set) var arguments: [Value] = []

    /// The tables joined to the fetched entity's table, in alias order: one per distinct relationship
    /// path (`classification`, `classification.kingdom`), printed after `FROM`.
    private(set) var joins: [SQLJoin] = []

    /// The relationship path of each join, by alias.
    private var joinedPaths: [[String]: String] = [:]

    /// Placeholders printed so far, bound now (``arguments``) or when the statement runs.
    private(set) var placeholderCount = 0

    /// Aliases handed out so far (`t0` not counted).
    private var aliasCount = 0

    /// The alias of the table reached through `relationshipPath` from the fetched entity: ``rootAlias``
    /// for the empty path (the entity itself), the join's alias for a path already joined.
    func alias(for relationshipPath: [String] = []) -> String? {
        if relationshipPath.isEmpty { return Self.rootAlias }
        return joinedPaths[relationshipPath]
    }

    /// A new alias, for a table of a subquery or a join.
    mutating func newAlias() -> String {
        aliasCount += 1
        return "t\(aliasCount)"
    }

    /// The alias for `relationshipPath`, joining `table` outer on `key` (the foreign key on the side
    /// already joined) if the path is not joined yet.
    mutating func join(_ relationshipPath: [String], table: String, key: SQLExpression) -> String {
        if let alias = alias(for: relationshipPath) { return alias }
        let alias = newAlias()
        joins.append(SQLJoin(kind: .leftOuter, table: table, alias: alias, key: key))
        joinedPaths[relationshipPath] = alias
        return alias
    }

    /// Binds `value` to the next placeholder; returns its 1-based position (for dialects that number
    /// placeholders, such as PostgreSQL's `$1`).
    mutating func bind(_ value: Value) -> Int {
        arguments.append(value)
        return placeholder()
    }

    /// The next placeholder, whose value the statement's runs bind; returns its 1-based position.
    mutating func placeholder() -> Int {
        placeholderCount += 1
        return placeholderCount
    }
}
