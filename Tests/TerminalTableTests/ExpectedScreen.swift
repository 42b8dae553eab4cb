import Foundation
import OpenCoreData
import Testing
import TerminalTable

/// What the live table must show, from a fresh fetch of the store: the store opened read-only with a new
/// container, the same request and section key path in a new fetched results controller.
struct ExpectedScreen {
    let sections: [TableSection]
    let indexTitles: [(title: String, section: Int)]
    var rowCount: Int { sections.reduce(0) { $0 + $1.rows.count } }

    init<T: NSManagedObject>(store path: String, model: NSManagedObjectModel, request: NSFetchRequest<T>, sectionNameKeyPath: String,
                             cell: (T) -> String) throws {
        let container = NSPersistentContainer(name: "Expected", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: path))
        description.isReadOnly = true
        container.persistentStoreDescriptions = [description]
        var failure: Error?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        let context = container.newBackgroundContext()
        (sections, indexTitles) = try context.performAndWait {
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                        sectionNameKeyPath: sectionNameKeyPath, cacheName: nil)
            try controller.performFetch()
            return ((controller.sections ?? []).map { TableSection(title: $0.name, rows: ($0.objects ?? []).map { cell($0 as! T) }) },
                    controller.sectionIndexTitles.enumerated().map { ($1, controller.section(forSectionIndexTitle: $1, at: $0)) })
        }
    }

    /// The index path of the `n`th row across sections.
    func indexPath(ofFlatRow n: Int) -> IndexPath? {
        var n = n
        for (s, section) in sections.enumerated() {
            if n < section.rows.count { return IndexPath(row: n, section: s) }
            n -= section.rows.count
        }
        return nil
    }

    /// The row number (from 1) of a section's first row.
    func firstRowNumber(ofSection section: Int) -> Int {
        sections.prefix(section).reduce(0) { $0 + $1.rows.count } + 1
    }

    /// What the screen's title line says: the selected row (from 1), the row count and the top line.
    static func position(_ screen: [String]) -> (selected: Int, rows: Int, top: Int)? {
        guard let head = screen.first?.split(separator: "│").first else { return nil }
        let numbers = head.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        return numbers.count == 3 ? (numbers[0], numbers[1], numbers[2]) : nil
    }

    /// Checks the screen's table lines (rows, headers, selection mark, index column) against these
    /// sections, scrolled and selected as the title line says; and that no batch was rejected.
    func check(_ screen: [String], _ step: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let position = Self.position(screen) else {
            Issue.record("\(step): no position in the title line \(screen[0])", sourceLocation: sourceLocation)
            return
        }
        #expect(position.rows == rowCount, "\(step): the screen counts \(position.rows) rows, the store \(rowCount)", sourceLocation: sourceLocation)
        let frame = TableFrame(title: "", sections: sections, indexTitles: indexTitles, selection: indexPath(ofFlatRow: position.selected - 1),
                               offset: position.top, status: "", help: "", width: TmuxScreen.width, height: TmuxScreen.height)
        let body = 1...TableFrame.bodyHeight(TmuxScreen.height)
        let expected = body.map { trimmed(frame.lines[$0].text) }, shown = body.map { trimmed(screen[$0]) }
        #expect(shown == expected, "\(step): the screen\n\(shown.joined(separator: "\n"))\ndiffers from a fresh fetch\n\(expected.joined(separator: "\n"))",
                sourceLocation: sourceLocation)
        #expect(!screen.joined().contains("UIKit would reject"), "\(step): \(screen[TmuxScreen.height - 2])", sourceLocation: sourceLocation)
    }

    private func trimmed(_ line: String) -> String {
        String(line.reversed().drop { $0 == " " }.reversed())
    }
}
