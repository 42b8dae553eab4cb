import Foundation

/// The selection, scrolling, the index-title column and drawing.
extension TerminalTableView {
    /// The table's sections as drawn: the data source's headers over the rows the batches left.
    public var displayedSections: [TableSection] {
        rows.enumerated().map { s, rows in
            TableSection(title: dataSource?.tableView(self, titleForHeaderInSection: s) ?? "", rows: rows)
        }
    }

    /// The table line (headers included) of a row.
    public func line(of indexPath: IndexPath) -> Int {
        rows.prefix(indexPath.section).reduce(0) { $0 + 1 + $1.count } + 1 + indexPath.row
    }

    /// The row's number counting from 0 across sections.
    public func flatRow(of indexPath: IndexPath) -> Int {
        rows.prefix(indexPath.section).reduce(0) { $0 + $1.count } + indexPath.row
    }

    /// The index path of the `n`th row across sections, if there is one.
    public func indexPath(ofFlatRow n: Int) -> IndexPath? {
        var n = n
        for (s, section) in rows.enumerated() {
            if n < section.count { return IndexPath(row: n, section: s) }
            n -= section.count
        }
        return nil
    }

    /// The number of rows in all sections.
    public var totalRows: Int { rows.reduce(0) { $0 + $1.count } }

    /// Mirrors `selectRow(at:animated:scrollPosition:)` with scroll position `.none`: selects the row
    /// and scrolls as little as needed to show it.
    public func selectRow(at indexPath: IndexPath?) {
        indexPathForSelectedRow = indexPath.flatMap { $0.section < rows.count && $0.row < rows[$0.section].count ? $0 : nil }
        scrollToSelection()
        draw()
    }

    /// Scrolls as little as shows the selected row (with its section's header when it is the first row).
    func scrollToSelection() {
        guard let selected = indexPathForSelectedRow else { return }
        let line = line(of: selected), visible = TableFrame.bodyHeight(height)
        if line < contentOffset { setContentOffset(line - (selected.row == 0 ? 1 : 0)) }
        if line >= contentOffset + visible { setContentOffset(line - visible + 1) }
    }

    /// Moves the selection by `delta` rows across sections.
    public func moveSelection(by delta: Int) {
        let current = indexPathForSelectedRow.map(flatRow) ?? -1
        let target = min(max(current + delta, 0), max(totalRows - 1, 0))
        selectRow(at: indexPath(ofFlatRow: target))
    }

    /// Mirrors `scrollToRow(at:at:animated:)` with `.top` for a section's header: the section's
    /// header goes to the top of the screen (as far as the table's end allows).
    public func scrollToSection(_ section: Int) {
        guard section < rows.count else { return }
        setContentOffset(line(of: IndexPath(row: 0, section: section)) - 1)
        draw()
    }

    /// Jumps to the section the data source gives for an index title, as a tap on the index does;
    /// selects its first row. Returns false for a title the index does not show.
    @discardableResult
    public func jump(toSectionIndexTitle title: String) -> Bool {
        guard let source = dataSource, let titles = source.sectionIndexTitles(for: self), let at = titles.firstIndex(of: title) else { return false }
        let section = source.tableView(self, sectionForSectionIndexTitle: title, at: at)
        guard section < rows.count else { return false }
        scrollToSection(section)
        if !rows[section].isEmpty { indexPathForSelectedRow = IndexPath(row: 0, section: section) }
        draw()
        return true
    }

    /// Scrolls by `lines`, keeping the selection where it is.
    public func scroll(by lines: Int) {
        setContentOffset(contentOffset + lines)
        draw()
    }

    /// The screen changed size: everything is drawn again, the selected row still in view.
    public func resize(width: Int, height: Int) {
        self.width = width
        self.height = height
        setContentOffset(contentOffset)
        scrollToSelection()
        invalidateScreen()
    }

    /// Sets the offset, within the table's lines.
    func setContentOffset(_ offset: Int) {
        let lines = rows.reduce(0) { $0 + 1 + $1.count }
        contentOffset = max(min(offset, lines - TableFrame.bodyHeight(height)), 0)
    }

    func clampSelection() {
        guard let selected = indexPathForSelectedRow else { return }
        if selected.section < rows.count, selected.row < rows[selected.section].count { return }
        indexPathForSelectedRow = indexPath(ofFlatRow: min(flatRow(of: selected), totalRows - 1))
        setContentOffset(contentOffset)
    }

    /// The frame as it should be on screen now.
    public var frame: TableFrame {
        let titles = (dataSource?.sectionIndexTitles(for: self) ?? []).enumerated().map { at, title in
            (title: title, section: dataSource?.tableView(self, sectionForSectionIndexTitle: title, at: at) ?? 0)
        }
        let selected = indexPathForSelectedRow.map { flatRow(of: $0) + 1 } ?? 0
        let header = "row \(selected)/\(totalRows) top \(contentOffset) │ \(title)"
        return TableFrame(title: header, sections: displayedSections, indexTitles: titles, selection: indexPathForSelectedRow,
                          offset: contentOffset, status: status, help: help, width: width, height: height)
    }
}
