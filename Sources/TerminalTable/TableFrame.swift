import Foundation

/// One section as the terminal table shows it: its header and its rows' text.
public struct TableSection: Equatable, Sendable {
    /// The header (`tableView(_:titleForHeaderInSection:)`).
    public var title: String
    /// The rows' text, top to bottom.
    public var rows: [String]

    public init(title: String, rows: [String]) {
        self.title = title
        self.rows = rows
    }
}

/// The screen of a terminal table as lines: a title line, the table's visible lines with the index-title
/// column at the right edge, a status line and a help line. A pure value: the renderer compares two
/// frames and writes the lines that differ; a test builds the frame it expects from a fetch.
///
/// Mirrors nothing in Core Data: it stands in for what UITableView draws.
public struct TableFrame: Equatable, Sendable {
    /// How a line is drawn.
    public enum Style: Equatable, Sendable { case plain, title, header, selected, status }

    /// One line of the screen, exactly as wide as the frame.
    public struct Line: Equatable, Sendable {
        public var text: String
        public var style: Style
    }

    /// The screen's lines, top to bottom (`height` of them).
    public let lines: [Line]

    /// The number of table lines visible on a screen `height` lines high.
    public static func bodyHeight(_ height: Int) -> Int { max(height - 3, 1) }

    /// The table as lines: each section's header, then its rows; `row` is the row's index path.
    public static func tableLines(_ sections: [TableSection]) -> [(text: String, row: IndexPath?)] {
        var lines: [(text: String, row: IndexPath?)] = []
        for (s, section) in sections.enumerated() {
            lines.append((section.title, nil))
            for (r, text) in section.rows.enumerated() { lines.append((text, IndexPath(row: r, section: s))) }
        }
        return lines
    }

    /// The frame of `sections` scrolled to `offset` (the table line at the top), with `selection`
    /// marked and `indexTitles` (each with the section it jumps to) down the right edge, the title of the
    /// section at the top marked.
    public init(title: String, sections: [TableSection], indexTitles: [(title: String, section: Int)],
                selection: IndexPath?, offset: Int, status: String, help: String, width: Int, height: Int) {
        let body = Self.tableLines(sections)
        let topSection = offset < body.count ? body[offset].row?.section ?? body[..<offset].filter { $0.row == nil }.count : nil
        let currentIndexTitle = topSection.flatMap { top in indexTitles.last { $0.section <= top }?.title }
        let bodyHeight = Self.bodyHeight(height)
        let content = max(width - 4, 1)
        var lines = [Line(text: Self.clip(title, width - 1), style: .title)]
        for i in 0..<bodyHeight {
            let index = i < indexTitles.count ? indexTitles[i].title : ""
            let mark = !index.isEmpty && index == currentIndexTitle ? "›" : " "
            let column = Self.fit(mark + index, 2)
            guard offset + i < body.count else {
                lines.append(Line(text: Self.fit("", content) + " " + column, style: .plain))
                continue
            }
            let line = body[offset + i]
            if let row = line.row {
                let selected = row == selection
                lines.append(Line(text: Self.fit((selected ? "› " : "  ") + line.text, content) + " " + column,
                                  style: selected ? .selected : .plain))
            } else {
                lines.append(Line(text: Self.fit("── " + line.text + " " + String(repeating: "─", count: content), content) + " " + column,
                                  style: .header))
            }
        }
        lines.append(Line(text: Self.clip(status, width - 1), style: .status))
        lines.append(Line(text: Self.clip(help, width - 1), style: .plain))
        self.lines = Array(lines.prefix(max(height, 0)))
    }

    /// `text` padded with spaces to `width` characters, or cut to them with `…` as the last one: a line of
    /// words (the title, status and help lines) says that it goes on.
    public static func clip(_ text: String, _ width: Int) -> String {
        text.count > width && width > 0 ? String(text.prefix(width - 1)) + "…" : fit(text, width)
    }

    /// `text` cut or padded with spaces to `width` characters.
    public static func fit(_ text: String, _ width: Int) -> String {
        let width = max(width, 0)
        return text.count >= width ? String(text.prefix(width)) : text + String(repeating: " ", count: width - text.count)
    }
}
