import Foundation
import LiveTableKit
import OpenCoreDataTesting
import Testing

@Suite struct ConnectionTests {
    /// A connection that goes away and comes back gets a full snapshot (of the commits it missed), then
    /// deltas again.
    @Test func aReconnectGetsASnapshotThenDeltas() async throws {
        let fixture = try Fixture(count: 15)
        defer { fixture.cleanUp() }
        var rng = SeededRandom(seed: 5)
        let first = try await fixture.gate.open()
        for _ in 0..<5 { _ = await fixture.gate.submit(BackgroundWriters.randomMessage(ids: fixture.ids(), target: 15, rng: &rng)) }
        fixture.gate.close(first)   // the page left mid-stream
        for _ in 0..<5 { _ = await fixture.gate.submit(BackgroundWriters.randomMessage(ids: fixture.ids(), target: 15, rng: &rng)) }
        let again = try await fixture.gate.open()
        for _ in 0..<5 { _ = await fixture.gate.submit(BackgroundWriters.randomMessage(ids: fixture.ids(), target: 15, rng: &rng)) }
        let messages = await drain(again, fixture.gate)
        guard case .snapshot(let k, let sections)? = messages.first else { Issue.record("no snapshot first"); return }
        #expect(k == 10)
        #expect(sections.sameTable(as: try #require(fixture.gate.snapshot(10))))
        var model = TableModel()
        for m in messages { try model.apply(m) }
        #expect(messages.dropFirst().allSatisfy { if case .batch(let b) = $0 { b.commit > 10 } else { false } })
        #expect(model.sections.sameTable(as: fixture.store.freshTable()))
    }

    /// A message naming no row is answered with an error and changes nothing: no commit, the same
    /// table, the same store file.
    @Test func aBadMessageChangesNothing() async throws {
        let fixture = try Fixture(count: 8)
        defer { fixture.cleanUp() }
        let before = fixture.store.freshTable()
        let bogus = ["x-coredata://nope/Products/p1", "not a url", before[0].rows[0].id.replacingOccurrences(of: "/p", with: "/p9999")]
        for id in bogus {
            for message in [ClientMessage.delete(id: id, ref: 1), .edit(id: id, .init(price: 1), ref: 2)] {
                guard case .failure(let reply) = await fixture.gate.submit(message) else { Issue.record("accepted \(message)"); continue }
                #expect(reply.problem == "id")
                #expect(reply.ref == message.ref)
            }
        }
        // A good message in the same group as bad ones is still saved.
        async let good = fixture.gate.submit(.edit(id: before[0].rows[0].id, .init(price: 777), ref: nil))
        async let bad = fixture.gate.submit(.delete(id: "x-coredata://nope/Products/p1", ref: nil))
        let (goodResult, badResult) = await (good, bad)
        #expect((try? goodResult.get()) == 1)
        #expect((try? badResult.get()) == nil)
        #expect(fixture.gate.commit == 1)
        #expect(fixture.store.freshTable().flatMap(\.rows).first { $0.id == before[0].rows[0].id }?.price == 777)
    }

    @Test func theStoreFileIsUnchangedByRejectedMessages() async throws {
        let fixture = try Fixture(count: 8)
        defer { fixture.cleanUp() }
        let files = ["", "-wal"].map { fixture.url.path + $0 }
        let before = files.map { FileManager.default.contents(atPath: $0) }
        for text in ["{", #"{"type":"delete","id":"x-coredata://nope/Products/p1"}"#, #"{"type":"add","name":"","price":1,"category":"c"}"#] {
            switch MessageDecoder.decode(Array(text.utf8)) {
            case .failure: continue
            case .success(let m): if case .success = await fixture.gate.submit(m) { Issue.record("accepted \(text)") }
            }
        }
        #expect(files.map { FileManager.default.contents(atPath: $0) } == before)
    }

    /// A person's edit is checked against the row as it was when the edit began: a change saved since makes
    /// the edit's save a conflict (the merge policy's `NSMergeConflict`), which writes nothing and tells the
    /// page the current row; saving again then writes the person's values over it.
    @Test func anEditBegunBeforeAnotherSaveIsRefusedThenSavedKnowingly() async throws {
        let fixture = try Fixture(count: 6)
        defer { fixture.cleanUp() }
        let session = try await fixture.gate.open()
        let id = fixture.ids()[0]
        let begun = await withCheckedContinuation { done in fixture.gate.begin(id, in: session) { done.resume(returning: $0) } }
        #expect((try? begun.get()) == 0)
        #expect((try? await fixture.gate.submit(.edit(id: id, .init(price: 222), ref: nil)).get()) == 1)
        let refused = await withCheckedContinuation { done in
            fixture.gate.submit(.edit(id: id, .init(price: 111), ref: 7), from: session) { done.resume(returning: $0) }
        }
        guard case .failure(let reply) = refused else { Issue.record("the stale edit was saved"); return }
        #expect(reply.problem == "conflict" && reply.ref == 7)
        #expect(fixture.gate.commit == 1)
        #expect(fixture.store.freshTable().flatMap(\.rows).first { $0.id == id }?.price == 222)
        let again = await withCheckedContinuation { done in
            fixture.gate.submit(.edit(id: id, .init(price: 111), ref: 8), from: session) { done.resume(returning: $0) }
        }
        #expect((try? again.get()) == 2)
        #expect(fixture.store.freshTable().flatMap(\.rows).first { $0.id == id }?.price == 111)
        let sent = await drain(session, fixture.gate)
        let conflicts = sent.compactMap { if case .conflict(let c) = $0 { c } else { nil } }
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.current?.price == 222 && conflicts.first?.ref == 7)
    }

    /// A row deleted after the edit began: the save is refused and the conflict says the row is gone.
    @Test func anEditOfARowDeletedSinceIsRefused() async throws {
        let fixture = try Fixture(count: 6)
        defer { fixture.cleanUp() }
        let session = try await fixture.gate.open()
        let id = fixture.ids()[0]
        _ = await withCheckedContinuation { done in fixture.gate.begin(id, in: session) { done.resume(returning: $0) } }
        _ = await fixture.gate.submit(.delete(id: id, ref: nil))
        let refused = await withCheckedContinuation { done in
            fixture.gate.submit(.edit(id: id, .init(price: 5), ref: 3), from: session) { done.resume(returning: $0) }
        }
        #expect((try? refused.get()) == nil)
        #expect(fixture.store.freshTable().flatMap(\.rows).allSatisfy { $0.id != id })
        let sent = await drain(session, fixture.gate)
        let conflicts = sent.compactMap { if case .conflict(let c) = $0 { c } else { nil } }
        #expect(conflicts.count == 1 && conflicts.first?.current == nil)
    }
}
