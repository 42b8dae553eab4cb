import Foundation

/// `live-table --store PATH --port N --writers N --interval MS --fresh --count N --verify`
struct Options {
    var store = "live-table.sqlite"
    var port = 8080
    var writers = 0
    var interval = 50
    var fresh = false
    var count = 40
    var verify = false

    static let usage = """
        usage: live-table [--store PATH] [--port N] [--writers N] [--interval MS] [--fresh] [--count N] [--verify]
          --store     the SQLite file (default live-table.sqlite; reused if it exists)
          --port      the port on 127.0.0.1 (default 8080; 0 picks a free one, printed at start)
          --writers   background writers adding, editing and deleting products (default 0)
          --interval  milliseconds between one writer's changes (default 50)
          --fresh     delete the store first
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
        return options
    }
}

struct UsageError: Error { let message: String }
