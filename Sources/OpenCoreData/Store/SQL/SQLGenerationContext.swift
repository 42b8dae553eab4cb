import Foundation

/// What SQL generation collects besides the text: the table alias of each entity a condition reads, and
/// the values bound to the placeholders, in placeholder order (values are never spliced into SQL text).
///
/// The translator asks it for aliases; a printer asks it to bind values. The fetched entity's table is
/// always ``rootAlias`` (`t0`).
///
/// Joins plug in here (wave 2): a key path through a relationship (`owner.name`) will call
/// ``join(_:)``, which records a join to the destination table under the next alias (`t1`, `t2`, …,
/// one per distinct relationship path); `SELECT` generation then prints ``joins`` after `FROM`.
struct SQLGenerationContext {
    /// The alias of the fetched entity's table.
    static let rootAlias = "t0"

    /// The values of the placeholders printed so far, in order.
    private(set) var arguments: [Value] = []

    /// The relationship paths joined so far, in alias order (`t1` is the first); empty until wave 2.
    private(set) var joins: [[String]] = []

    /// The alias of the table reached through `relationshipPath` from the fetched entity: ``rootAlias``
    /// for the empty path (the entity itself), the join's alias for a path already joined.
    func alias(for relationshipPath: [String] = []) -> String? {
        if relationshipPath.isEmpty { return Self.rootAlias }
        return joins.firstIndex(of: relationshipPath).map { "t\($0 + 1)" }
    }

    /// The alias for `relationshipPath`, joining it if it is not joined yet. Placeholder for wave 2:
    /// nothing calls it with a non-empty path before relationships reach the translator.
    mutating func join(_ relationshipPath: [String]) -> String {
        if let alias = alias(for: relationshipPath) { return alias }
        joins.append(relationshipPath)
        return "t\(joins.count)"
    }

    /// Binds `value` to the next placeholder; returns its 1-based position (for dialects that number
    /// placeholders, such as PostgreSQL's `$1`).
    mutating func bind(_ value: Value) -> Int {
        arguments.append(value)
        return arguments.count
    }
}
