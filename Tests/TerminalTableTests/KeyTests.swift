import Testing
@testable import TerminalTable

/// The bytes terminals send for keys (xterm, VT220, rxvt; tmux sends the VT220 forms), decoded.
@Suite struct KeyTests {
    static let table: [(String, Key)] = [
        ("\u{1B}[A", .up), ("\u{1B}[B", .down), ("\u{1B}[C", .right), ("\u{1B}[D", .left),
        ("\u{1B}OA", .up), ("\u{1B}OB", .down), ("\u{1B}OC", .right), ("\u{1B}OD", .left),
        ("\u{1B}[H", .home), ("\u{1B}OH", .home), ("\u{1B}[1~", .home), ("\u{1B}[7~", .home),
        ("\u{1B}[F", .end), ("\u{1B}OF", .end), ("\u{1B}[4~", .end), ("\u{1B}[8~", .end),
        ("\u{1B}[5~", .pageUp), ("\u{1B}[6~", .pageDown), ("\u{1B}[3~", .delete),
        ("\u{1B}[1;5A", .up), ("\u{1B}[3;2~", .delete),
        ("\u{1B}[15~", .unknown("\u{1B}[15~")), ("\u{1B}[2~", .unknown("\u{1B}[2~")), ("\u{1B}OP", .unknown("\u{1B}OP")),
    ]

    @Test(arguments: table.indices)
    func eachSequenceIsOneKey(_ i: Int) {
        let (text, key) = Self.table[i]
        #expect(Key.decode(Array(text.utf8)) == [key], "\(text.debugDescription)")
        // Followed by a letter: the sequence is consumed whole, the letter stays a letter.
        #expect(Key.decode(Array((text + "x").utf8)) == [key, .character("x")], "\(text.debugDescription)x")
    }

    @Test func textLoneEscapeAndIncompleteSequences() {
        #expect(Key.decode(Array("aс[".utf8)) == [.character("a"), .character("с"), .character("[")])
        #expect(Key.decode([0x1B]) == [.character("\u{1B}")])
        #expect(Key.decode(Array("\u{1B}x".utf8)) == [.character("\u{1B}"), .character("x")])
        #expect(Key.decode(Array("\u{1B}[1".utf8)) == [.unknown("\u{1B}[1")])
        #expect(Key.decode(Array("\u{1B}[A\u{1B}[4~".utf8)) == [.up, .end])
    }
}
