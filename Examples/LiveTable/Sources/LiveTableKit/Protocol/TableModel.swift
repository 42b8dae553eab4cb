/// The page's row model in Swift: the table a page shows, built from a snapshot and changed by batches
/// exactly as the page's script changes its DOM (the tests replay batches on it).
public struct TableModel: Equatable, Sendable {
    /// The sections and rows shown.
    public private(set) var sections: [SectionData] = []
    /// The commit the table shows.
    public private(set) var commit = 0

    /// An empty table (until a snapshot).
    public init() {}

    /// Applies a snapshot (replacing everything) or a batch; throws on a batch that does not fit the
    /// table (a position out of range), leaving the model as it was.
    public mutating func apply(_ message: ServerMessage) throws {
        switch message {
        case .snapshot(let k, let sections): (self.commit, self.sections) = (k, sections)
        case .batch(let batch): try apply(batch)
        case .error, .ack, .conflict, .writers: break
        }
    }

    /// UIKit's order: reloads and move sources are read in old coordinates; deleted rows and move sources
    /// leave in descending order, deleted sections after them; inserted sections and then rows and move
    /// targets arrive in ascending new coordinates.
    public mutating func apply(_ batch: Batch) throws {
        struct OutOfRange: Error {}
        var next = sections
        func check(_ p: Position) throws {
            guard p.section >= 0, p.section < sections.count, p.row >= 0, p.row < sections[p.section].rows.count else { throw OutOfRange() }
        }
        for r in batch.reloads { try check(r.at); next[r.at.section].rows[r.at.row] = r.row }
        for m in batch.moves { try check(m.from) }
        for p in batch.deleteRows { try check(p) }
        let leaving = (batch.deleteRows + batch.moves.map(\.from)).sorted(by: >)
        guard Set(leaving).count == leaving.count else { throw OutOfRange() }
        for p in leaving { next[p.section].rows.remove(at: p.row) }
        for s in batch.deleteSections.sorted(by: >) {
            guard s >= 0, s < next.count else { throw OutOfRange() }
            next.remove(at: s)
        }
        for s in batch.insertSections.sorted(by: { $0.index < $1.index }) {
            guard s.index >= 0, s.index <= next.count else { throw OutOfRange() }
            next.insert(SectionData(name: s.name, rows: []), at: s.index)
        }
        let arriving = (batch.insertRows.map { ($0.at, $0.row) } + batch.moves.map { ($0.to, $0.row) }).sorted { $0.0 < $1.0 }
        for (p, row) in arriving {
            guard p.section >= 0, p.section < next.count, p.row >= 0, p.row <= next[p.section].rows.count else { throw OutOfRange() }
            next[p.section].rows.insert(row, at: p.row)
        }
        sections = next
        commit = batch.commit
    }
}
