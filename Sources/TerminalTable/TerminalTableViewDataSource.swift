import Foundation

/// Mirrors `UITableViewDataSource`: what the terminal table asks of the app. Cells are text.
@MainActor public protocol TerminalTableViewDataSource: AnyObject {
    /// Mirrors `numberOfSections(in:)`.
    func numberOfSections(in tableView: TerminalTableView) -> Int
    /// Mirrors `tableView(_:numberOfRowsInSection:)`.
    func tableView(_ tableView: TerminalTableView, numberOfRowsInSection section: Int) -> Int
    /// Mirrors `tableView(_:cellForRowAt:)`: the row's text.
    func tableView(_ tableView: TerminalTableView, cellForRowAt indexPath: IndexPath) -> String
    /// Mirrors `tableView(_:titleForHeaderInSection:)`.
    func tableView(_ tableView: TerminalTableView, titleForHeaderInSection section: Int) -> String?
    /// Mirrors `sectionIndexTitles(for:)`.
    func sectionIndexTitles(for tableView: TerminalTableView) -> [String]?
    /// Mirrors `tableView(_:sectionForSectionIndexTitle:at:)`.
    func tableView(_ tableView: TerminalTableView, sectionForSectionIndexTitle title: String, at index: Int) -> Int
}
