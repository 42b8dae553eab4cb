import Foundation

/// The one page the server serves (Resources/index.html and app.js: plain HTML, CSS and script, no build step).
public enum Page {
    /// The page's HTML text.
    public static let html = resource("index", "html") ?? "<!doctype html><p>live-table: index.html is missing from the resource bundle</p>"

    /// The page's script (Resources/app.js), served as `/app.js`.
    public static let script = resource("app", "js") ?? "document.body.textContent = 'live-table: app.js is missing from the resource bundle';"

    private static func resource(_ name: String, _ ext: String) -> String? {
        Bundle.module.url(forResource: name, withExtension: ext).flatMap { try? String(contentsOf: $0, encoding: .utf8) }
    }

    /// The page's icon (served as `/favicon.ico`): a small table, as SVG.
    public static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect x="1" y="2" width="14" height="12" rx="2" fill="#2f6fde"/>\
        <path d="M1 6h14M1 10h14M6 6v8" stroke="white" stroke-width="1.2"/></svg>
        """
}
