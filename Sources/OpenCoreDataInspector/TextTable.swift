/// Rows of text cells in aligned columns (two spaces apart, the last column unpadded), one line each.
enum TextTable {
    static func lines(_ rows: [[String]], indent: String = "  ") -> String {
        let count = rows.map(\.count).max() ?? 0
        let widths = (0..<count).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            let cells = row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            return indent + cells.joined(separator: "  ") + "\n"
        }.joined()
    }
}
