import Foundation
import Logging
import NIOCore
import OpenCoreData
import PostgresNIO

/// A `LISTEN` on a connection of its own (``PostgresWire/listen(_:_:reconnected:)``): each notification's
/// payloads go to `notified` on a queue of the listener's, all that arrived while the queue was busy in
/// one call, in their order (under load, one call for many commits). When the connection closes without ``stop()`` (the server restarted, the
/// network dropped), it is made again — at once, then after growing pauses of up to two seconds — and
/// `reconnected` is called once it listens again.
final class PostgresListener: PostgresListening, @unchecked Sendable {
    private let url: PostgresStoreURL
    private let channel: String
    private let notified: @Sendable ([String]) -> Void
    private let reconnected: @Sendable () -> Void
    private let lock = NSLock()
    private var connection: PostgresConnection?
    private var stopped = false
    private let logger = Logger(label: "OpenCoreDataPostgres.listen")
    /// Where `notified` and `reconnected` run: never on the event loop, whose thread must not wait.
    private let queue = DispatchQueue(label: "OpenCoreDataPostgres.listen")

    init(url: PostgresStoreURL, channel: String, notified: @escaping @Sendable ([String]) -> Void,
         reconnected: @escaping @Sendable () -> Void) throws {
        self.url = url
        self.channel = channel
        self.notified = notified
        self.reconnected = reconnected
        try connect()
    }

    /// Connects, listens, and arranges to connect again if the connection closes.
    private func connect() throws {
        let connection = try PostgresConnection.connect(on: postgresEventLoops.next(), configuration: url.configuration, id: 0, logger: logger).wait()
        connection.addListener(channel: channel) { [weak self] _, notification in self?.received(notification.payload) }
        do {
            _ = try connection.query(PostgresQuery(unsafeSQL: "LISTEN \"\(channel)\""), logger: logger).wait()
        } catch {
            try? (connection.close() as EventLoopFuture<Void>).wait()
            throw PostgresConnectionSession.wireError(error, sql: "LISTEN")
        }
        let keep = lock.withLock { () -> Bool in
            guard !stopped else { return false }
            self.connection = connection
            return true
        }
        guard keep else {
            try? (connection.close() as EventLoopFuture<Void>).wait()
            return
        }
        connection.closeFuture.whenComplete { [weak self] _ in self?.lost() }
    }

    /// Payloads heard and not handed on yet, and whether a hand-on is waiting on the queue.
    private var heard: [String] = []
    private var handing = false

    /// A notification came (on the event loop): handed on from the queue, together with every other that
    /// comes before the queue gets to it — under load, one call for many commits
    /// rather than a queue that grows by one call per commit.
    private func received(_ payload: String) {
        let schedule = lock.withLock { () -> Bool in
            heard.append(payload)
            defer { handing = true }
            return !handing
        }
        guard schedule else { return }
        queue.async { [weak self] in
            guard let self else { return }
            let payloads = self.lock.withLock { () -> [String] in
                defer { self.heard = []; self.handing = false }
                return self.heard
            }
            self.notified(payloads)
        }
    }

    /// The listening connection closed: unless stopped, connect again (on a queue of its own, not the
    /// event loop), pausing longer after each failure.
    private func lost() {
        guard lock.withLock({ connection = nil; return !stopped }) else { return }
        DispatchQueue.global().async { [weak self] in
            var pause = 0.05
            while let self, !self.lock.withLock({ self.stopped }) {
                do {
                    try self.connect()
                    self.queue.async(execute: self.reconnected)
                    return
                } catch {
                    Thread.sleep(forTimeInterval: pause)
                    pause = min(pause * 2, 2)
                }
            }
        }
    }

    func stop() {
        let connection = lock.withLock { () -> PostgresConnection? in
            stopped = true
            defer { self.connection = nil }
            return self.connection
        }
        try? (connection?.close() as EventLoopFuture<Void>?)?.wait()
    }

    deinit { stop() }
}

/// A connection outside the pool, closed by ``close()`` (a query generation's transaction).
final class PostgresDedicatedConnection: PostgresDedicatedSession, @unchecked Sendable {
    private let session: PostgresConnectionSession
    private let lock = NSLock()
    private var closed = false

    init(url: PostgresStoreURL, logger: Logger) throws {
        do {
            let connection = try PostgresConnection.connect(on: postgresEventLoops.next(), configuration: url.configuration, id: 0, logger: logger).wait()
            session = PostgresConnectionSession(WatchedConnection(connection), logger: logger)
        } catch {
            throw PostgresConnectionSession.wireError(error, sql: nil)
        }
    }

    func run(_ sql: String, _ binds: [PostgresDatum]) throws -> PostgresResult {
        try lock.withLock { try session.run(sql, binds) }
    }

    func close() {
        guard lock.withLock({ () -> Bool in defer { closed = true }; return !closed }) else { return }
        try? (session.connection.close() as EventLoopFuture<Void>).wait()
    }

    deinit { close() }
}
