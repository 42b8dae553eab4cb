import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing
import TerminalTable

/// `products --live` and `zoo --live` used as a person uses them, in tmux: keys typed, the screen read
/// back, and after each step the screen compared with a fresh fetch of the store (issue #37).
@Suite(.serialized) struct LiveTableTmuxTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("live-table-\(UUID().uuidString)")

    /// Starts a demo's live table in tmux on a new store in `folder`.
    func start(_ program: String, _ options: String) throws -> (screen: TmuxScreen, store: String, errors: String) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let binary = try #require(builtProgram(program), "\(program) is built with the tests")
        let store = folder.appendingPathComponent("\(program).sqlite").path, errors = folder.appendingPathComponent("errors").path
        let screen = try TmuxScreen(command: "'\(binary.path)' --live --fresh --store '\(store)' \(options) 2>'\(errors)'")
        #expect(try screen.waitFor("row "), "the live table did not start: \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
        return (screen, store, errors)
    }

    func products(_ store: String) throws -> ExpectedScreen {
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: true)]
        return try ExpectedScreen(store: store, model: SeedModel.makeCurrent(), request: request, sectionNameKeyPath: "name") { product in
            let price = "\(product.price)"
            return TableFrame.fit(product.name ?? "nil", 24) + String(repeating: " ", count: max(0, 4 - price.count)) + price + " ₽"
        }
    }

    func batchNumber(_ screen: [String]) -> Int? {
        let status = screen[TmuxScreen.height - 2]
        guard status.hasPrefix("batch ") else { return nil }
        return Int(status.dropFirst(6).prefix { $0.isNumber })
    }

    func quit(_ screen: TmuxScreen, errors: String) throws {
        try screen.press("q")
        let deadline = Date().addingTimeInterval(5)
        while screen.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        #expect(!screen.isRunning, "q did not end the program")
        #expect(try String(contentsOfFile: errors, encoding: .utf8) == "")
    }

    @Test func productsLiveFollowsEveryEdit() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (screen, store, errors) = try start("products", "--count 30 --seed 3 --writer-interval 0.2")
        defer { screen.close() }
        var shown = try screen.settled()
        try products(store).check(shown, "start")
        #expect(ExpectedScreen.position(shown)?.rows == 31)

        for (key, step, change) in [("a", "add", 1), ("r", "rename", 0), ("p", "re-price", 0), ("d", "delete", -1)] {
            let before = ExpectedScreen.position(shown)!.rows, batch = batchNumber(shown) ?? 0
            try screen.press(key)
            shown = try screen.settled()
            try products(store).check(shown, step)
            #expect(ExpectedScreen.position(shown)?.rows == before + change, "\(step)")
            #expect(batchNumber(shown) == batch + 1, "\(step): \(shown[TmuxScreen.height - 2])")
            #expect(shown[TmuxScreen.height - 2].hasSuffix("…controllerDidChangeContent"), "\(step)")
        }

        try screen.press("NPage")
        try screen.press("NPage")
        shown = try screen.settled()
        try products(store).check(shown, "scroll")
        #expect((ExpectedScreen.position(shown)?.top ?? 0) > 0, "two pages down scrolled the table")

        let expected = try products(store)
        let title = try #require(expected.indexTitles.dropFirst().first)
        try screen.type(title.title)
        shown = try screen.settled()
        try products(store).check(shown, "index title \(title.title)")
        #expect(ExpectedScreen.position(shown)?.selected == expected.firstRowNumber(ofSection: title.section), "the jump selects the section's first row")
        try screen.press("[")
        shown = try screen.settled()
        try products(store).check(shown, "previous index title")
        #expect(ExpectedScreen.position(shown)?.selected == 1)

        let batch = batchNumber(shown) ?? 0
        try screen.press("b")
        Thread.sleep(forTimeInterval: 2.5)
        try screen.press("b")
        Thread.sleep(forTimeInterval: 0.5)
        shown = try screen.settled()
        try products(store).check(shown, "background writer")
        let saves = shown[0].split(separator: ",").last.flatMap { Int($0.drop { !$0.isNumber }.prefix { $0.isNumber }) } ?? 0
        #expect(saves >= 3, "\(shown[0])")
        #expect((batchNumber(shown) ?? 0) >= batch + 3, "\(shown[TmuxScreen.height - 2])")
        #expect(shown[0].contains("writer off"))
        let saveText = try #require(shown[0].components(separatedBy: " — ").last)
        #expect((saveText.contains(" ₽") || saveText.hasSuffix("…")) && !saveText.trimmingCharacters(in: .whitespaces).contains("  "),
                "the last save in words, without the table's padding: \(shown[0])")
        try quit(screen, errors: errors)
    }

    @Test func keysAsTerminalsSendThemDoWhatTheHelpLineSays() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (screen, store, errors) = try start("products", "--count 30 --seed 3 --writer-interval 0.2")
        defer { screen.close() }
        var shown = try screen.settled()
        #expect(shown[TmuxScreen.height - 1].contains("p re-price"), "\(shown[TmuxScreen.height - 1])")
        let rows = try #require(ExpectedScreen.position(shown)).rows
        try screen.press("End")  // tmux sends ESC [ 4 ~
        shown = try screen.settled()
        try products(store).check(shown, "End")
        #expect(ExpectedScreen.position(shown)?.selected == rows, "End selects the last row")
        try screen.press("Home")  // ESC [ 1 ~
        shown = try screen.settled()
        #expect(ExpectedScreen.position(shown)?.selected == 1, "Home selects the first row")

        let expected = try products(store)
        let second = try #require(expected.indexTitles.dropFirst().first)
        try screen.press("Right")
        shown = try screen.settled()
        #expect(ExpectedScreen.position(shown)?.selected == expected.firstRowNumber(ofSection: second.section), "→ goes to the next index title")
        try screen.press("Left")
        shown = try screen.settled()
        #expect(ExpectedScreen.position(shown)?.selected == 1, "← goes back")

        // An index title typed in lower case (not a command letter) jumps as its capital does.
        let commands = Set("adrpbjkq")
        let title = try #require(expected.indexTitles.first { $0.title.lowercased() != $0.title && !commands.contains(Character($0.title.lowercased())) && $0.section > 0 })
        try screen.type(title.title.lowercased())
        shown = try screen.settled()
        #expect(ExpectedScreen.position(shown)?.selected == expected.firstRowNumber(ofSection: title.section), "lower-case \(title.title)")

        let before = try #require(ExpectedScreen.position(shown)).rows
        try screen.press("DC")  // Delete: ESC [ 3 ~
        shown = try screen.settled()
        try products(store).check(shown, "Delete")
        #expect(ExpectedScreen.position(shown)?.rows == before - 1, "Delete deletes the selected row")

        // A smaller window keeps the selected row (the last one) in view.
        try screen.press("End")
        _ = try screen.settled()
        _ = try screen.run(["resize-window", "-t", "live", "-y", "12"])
        shown = try screen.settled()
        #expect(shown[1..<10].contains { $0.hasPrefix("› ") }, "after shrinking to 12 lines the selected row shows: \(shown.prefix(12))")
        _ = try screen.run(["resize-window", "-t", "live", "-x", "40"])
        shown = try screen.settled()
        #expect(shown[0].count == 39 && shown[0].hasSuffix("…"), "a title cut at the width says so: \(shown[0])")
        _ = try screen.run(["resize-window", "-t", "live", "-x", "\(TmuxScreen.width)", "-y", "\(TmuxScreen.height)"])
        shown = try screen.settled()
        try products(store).check(shown, "resized back")

        let position = ExpectedScreen.position(shown)
        try screen.press("F5")  // a key with no meaning here: a word in the status line, nothing else
        shown = try screen.settled()
        #expect(shown[TmuxScreen.height - 2].hasPrefix("no key for"), "\(shown[TmuxScreen.height - 2])")
        #expect(ExpectedScreen.position(shown)?.selected == position?.selected)
        #expect(ExpectedScreen.position(shown)?.rows == position?.rows)
        try products(store).check(shown, "F5")
        try quit(screen, errors: errors)
    }

    /// Ctrl-Z gives the shell back as it was (normal screen, cursor shown, line editing on), and `fg` the table
    /// (raw again: a key acts without Enter), drawn again and equal to the store.
    @Test func ctrlZThenFgGivesTheShellBackThenTheTable() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let binary = try #require(builtProgram("products"), "products is built with the tests")
        let store = folder.appendingPathComponent("products.sqlite").path, errors = folder.appendingPathComponent("errors").path
        let screen = try TmuxScreen(command: "env PS1='$ ' bash --norc --noprofile -i")
        defer { screen.close() }
        try screen.type("'\(binary.path)' --live --fresh --store '\(store)' --count 30 --seed 3 2>'\(errors)'")
        try screen.press("Enter")
        #expect(try screen.waitFor("row "))
        try products(store).check(try screen.settled(), "start")

        try screen.press("C-z")
        var shown = try screen.settled()
        #expect(try screen.pane("#{alternate_on} #{cursor_flag}") == "0 1", "suspended: the normal screen and the cursor are back")
        #expect(shown.contains { $0.contains("Stopped") }, "\(shown)")
        try screen.type("stty -a | grep -o -- '-*icanon'")
        try screen.press("Enter")
        shown = try screen.settled()
        #expect(shown.contains("icanon"), "suspended: the shell's terminal edits lines again: \(shown)")

        try screen.type("fg")
        try screen.press("Enter")
        #expect(try screen.waitFor("row "))
        shown = try screen.settled()
        #expect(try screen.pane("#{alternate_on} #{cursor_flag}") == "1 0", "resumed: the table's screen, no cursor")
        try products(store).check(shown, "after fg")
        let rows = try #require(ExpectedScreen.position(shown)).rows
        try screen.press("End")
        shown = try screen.settled()
        #expect(ExpectedScreen.position(shown)?.selected == rows, "resumed: a key acts at once (raw mode)")
        try screen.press("q")
        _ = try screen.settled()
        #expect(try screen.pane("#{alternate_on} #{cursor_flag}") == "0 1", "quit: the shell's screen")
        #expect(try String(contentsOfFile: errors, encoding: .utf8) == "")
    }

    @Test func zooLiveSectionsByOrder() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (screen, store, errors) = try start("zoo", "--seed 2 --writer-interval 0.1")
        defer { screen.close() }
        func expected() throws -> ExpectedScreen {
            try ExpectedScreen(store: store, model: ZooModel.make(), request: ZooModel.tableRequest(), sectionNameKeyPath: "classification.order") {
                "\($0.commonName ?? "nil") — \($0.habitat ?? "nil")"
            }
        }
        var shown = try screen.settled()
        try expected().check(shown, "start")
        #expect(shown[1].hasPrefix("── Chiroptera"), "\(shown[1])")
        #expect(shown[TmuxScreen.height - 1].contains("p next class"), "zoo's help line names what p does: \(shown[TmuxScreen.height - 1])")
        try screen.press("p")  // the selected animal to the next classification: a row moving between sections
        shown = try screen.settled()
        try expected().check(shown, "reclassify")
        try screen.press("b")
        Thread.sleep(forTimeInterval: 1.5)
        try screen.press("b")
        Thread.sleep(forTimeInterval: 0.5)
        shown = try screen.settled()
        try expected().check(shown, "background writer")
        try quit(screen, errors: errors)
    }
}
