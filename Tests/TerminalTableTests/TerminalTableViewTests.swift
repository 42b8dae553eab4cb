import Foundation
import Testing
import TerminalTable

/// An app's data: sections of rows, with a header each and the first letter as index title.
@MainActor final class ArraySource: TerminalTableViewDataSource {
    var sections: [(title: String, rows: [String])]
    init(_ sections: [(title: String, rows: [String])]) { self.sections = sections }

    func numberOfSections(in tableView: TerminalTableView) -> Int { sections.count }
    func tableView(_ tableView: TerminalTableView, numberOfRowsInSection section: Int) -> Int { sections[section].rows.count }
    func tableView(_ tableView: TerminalTableView, cellForRowAt indexPath: IndexPath) -> String { sections[indexPath.section].rows[indexPath.row] }
    func tableView(_ tableView: TerminalTableView, titleForHeaderInSection section: Int) -> String? { sections[section].title }
    func sectionIndexTitles(for tableView: TerminalTableView) -> [String]? { sections.map { String($0.title.prefix(1)) } }
    func tableView(_ tableView: TerminalTableView, sectionForSectionIndexTitle title: String, at index: Int) -> Int { index }
}

/// The bytes a table wrote, and the screen lines (0-based) that cursor addressing rewrote.
@MainActor final class Capture {
    var bytes = ""
    var rewrittenLines: Set<Int> {
        let pattern = try! NSRegularExpression(pattern: "\u{1B}\\[(\\d+);1H")
        let matches = pattern.matches(in: bytes, range: NSRange(bytes.startIndex..., in: bytes))
        return Set(matches.map { Int((bytes as NSString).substring(with: $0.range(at: 1)))! - 1 })
    }
}

/// The terminal table applies UIKit's batch calls and rewrites only the screen lines a change touches.
@MainActor @Suite struct TerminalTableViewTests {
    let source = ArraySource([("Alpha", ["a0", "a1", "a2", "a3", "a4"]), ("Beta", ["b0", "b1", "b2"])])
    let capture = Capture()

    /// A 40 × 12 table: title, nine table lines, status, help.
    func makeTable() -> TerminalTableView {
        let capture = capture
        let table = TerminalTableView(dataSource: source, width: 40, height: 12) { capture.bytes += $0 }
        table.invalidateScreen()
        capture.bytes = ""
        return table
    }

    @Test func firstDrawWritesEveryLine() {
        let table = TerminalTableView(dataSource: source, width: 40, height: 12) { [capture] in capture.bytes += $0 }
        table.draw()
        #expect(capture.rewrittenLines == Set(0..<12))
        #expect(capture.bytes.contains("── Alpha ─"))
        #expect(table.frame.lines.map(\.text).allSatisfy { $0.count == 39 })
    }

    @Test func shrinkingTheScreenKeepsTheSelectedRowInView() {
        let table = makeTable()
        table.selectRow(at: IndexPath(row: 2, section: 1))  // b2: line 9, the last table line of 9
        #expect(table.frame.lines.contains { $0.style == .selected && $0.text.contains("b2") })
        table.resize(width: 40, height: 7)  // four table lines
        #expect(table.frame.lines.contains { $0.style == .selected && $0.text.contains("b2") }, "\(table.frame.lines.map(\.text))")
        table.resize(width: 40, height: 5)  // two
        #expect(table.frame.lines.contains { $0.style == .selected && $0.text.contains("b2") }, "\(table.frame.lines.map(\.text))")
    }

    @Test func anInsertRewritesTheLinesFromItDown() {
        let table = makeTable()
        source.sections[0].rows.insert("new", at: 2)
        table.insertRows(at: [IndexPath(row: 2, section: 0)], with: .fade)
        // Line 0 is the title (its row count changed); 1 Alpha's header, 2 a0, 3 a1 stay; from 4 (the new
        // row) to 9, the last table line, everything moved down one; status (10) and help (11) stay.
        #expect(capture.rewrittenLines == [0, 4, 5, 6, 7, 8, 9])
        #expect(table.rows == [["a0", "a1", "new", "a2", "a3", "a4"], ["b0", "b1", "b2"]])
        #expect(table.frame.lines[4].text.hasPrefix("  new"))
    }

    @Test func aReloadRewritesOneLine() {
        let table = makeTable()
        source.sections[1].rows[0] = "b0, renamed"
        table.reloadRows(at: [IndexPath(row: 0, section: 1)], with: .none)
        #expect(capture.rewrittenLines == [8])
        #expect(table.rows[1][0] == "b0, renamed")
    }

    @Test func aBatchUsesUIKitCoordinates() {
        let table = makeTable()
        // Delete a1 and move a4 into Beta's top (old coordinates), insert "z" at Beta's end (new ones).
        source.sections[0].rows = ["a0", "a2", "a3"]
        source.sections[1].rows = ["a4", "b0", "b1", "b2", "z"]
        table.beginUpdates()
        table.deleteRows(at: [IndexPath(row: 1, section: 0)], with: .fade)
        table.moveRow(at: IndexPath(row: 4, section: 0), to: IndexPath(row: 0, section: 1))
        table.insertRows(at: [IndexPath(row: 4, section: 1)], with: .fade)
        #expect(capture.bytes.isEmpty)  // nothing is drawn inside a batch
        table.endUpdates()
        #expect(table.errors.isEmpty)
        #expect(table.rows == [["a0", "a2", "a3"], ["a4", "b0", "b1", "b2", "z"]])
    }

