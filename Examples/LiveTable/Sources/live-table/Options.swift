import Foundation

/// `live-table --store PATH|URL --port N --writers N --interval MS --fresh --count N --verify`
struct Options {
    var store = "live-table.sqlite"
    var port = 8080
    var writers = 0
    var interval = 1000
    var fresh = false
    var count = 40
    var verify = false

    static let usage = """
        usage: live-table [--store PATH|URL] [--port N] [--writers N] [--interval MS] [--fresh] [--count N] [--verify]
          --store     the SQLite file (default live-table.sqlite; reused if it exists), or a PostgreSQL
                      store, postgres://user@host:port/db?schema=NAME, which other live-table
                      processes may serve too: an edit on any page reaches every page of every process
          --port      the port on 127.0.0.1 (default 8080; 0 picks a free one, printed at start)
          --writers   background writers adding products and editing and deleting those they added,
                      never a person's (default 0); a page can pause them
          --interval  milliseconds between one writer's changes (default 1000)
          --fresh     delete the store first (a PostgreSQL store: drop its schema)
          --count     products in a new store, and the size the writers keep near (default 40)
          --verify    test mode: keep a fresh fetch after every commit, served under /verify/
        """

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let v = rest.popFirst() else { throw UsageError(message: "\(flag) needs a value") }
            return v
        }
        func number(_ flag: String) throws -> Int {
            let text = try value(flag)
            guard let n = Int(text), n >= 0 else { throw UsageError(message: "\(flag) takes a number, not \(text)") }
            return n
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--store": options.store = try value(flag)
            case "--port": options.port = try number(flag)
            case "--writers": options.writers = try number(flag)
            case "--interval": options.interval = try number(flag)
            case "--count": options.count = try number(flag)
            case "--fresh": options.fresh = true
            case "--verify": options.verify = true
            case "--help", "-h": throw UsageError(message: "")
            default: throw UsageError(message: "unknown option \(flag)")
            }
        }
        _ = try options.storeURL()
        return options
    }

    /// The store's URL: a `postgres://` or `postgresql://` URL as given, anything else a file path.
    func storeURL() throws -> URL {
        guard store.hasPrefix("postgres://") || store.hasPrefix("postgresql://") else { return URL(fileURLWithPath: store) }
        guard let url = URL(string: store) else { throw UsageError(message: "--store: not a URL: \(store)") }
        return url
    }

    /// The store as printed: a URL's password left out.
    var storeForDisplay: String {
        guard var parts = URLComponents(string: store), parts.password != nil else { return store }
        parts.password = "***"
        return parts.string ?? store
    }
}

struct UsageError: Error { let message: String }
