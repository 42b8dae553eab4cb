import Foundation
import Hummingbird
import HummingbirdWebSocket
import LiveTableKit
import Logging
import OpenCoreDataPostgres  // linked, it makes a postgres:// store open (nothing else here names it)

// The browser live table (docs/LiveTables.md, "The browser table"):
//
//     swift run live-table [--store PATH|postgres://…] [--port N] [--writers N] [--fresh] [--count N] [--verify]
//
// then open http://127.0.0.1:8080/ in two windows. Several processes on one PostgreSQL store (each on
// its own port) serve one table.

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch let error as UsageError {
    if !error.message.isEmpty { print("live-table: \(error.message)") }
    print(Options.usage)
    exit(error.message.isEmpty ? 0 : 64)
}

let store: LiveStore
do {
    store = try LiveStore(url: try options.storeURL(), fresh: options.fresh, count: options.count)
} catch {
    print("live-table: cannot open the store at \(options.storeForDisplay): \(error)")
    exit(1)
}
let gate = WriteGate(store: store, verify: options.verify)
let writers = BackgroundWriters(gate: gate)
writers.start(count: options.writers, interval: .milliseconds(options.interval), target: options.count)

let router = Router(context: BasicWebSocketRequestContext.self)
router.get("/") { _, _ in
    Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
             body: .init(byteBuffer: ByteBuffer(string: Page.html)))
}
router.ws("/socket") { inbound, outbound, _ in
    try await Connection(gate: gate, writers: writers).run(inbound: inbound, outbound: outbound)
}
router.get("/app.js") { _, _ in
    Response(status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "no-store"],
             body: .init(byteBuffer: ByteBuffer(string: Page.script)))
}
router.get("/favicon.ico") { _, _ in
    Response(status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "max-age=86400"],
             body: .init(byteBuffer: ByteBuffer(string: Page.icon)))
}
Verification(gate: gate, writers: writers).add(to: router)

var logger = Logger(label: "live-table")
logger.logLevel = .warning
let app = Application(
    router: router,
    server: .http1WebSocketUpgrade(webSocketRouter: router, configuration: .init(ws: .init(maxFrameSize: Connection.maxFrame))),
    configuration: .init(address: .hostname("127.0.0.1", port: options.port)),
    onServerRunning: { channel in
        let line = "live-table: http://127.0.0.1:\(channel.localAddress?.port ?? options.port)/ (store \(options.storeForDisplay), \(options.writers) writers\(options.verify ? ", verify" : ""))\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    },
    logger: logger
)
try await app.runService()
