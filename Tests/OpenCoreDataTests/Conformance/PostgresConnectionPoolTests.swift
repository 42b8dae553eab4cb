import Foundation
import NIOCore
@testable import OpenCoreDataPostgres
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The PostgreSQL store's connection pool when a statement fails as a connection does (issue 49): the
/// connection is closed, not returned, and released only once it has closed — postgres-nio traps (in debug
/// builds) on a connection released still open, which stopped a writer process after a server restart.
@Suite("PostgreSQL connection pool",
       .disabled(if: PostgresTestServer.unavailable != nil, Comment(rawValue: "no PostgreSQL server: \(PostgresTestServer.unavailable ?? "")")))
struct PostgresConnectionPoolTests {
    /// A statement failing with SQLSTATE `class` while the connection stays open (the server sends such
    /// errors as it shuts down, just before it closes the socket).
    static func failing(_ sqlState: String) -> String {
        "DO $$ BEGIN RAISE EXCEPTION 'as if the server went away' USING ERRCODE = '\(sqlState)'; END $$"
    }

    @Test("A connection whose statement failed as the connection (08006, 57P01) is closed, and released only once closed",
          arguments: ["08006", "57P01"])
    func brokenConnectionIsReleasedClosed(_ sqlState: String) async throws {
        let url: URL = try #require(PostgresTestServer.storeURL())
        // In a process of its own: a connection released open stops it (SIGILL) at postgres-nio's assertion
        // "PostgresConnection deinitialized before being closed".
        await #expect(processExitsWith: .success) { [url = url as URL, sqlState = sqlState as String] in
            let pool = try PostgresConnectionPool(url: url)
            defer { pool.close() }
            for _ in 0..<3 {
                let error = #expect(throws: PostgresWireError.self) {
                    try pool.withSession { session in
                        let watched = try #require(session as? PostgresConnectionSession).watched
                        do {
                            _ = try session.run(Self.failing(sqlState), [])
                        } catch {
                            // The connection's event loop is kept busy, so that its close cannot have
                            // happened by the time the pool lets go of it.
                            watched.connection.eventLoop.execute { usleep(300_000) }
                            throw error
                        }
                    }
                }
                #expect(error?.sqlState == sqlState)
                #expect(error?.isConnectionFailure == true)
            }
            #expect(try pool.withSession { try $0.run("SELECT 1", []).rows } == [[.int(1)]], "the pool connects again")
        }
    }
}
