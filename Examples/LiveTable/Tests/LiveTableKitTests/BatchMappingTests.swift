import Foundation
import LiveTableKit
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// The delegate-to-batch mapping: batches replayed on the page's row model and on a headless table view
/// with UIKit's rules equal, after every batch, the fresh fetch the gate kept for that batch's commit.
@Suite struct BatchMappingTests {
    /// Applies the messages to a row model, checking each batch against its commit's snapshot; returns
    /// the final model.
    private func replay(_ messages: [ServerMessage], _ gate: WriteGate, seed: UInt64) throws -> TableModel {
        var model = TableModel()
        var batches = 0
        for m in messages {
            try model.apply(m)
            if case .batch(let b) = m {
                batches += 1
                let expected = try #require(gate.snapshot(b.commit), "no snapshot for commit \(b.commit)")
                #expect(model.sections.sameTable(as: expected), "seed \(seed): after batch \(b.seq) (commit \(b.commit))")
            }
        }
        #expect(batches > 0)
        return model
    }

    /// A headless UITableView driven the way a table view controller's delegate drives it (a move as a
    /// delete and an insert, as the seeds do), its data source the snapshot of the batch's commit.
    private func replayOnTableView(_ messages: [ServerMessage], _ gate: WriteGate, seed: UInt64) throws {
        guard case .snapshot(_, let first)? = messages.first else { Issue.record("no snapshot first"); return }
        var source = first
        func cell(_ p: IndexPath) -> String { let r = source[p.section].rows[p.row]; return "\(r.id)|\(r.name)|\(r.price)" }
        let table = HeadlessTableView(numberOfSections: { source.count }, numberOfRows: { source[$0].rows.count }, cell: cell)
        for case .batch(let b) in messages {
            source = try #require(gate.snapshot(b.commit))
            table.beginUpdates()
            table.deleteSections(IndexSet(b.deleteSections), with: .fade)
            table.insertSections(IndexSet(b.insertSections.map(\.index)), with: .fade)
            table.deleteRows(at: (b.deleteRows + b.moves.map(\.from)).map { IndexPath(row: $0.row, section: $0.section) }, with: .fade)
            table.insertRows(at: (b.insertRows.map(\.at) + b.moves.map(\.to)).map { IndexPath(row: $0.row, section: $0.section) }, with: .fade)
            table.reloadRows(at: b.reloads.map { IndexPath(row: $0.at.row, section: $0.at.section) }, with: .none)
            table.endUpdates()
            #expect(table.errors.isEmpty, "seed \(seed), batch \(b.seq): \(table.errors)")
            let expected = source.map { $0.rows.map { "\($0.id)|\($0.name)|\($0.price)" } }
            #expect(table.rows == expected, "seed \(seed), batch \(b.seq): a stale or misplaced cell")
            if !table.errors.isEmpty || table.rows != expected { return }
        }
    }

    @Test(arguments: [UInt64(11), 12, 13])
    func seededRandomEditsOneByOne(seed: UInt64) async throws {
        let fixture = try Fixture(count: 12, seed: seed)
        defer { fixture.cleanUp() }
        let session = try await fixture.gate.open()
        var rng = SeededRandom(seed: seed)
        for _ in 0..<60 {
            let message = BackgroundWriters.randomMessage(ids: fixture.ids(), target: 12, rng: &rng)
            if case .failure(let reply) = await fixture.gate.submit(message) { Issue.record("seed \(seed): \(reply)") }
        }
        let messages = await drain(session, fixture.gate)
        let model = try replay(messages, fixture.gate, seed: seed)
        try replayOnTableView(messages, fixture.gate, seed: seed)
        #expect(model.sections.sameTable(as: fixture.store.freshTable()))
        #expect(model.commit == fixture.gate.commit)
    }

    /// Many messages at once: the gate saves what waits as one commit, and a batch carries several changes.
    @Test(arguments: [UInt64(21), 22])
    func concurrentEditsGroupedIntoCommits(seed: UInt64) async throws {
        let fixture = try Fixture(count: 20, seed: seed)
        defer { fixture.cleanUp() }
        let session = try await fixture.gate.open()
        var rng = SeededRandom(seed: seed)
        for _ in 0..<6 {
            let ids = fixture.ids()
            let round = (0..<15).map { _ in BackgroundWriters.randomMessage(ids: ids, target: 20, rng: &rng) }
            await withTaskGroup(of: Void.self) { group in
                for m in round { group.addTask { _ = await fixture.gate.submit(m) } }
            }
        }
        #expect(fixture.gate.commit < 90)
        let messages = await drain(session, fixture.gate)
        let model = try replay(messages, fixture.gate, seed: seed)
        try replayOnTableView(messages, fixture.gate, seed: seed)
        #expect(model.sections.sameTable(as: fixture.store.freshTable()))
    }

    /// Emptying a section deletes it; a new category inserts one: the batches carry section changes.
    @Test func sectionsComeAndGo() async throws {
        let fixture = try Fixture(count: 6)
        defer { fixture.cleanUp() }
        let session = try await fixture.gate.open()
        let added = await fixture.gate.submit(.add(.init(name: "Квас", price: 3, category: "Аааа"), ref: nil))
        #expect((try? added.get()) != nil)
        let id = try #require(fixture.store.freshTable().first { $0.name == "Аааа" }?.rows.first?.id)
        _ = await fixture.gate.submit(.edit(id: id, .init(category: "Яяяя"), ref: nil))
        _ = await fixture.gate.submit(.delete(id: id, ref: nil))
        let messages = await drain(session, fixture.gate)
        let batches = messages.compactMap { if case .batch(let b) = $0 { b } else { nil } }
        #expect(batches.count == 3)
        #expect(batches.first?.insertSections.map(\.name) == ["Аааа"])
        #expect(batches.dropFirst().first?.deleteSections == [0])
        #expect(batches.last?.deleteSections.count == 1)
        _ = try replay(messages, fixture.gate, seed: 0)
        try replayOnTableView(messages, fixture.gate, seed: 0)
    }
}
