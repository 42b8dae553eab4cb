import Foundation
import OpenCoreData
import DemoModels

/// A live table: a fetched results controller on the view context driving a ``TerminalTableView``
/// full screen, and the keys that edit the store (each edit saved at once) or start the background
/// writer. Nothing redraws the table but the controller's delegate calls.
///
/// Mirrors nothing in Core Data: it is the demo app (`products --live`, `zoo --live`).
@MainActor public final class LiveTableSession<Model: LiveTableModel> {
    /// The keys, as the help line shows them (`p` named by the model: a product's price, an animal's class).
    public static func help(for model: Model) -> String {
        "↑↓ PgUp PgDn Home End select  a add  d/Del delete  r rename  p \(model.secondValueChange)  ←→ [ ] or a letter: index  b writer  q quit"
    }

    private let model: Model
    private let context: NSManagedObjectContext
    private let table: FetchedResultsTableController<Model.Object>
    private let terminal = Terminal()
    private var writer: BackgroundWriter<Model>!
    private var random: SeededRandom
    private var selected: Model.Object?
    private var writerSaves = 0
    private var message = ""
    /// Runs when the user quits (or interrupts with Ctrl-C or SIGTERM), after the terminal is restored.
    public var onQuit: () -> Void = {} {
        didSet { terminal.onSignal = onQuit }
    }

    /// A session on `container`'s view context (which merges the saves of other contexts); `seed` makes
    /// the keys' and the writer's edits repeatable, `writerInterval` is the writer's pace.
    public init(model: Model, container: NSPersistentContainer, seed: UInt64, writerInterval: TimeInterval) throws {
        self.model = model
        context = container.viewContext
        context.automaticallyMergesChangesFromParent = true
        let controller = NSFetchedResultsController(fetchRequest: model.fetchRequest(), managedObjectContext: context,
                                                    sectionNameKeyPath: model.sectionNameKeyPath, cacheName: nil)
        try controller.performFetch()
        table = FetchedResultsTableController(controller: controller, cell: model.cell)
        random = SeededRandom(seed: seed)
        writer = BackgroundWriter(container: container, model: model, interval: writerInterval, seed: seed &+ 1) { [weak self] in
            self?.writerSaved($0)
        }
    }

    /// Takes over the terminal and returns; the main queue must then run (`dispatchMain()`).
    public func start() {
        terminal.enter()
        let size = Terminal.size()
        table.attach(width: size.width, height: size.height, output: terminal.write)
        table.didChangeContent = { [unowned self] in afterBatch() }
        table.tableView.help = Self.help(for: model)
        table.tableView.status = "no batch yet: each one shows here, controllerWillChangeContent … controllerDidChangeContent"
        table.tableView.selectRow(at: table.tableView.indexPath(ofFlatRow: 0))
        rememberSelection()
        showTitle()
        table.tableView.invalidateScreen()
        KeyReader.start { [unowned self] keys in keys.forEach(handle) }
        terminal.onResize { [unowned self] in MainActor.assumeIsolated { redrawAtCurrentSize() } }
        terminal.onResume = { [unowned self] in MainActor.assumeIsolated { redrawAtCurrentSize() } }
    }

    /// Draws the whole table again at the terminal's size (after a resize, and back from Ctrl-Z).
    private func redrawAtCurrentSize() {
        let size = Terminal.size()
        tableView.resize(width: size.width, height: size.height)
    }

    private var tableView: TerminalTableView { table.tableView }

    private func handle(_ key: Key) {
        let page = TableFrame.bodyHeight(tableView.height) - 1
        switch key {
        case .up, .character("k"): move(by: -1)
        case .down, .character("j"): move(by: 1)
        case .pageUp: move(by: -page)
        case .pageDown: move(by: page)
        case .home: move(by: -tableView.totalRows)
        case .end: move(by: tableView.totalRows)
        case .character("a"): edit { selected = try model.insert(into: context, using: &random) }
        case .character("d"), .delete: edit { if let object = selected { context.delete(object); selected = nil } }
        case .character("r"): edit { if let object = selected { model.rename(object, using: &random) } }
        case .character("p"): edit { if let object = selected { model.reprice(object, using: &random) } }
        case .character("b"): toggleWriter()
        case .character("["), .left: jumpIndex(by: -1)
        case .character("]"), .right: jumpIndex(by: 1)
        case .character("q"): quit()
        case .character(let c): jump(toIndexTitle: c)
        case .unknown(let sequence): tableView.status = "no key for \(sequence.unicodeScalars.map { $0.value < 0x20 ? "^[" : String($0) }.joined()): the keys are below"
        }
    }

    /// Jumps to the section of an index title, typed in either case (on any keyboard layout); a key that
    /// is neither a command nor a title says so in the status line.
    private func jump(toIndexTitle c: Character) {
        for title in [String(c), String(c).uppercased(), String(c).lowercased()] where tableView.jump(toSectionIndexTitle: title) {
            rememberSelection()
            return
        }
        tableView.status = c.isLetter || c.isNumber ? "no key or index title “\(c)”: the keys are below" : "no key for that: the keys are below"
    }

    private func move(by rows: Int) {
        tableView.moveSelection(by: rows)
        rememberSelection()
    }

    /// Runs an edit on the view context and saves it; the controller's batch updates the table.
    private func edit(_ change: () throws -> Void) {
        do {
            try change()
            try context.save()
            message = ""
        } catch {
            context.rollback()
            message = "not saved: \(error)"
        }
        showTitle()
    }

    private func afterBatch() {
        if let object = selected, let indexPath = table.controller.indexPath(forObject: object) {
            tableView.selectRow(at: indexPath)
        } else {
            rememberSelection()
        }
        showTitle()
    }

    private func rememberSelection() {
        selected = tableView.indexPathForSelectedRow.map { table.controller.object(at: $0) }
    }

    /// Jumps to the index title before or after the selected row's section.
    private func jumpIndex(by step: Int) {
        let titles = table.controller.sectionIndexTitles
        guard !titles.isEmpty else { return }
        let section = tableView.indexPathForSelectedRow?.section ?? 0
        let current = titles.indices.last { table.controller.section(forSectionIndexTitle: titles[$0], at: $0) <= section } ?? 0
        let next = min(max(current + step, 0), titles.count - 1)
        if tableView.jump(toSectionIndexTitle: titles[next]) { rememberSelection() }
    }

    private func toggleWriter() {
        if writer.isRunning { writer.stop() } else { writer.start() }
        showTitle()
    }

    private func writerSaved(_ text: String) {
        writerSaves += 1
        message = text
        showTitle()
    }

    private func showTitle() {
        let state = writer.isRunning ? "writer on" : "writer off"
        tableView.title = "\(model.title) — \(state), \(writerSaves) background saves\(message.isEmpty ? "" : " — \(message)")"
    }

    private func quit() {
        writer.stop()
        terminal.restore()
        onQuit()
        exit(0)
    }
}
