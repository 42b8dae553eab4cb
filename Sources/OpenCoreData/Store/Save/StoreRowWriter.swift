import Foundation

/// The row operations a store offers the save algorithm (``StoreSave``), inside one transaction of its
/// own: the store decides how rows, keys and relationships are written; the algorithm decides what is
/// written, in which order, and what a conflict becomes.
package protocol StoreRowWriter {
    /// Whether inserted rows must be written after the updates and deletes: a store that checks unique
    /// indexes as it writes lets a new object take a constrained value another object gives up (or a
    /// deleted row held) in the same save.
    var insertsLast: Bool { get }
    /// Reserves `count` consecutive primary keys of a hierarchy; returns the first.
    mutating func reserveKeys(root: Int, count: Int) throws -> Int64
    /// Writes a new row under `pk` at `version`, its to-ones as keys (``KeyResolver``); not its
    /// relationships' other rows (``writeRelationships(_:pk:values:old:keys:)``).
    mutating func insert(_ layout: EntityLayout, pk: Int64, values: [Value], version: Int64, keys: KeyResolver) throws
    /// Writes the rows a row's relationships keep elsewhere (join rows, ordered positions), from `old`
    /// (`nil`: a new row) to `values`.
    mutating func writeRelationships(_ layout: EntityLayout, pk: Int64, values: [Value], old: [Value]?, keys: KeyResolver) throws
    /// Writes `slots` of a row and its new version if the row is at version `expected`; false if it is not
    /// (changed or gone since).
    mutating func update(_ layout: EntityLayout, pk: Int64, slots: [Int], values: [Value], newVersion: Int64, expected: Int64,
                         keys: KeyResolver) throws -> Bool
    /// Deletes a row if it is at `version`; false if it is not (changed or gone since). Its relationships'
    /// other rows stay (``deleteRelationships(_:pks:)``).
    mutating func delete(_ layout: EntityLayout, pk: Int64, version: Int64) throws -> Bool
    /// Deletes the rows that deleted rows of one entity keep elsewhere through their relationships (join
    /// rows), for all of `pks` at once.
    mutating func deleteRelationships(_ layout: EntityLayout, pks: [Int64]) throws
    /// The row as the transaction sees it now, `nil` if it is gone.
    mutating func currentRow(root: Int, pk: Int64) throws -> StoreRow?
    /// Runs once everything is written: the store recomputes what it derives (derived attributes) into
    /// the outcome.
    mutating func finish(_ outcome: inout StoreSaveOutcome) throws
}

/// Primary keys of the objects a save's rows name: saved rows by their key, objects inserted by this
/// save by the key it gave them. Naming an unsaved object that this save does not insert is an error.
package struct KeyResolver {
    let inserted: KeyRenaming

    func primaryKey(_ ref: ObjectRef, layout: EntityLayout, slot: Int) throws -> Int64 {
        if let pk = ref.key.primaryKey ?? inserted[ref.key]?.primaryKey { return pk }
        throw CoreDataError(NSManagedObjectValidationError,
                            "Dangling reference to an invalid object: \(layout.properties[slot].entity?.name ?? "?").\(layout.properties[slot].name) names an object that is not saved and not inserted in this context.",
                            userInfo: [NSValidationKeyErrorKey: layout.properties[slot].name])
    }
}
