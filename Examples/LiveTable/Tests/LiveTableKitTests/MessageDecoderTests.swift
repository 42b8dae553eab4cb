import Foundation
import LiveTableKit
import OpenCoreDataTesting
import Testing

@Suite struct MessageDecoderTests {
    private func decode(_ text: String) -> Result<ClientMessage, ErrorReply> { MessageDecoder.decode(Array(text.utf8)) }

    private func problem(_ text: String) -> String? {
        if case .failure(let reply) = decode(text) { return reply.problem }
        return nil
    }

    @Test func wellFormedMessagesDecode() throws {
        #expect(try decode(#"{"type":"add","name":"Сыр","price":12,"category":"Сыры","ref":3}"#).get()
                == .add(.init(name: "Сыр", price: 12, category: "Сыры"), ref: 3))
        #expect(try decode(#"{"type":"edit","id":"x-coredata://A/Products/p1","fields":{"price":5}}"#).get()
                == .edit(id: "x-coredata://A/Products/p1", .init(price: 5), ref: nil))
        #expect(try decode(#"{"type":"delete","id":"x-coredata://A/Products/p1"}"#).get() == .delete(id: "x-coredata://A/Products/p1", ref: nil))
    }

    @Test func thePagesControlMessagesDecode() throws {
        #expect(try decode(#"{"type":"begin","id":"x-coredata://A/Products/p1","ref":4}"#).get() == .begin(id: "x-coredata://A/Products/p1", ref: 4))
        #expect(try decode(#"{"type":"end","id":"x-coredata://A/Products/p1"}"#).get() == .end(id: "x-coredata://A/Products/p1"))
        #expect(try decode(#"{"type":"writers","running":false}"#).get() == .writers(running: false))
        #expect(try decode(#"{"type":"view","sort":"price","ascending":false,"search":"кеф"}"#).get()
                == .view(.init(sort: "price", ascending: false, search: "кеф")))
        #expect(try decode(#"{"type":"view"}"#).get() == .view(.init()))
        #expect(problem(#"{"type":"view","sort":"Z_PK"}"#) == "field")
        #expect(problem(#"{"type":"writers"}"#) == "field")
        #expect(problem(#"{"type":"begin"}"#) == "id")
    }

    @Test func messagesRoundTripThroughTheirJSON() throws {
        let messages: [ClientMessage] = [.add(.init(name: "a\"b", price: 0, category: "c"), ref: 1),
                                         .edit(id: "x-coredata://S/Products/p2", .init(name: "n", category: "k"), ref: nil),
                                         .delete(id: "x-coredata://S/Products/p3", ref: 9), .begin(id: "x-coredata://S/Products/p4", ref: 2),
                                         .end(id: "x-coredata://S/Products/p4"), .writers(running: true),
                                         .view(.init(sort: "price", ascending: false, search: "сыр"))]
        for m in messages { #expect(try decode(m.json()).get() == m) }
    }

    @Test func malformedMessagesGetTheirProblemNamed() {
        #expect(problem("") == "json")
        #expect(problem("not json") == "json")
        #expect(problem("[1,2]") == "json")
        #expect(problem(#"{"name":"x"}"#) == "type")
        #expect(problem(#"{"type":"drop","id":"x"}"#) == "type")
        #expect(problem(#"{"type":"add","name":"x","price":1}"#) == "field")
        #expect(problem(#"{"type":"add","name":"x","price":1.5,"category":"c"}"#) == "field")
        #expect(problem(#"{"type":"add","name":"x","price":"1","category":"c"}"#) == "field")
        #expect(problem(#"{"type":"add","name":"   ","price":1,"category":"c"}"#) == "field")
        #expect(problem(#"{"type":"add","name":"x","price":-1,"category":"c"}"#) == "field")
        #expect(problem(#"{"type":"add","name":"x","price":99999999999999999999,"category":"c"}"#) == "field")
        #expect(problem(#"{"type":"edit","id":"x","fields":{}}"#) == "field")
        #expect(problem(#"{"type":"edit","fields":{"price":1}}"#) == "id")
        #expect(problem(#"{"type":"delete"}"#) == "id")
        #expect(problem("{\"type\":\"add\",\"name\":\"\(String(repeating: "x", count: 101))\",\"price\":1,\"category\":\"c\"}") == "field")
        #expect(problem(String(repeating: " ", count: MessageDecoder.maxSize + 1)) == "size")
    }

    @Test func theRefOfABadMessageComesBack() {
        guard case .failure(let reply) = decode(#"{"type":"add","name":"","price":1,"category":"c","ref":42}"#) else {
            Issue.record("accepted a blank name")
            return
        }
        #expect(reply.ref == 42)
    }

    /// Seeded random bytes and mutations of good messages: the decoder answers every one, a message or
    /// an error, and never traps. Rerun a failure with its seed.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func fuzz(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        let good = [#"{"type":"add","name":"Сыр","price":12,"category":"Сыры","ref":3}"#,
                    #"{"type":"edit","id":"x-coredata://A/Products/p1","fields":{"price":5,"name":"n"}}"#,
                    #"{"type":"delete","id":"x-coredata://A/Products/p1"}"#]
        let pieces = ["{", "}", "[", "]", "\"", ":", ",", "null", "true", "1e999", "-0", "\\u0000", "\\ud800", "\u{0}", "🧀", "type", "fields"]
        var decoded = 0
        for i in 0..<3000 {
            var bytes: [UInt8]
            switch rng.int(0...3) {
            case 0: bytes = (0..<rng.int(0...64)).map { _ in UInt8(rng.int(0...255)) }
            case 1:
                bytes = Array(rng.pick(good).utf8)
                for _ in 0..<rng.int(1...4) where !bytes.isEmpty {
                    let at = rng.int(0...(bytes.count - 1))
                    switch rng.int(0...2) {
                    case 0: bytes[at] = UInt8(rng.int(0...255))
                    case 1: bytes.remove(at: at)
                    default: bytes.insert(contentsOf: Array(rng.pick(pieces).utf8), at: at)
                    }
                }
            case 2: bytes = Array((String(repeating: "[", count: rng.int(1...16000)) + "1").utf8)
            default: bytes = Array((0..<rng.int(1...40)).map { _ in rng.pick(pieces) }.joined().utf8)
            }
            if case .success = MessageDecoder.decode(bytes) { decoded += 1 }
            _ = i
        }
        // The decoder returned for every input (reaching here is the test); mutations keep some good.
        #expect(decoded < 3000, "seed \(seed)")
    }
}
