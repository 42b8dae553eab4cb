import Foundation

/// The one page the server serves (Resources/index.html: plain HTML, CSS and script, no build step).
public enum Page {
    /// The page's HTML text.
    public static let html: String = {
        guard let url = Bundle.module.url(forResource: "index", withExtension: "html"),
              let text = try? String(contentsOf: url, encoding: .utf8) else {
            return "<!doctype html><p>live-table: index.html is missing from the resource bundle</p>"
        }
        return text
    }()
}
