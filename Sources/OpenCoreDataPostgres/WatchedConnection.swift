import Foundation
import NIOCore
import PostgresNIO

/// A connection whose close fails the statement waiting on it: a statement sent while the server was
/// going away could otherwise wait forever (seen when the server restarted under load: the socket was
/// gone and postgres-nio's future never completed). One observer of the close per connection, registered
/// when it is made; the one statement in flight (a connection runs one at a time) is the one it fails.
final class WatchedConnection: @unchecked Sendable {
    let connection: PostgresConnection
    private let lock = NSLock()
    private var waiting: EventLoopPromise<PostgresQueryResult>?

    init(_ connection: PostgresConnection) {
        self.connection = connection
        connection.closeFuture.whenComplete { [weak self] _ in self?.failWaiting() }
    }

    var isClosed: Bool { connection.isClosed }

    /// Closes the connection without waiting (a broken one may take long to close), keeping it until it
    /// has closed: a close asked from another thread happens later on the event loop, and postgres-nio
    /// traps (in debug builds: `assert`) when a connection it made is released still open — how a writer
    /// process crashed when the server restarted under it (issue 49).
    func closeInBackground() {
        _ = (connection.close() as EventLoopFuture<Void>).always { _ in withExtendedLifetime(self) {} }
    }

    /// The statement's answer, or ``ConnectionClosed`` as soon as the connection closes.
    func answer(_ query: EventLoopFuture<PostgresQueryResult>) -> EventLoopFuture<PostgresQueryResult> {
        let promise = query.eventLoop.makePromise(of: PostgresQueryResult.self)
        lock.withLock { waiting = promise }
        if connection.isClosed { failWaiting() }  // closed before the statement was registered
        query.whenComplete { [weak self] result in
            self?.lock.withLock { if self?.waiting?.futureResult === promise.futureResult { self?.waiting = nil } }
            promise.completeWith(result)
        }
        return promise.futureResult
    }

    private func failWaiting() {
        let promise = lock.withLock { () -> EventLoopPromise<PostgresQueryResult>? in
            defer { waiting = nil }
            return waiting
        }
        promise?.fail(ConnectionClosed())
    }

    /// The connection closed before a statement's answer came.
    struct ConnectionClosed: Error, CustomStringConvertible {
        var description: String { "the connection closed before the statement was answered" }
    }
}
