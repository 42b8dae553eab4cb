import Foundation
import NIOSSL
import OpenCoreData
import PostgresNIO

/// What a store URL says about the connection: `postgres://user:password@host:port/database` with
/// query items `schema` (the store's schema, default `public`), `pool` (at most this many connections,
/// default 4) and `sslmode` (`disable`, the default, or `require`).
struct PostgresStoreURL {
    let configuration: PostgresConnection.Configuration
    let poolSize: Int
    let schema: String

    init(_ url: URL) throws {
        guard let parts = URLComponents(url: url, resolvingAgainstBaseURL: false), let host = parts.host, !host.isEmpty else {
            throw Self.invalid(url, "it names no host")
        }
        let items = Dictionary((parts.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        schema = try PostgresStoreKind.schema(of: url)
        poolSize = try items["pool"].map { value in
            guard let n = Int(value), (1...64).contains(n) else { throw Self.invalid(url, "pool=\(value) is not 1…64") }
            return n
        } ?? 4
        let tls: PostgresConnection.Configuration.TLS
        switch items["sslmode"] ?? "disable" {
        case "disable": tls = .disable
        case "require": tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case let mode: throw Self.invalid(url, "sslmode=\(mode) is not disable or require")
        }
        let database = parts.path.split(separator: "/").first.map(String.init)
        var configuration = PostgresConnection.Configuration(host: host, port: parts.port ?? 5432, username: parts.user ?? NSUserName(),
                                                             password: parts.password, database: database, tls: tls)
        // Every connection works in the store's schema (names in the SQL are unqualified).
        configuration.options.additionalStartupParameters = [("search_path", "\"\(schema)\"")]
        self.configuration = configuration
    }

    private static func invalid(_ url: URL, _ why: String) -> CoreDataError {
        CoreDataError(NSPersistentStoreOpenError, "The PostgreSQL store URL \(url.absoluteString.replacingOccurrences(of: url.password ?? "\u{0}", with: "•••")) is not usable: \(why).")
    }
}
