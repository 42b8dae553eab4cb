/// Writes a ``TableFrame`` to a terminal with cursor-addressed ANSI sequences, rewriting only the lines
/// that differ from the frame it wrote before (the first frame, and one after ``invalidate()``, is
/// written whole).
///
/// Mirrors nothing in Core Data: UITableView's drawing, reduced to lines of text.
public final class ScreenRenderer {
    private var shown: [TableFrame.Line] = []
    private let output: (String) -> Void

    /// A renderer writing its bytes to `output`.
    public init(output: @escaping (String) -> Void) {
        self.output = output
    }

    /// Forgets what the screen shows, so that the next frame is written whole (after a resize).
    public func invalidate() { shown = [] }

    /// Writes the lines of `frame` that differ from the last frame; returns how many were written.
    @discardableResult
    public func render(_ frame: TableFrame) -> Int {
        var bytes = shown.isEmpty ? "\u{1B}[0m\u{1B}[2J" : ""
        var written = 0
        for (i, line) in frame.lines.enumerated() where i >= shown.count || shown[i] != line {
            bytes += "\u{1B}[\(i + 1);1H" + Self.style(line.style) + line.text + "\u{1B}[0m\u{1B}[K"
            written += 1
        }
        shown = frame.lines
        if !bytes.isEmpty { output(bytes) }
        return written
    }

    private static func style(_ style: TableFrame.Style) -> String {
        switch style {
        case .plain: ""
        case .title: "\u{1B}[1m"
        case .header: "\u{1B}[1;36m"
        case .selected: "\u{1B}[7m"
        case .status: "\u{1B}[33m"
        }
    }
}