    @Test func sectionsComeAndGo() {
        let table = makeTable()
        source.sections.insert(("Aardvark", ["x"]), at: 0)
        source.sections.remove(at: 2)
        table.beginUpdates()
        table.deleteSections(IndexSet(integer: 1), with: .fade)
        table.insertSections(IndexSet(integer: 0), with: .fade)
        table.insertRows(at: [IndexPath(row: 0, section: 0)], with: .fade)
        table.endUpdates()
        #expect(table.errors.isEmpty)
        #expect(table.displayedSections == [TableSection(title: "Aardvark", rows: ["x"]), TableSection(title: "Alpha", rows: ["a0", "a1", "a2", "a3", "a4"])])
        source.sections[1].rows[0] = "a0, renamed"
        table.reloadSections(IndexSet(integer: 1), with: .none)
        #expect(table.rows[1][0] == "a0, renamed")
    }

    @Test func aBatchUIKitRejectsIsRecorded() {
        let table = makeTable()
        table.insertRows(at: [IndexPath(row: 0, section: 0)], with: .fade)  // the data source did not change
        #expect(table.errors.count == 1)
        #expect(table.errors[0].hasPrefix("Invalid update: invalid number of rows in section 0"))
    }

    @Test func selectionScrollingAndIndexJumps() {
        let table = makeTable()
        #expect(table.numberOfSections == 2 && table.numberOfRows(inSection: 1) == 3)
        table.selectRow(at: IndexPath(row: 0, section: 0))
        table.moveSelection(by: 7)  // the last row, b2: table line 9, below the nine visible lines
        #expect(table.indexPathForSelectedRow == IndexPath(row: 2, section: 1))
        #expect(table.contentOffset == 1)
        #expect(table.frame.lines[9].text.hasPrefix("› b2"))
        #expect(table.frame.lines[0].text.hasPrefix("row 8/8 top 1 │"))
        #expect(table.jump(toSectionIndexTitle: "A"))
        #expect(table.contentOffset == 0 && table.indexPathForSelectedRow == IndexPath(row: 0, section: 0))
        #expect(!table.jump(toSectionIndexTitle: "Q"))
        table.scroll(by: 100)
        #expect(table.contentOffset == 1)
        #expect(table.flatRow(of: IndexPath(row: 1, section: 1)) == 6 && table.indexPath(ofFlatRow: 6) == IndexPath(row: 1, section: 1))
        #expect(table.line(of: IndexPath(row: 0, section: 1)) == 7)
        #expect(table.totalRows == 8)
    }

    @Test func theIndexColumnMarksTheSectionAtTheTop() {
        let table = makeTable()
        #expect(table.frame.lines[1].text.hasSuffix("›A") && table.frame.lines[2].text.hasSuffix(" B"))
        table.resize(width: 30, height: 6)  // three table lines
        #expect(capture.rewrittenLines == Set(0..<6))
        #expect(table.frame.lines.count == 6 && table.frame.lines[0].text.count == 29)
        table.scrollToSection(1)
        #expect(table.contentOffset == 6)
        #expect(table.frame.lines[1].text.hasPrefix("── Beta"))
        #expect(table.frame.lines[1].text.hasSuffix(" A") && table.frame.lines[2].text.hasSuffix("›B"))
    }

    @Test func aReloadDataRedrawsFromTheSource() {
        let table = makeTable()
        source.sections = [("Gamma", ["g0"])]
        table.reloadData()
        #expect(table.rows == [["g0"]])
        #expect(table.frame.lines[1].text.hasPrefix("── Gamma"))
    }

    @Test func keysAreDecodedFromTerminalBytes() {
        #expect(Key.decode(Array("\u{1B}[Aj\u{1B}[6~Т[".utf8)) == [.up, .character("j"), .pageDown, .character("Т"), .character("[")])
        #expect(Key.decode(Array("\u{1B}[B\u{1B}[5~\u{1B}[H\u{1B}[F".utf8)) == [.down, .pageUp, .home, .end])
    }

    @Test func wordsCutAtTheWidthEndWithAnEllipsisAndRowsAreCutPlainly() {
        #expect(TableFrame.clip("Products — writer on", 10) == "Products …")
        #expect(TableFrame.clip("short", 8) == "short   ")
        #expect(TableFrame.clip("exactly8", 8) == "exactly8")
        #expect(TableFrame.fit("Products — writer on", 10) == "Products —")
        let frame = TableFrame(title: String(repeating: "t", count: 50), sections: [], indexTitles: [], selection: nil, offset: 0,
                               status: String(repeating: "s", count: 50), help: "help", width: 20, height: 5)
        #expect(frame.lines.first?.text == String(repeating: "t", count: 18) + "…")
        #expect(frame.lines[3].text == String(repeating: "s", count: 18) + "…")
    }
}
