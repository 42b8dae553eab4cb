import Foundation
import OpenCoreDataPostgres

/// The PostgreSQL server the tests use: the one `OPENCOREDATA_POSTGRES_URL` names (`.ci/run` starts one
/// and sets it), or the server of a `postgres://` `OPENCOREDATA_STORE_URL` (each store still gets a schema
/// of its own), else one these tests start in a temporary folder with Scripts/postgres-server.sh (stopped
/// when the test process exits). When neither works, ``unavailable`` says why: the PostgreSQL tests are
/// then skipped with that message — unless `OPENCOREDATA_REQUIRE_POSTGRES` is set (CI sets it), when
/// ``PostgresServerTests`` fails instead.
enum PostgresTestServer {
    /// The server's URL (no schema), or why there is none.
    static let server: Result<URL, Failure> = {
        let environment = ProcessInfo.processInfo.environment
        for name in ["OPENCOREDATA_POSTGRES_URL", "OPENCOREDATA_STORE_URL"] {
            guard let given = environment[name], !given.isEmpty else { continue }
            guard let url = URL(string: given) else { return .failure(Failure("\(name) is not a URL: \(given)")) }
            if name == "OPENCOREDATA_STORE_URL" && !["postgres", "postgresql"].contains(url.scheme?.lowercased() ?? "") { continue }
            return .success(url)
        }
        return start()
    }()

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Why there is no server, `nil` when there is one.
    static var unavailable: String? {
        if case .failure(let failure) = server { return failure.description }
        return nil
    }

    /// Whether a missing server is a failure rather than a skip.
    static var required: Bool { ProcessInfo.processInfo.environment["OPENCOREDATA_REQUIRE_POSTGRES"].map { !$0.isEmpty && $0 != "0" } ?? false }

    /// A URL for a new store in a schema of its own (`ocd_<random>`).
    static func storeURL(_ name: String = "ocd_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)) -> URL? {
        guard case .success(let url) = server, var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        parts.queryItems = (parts.queryItems ?? []).filter { $0.name != "schema" } + [URLQueryItem(name: "schema", value: name)]
        return parts.url
    }

    /// Scripts/postgres-server.sh, found from this file.
    private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../Scripts/postgres-server.sh").standardized.path

    /// Starts a server with Scripts/postgres-server.sh (through `popen`: Foundation's `Process` may never
    /// see a child's exit inside the test runner); stops it when the process exits.
    private static func start() -> Result<URL, Failure> {
        let folder = NSTemporaryDirectory() + "ocd-postgres-\(UUID().uuidString)"
        guard let pipe = popen("/bin/bash '\(script)' start '\(folder)' 2>&1", "r") else {
            return .failure(Failure("could not run \(script)"))
        }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, pipe)
            if n <= 0 { break }
            output.append(contentsOf: buffer[0..<n])
        }
        let status = pclose(pipe)
        let printed = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0, let line = printed.split(separator: "\n").last, let url = URL(string: String(line)), url.scheme == "postgres" else {
            return .failure(Failure("no PostgreSQL server could start (\(URL(fileURLWithPath: script).lastPathComponent) exited with status \(status)): \(printed.suffix(400))"))
        }
        stopCommand = "/bin/bash '\(script)' stop '\(folder)' >/dev/null 2>&1"
        atexit { if let command = PostgresTestServer.stopCommand { _ = system(command) } }
        return .success(url)
    }

    nonisolated(unsafe) private static var stopCommand: String?
}

@testable import OpenCoreData

extension PostgresTestServer {
    /// Everything in a store's schema, as text: each table's rows (sorted) and each index's definition —
    /// what a test compares before and after an operation that must leave the database as it was.
    static func dump(_ url: URL) throws -> [String] {
        guard case .kind(let found)? = StoreRegistry.entry(for: PostgresStoreKind.type), let kind = found as? PostgresStoreKind else {
            throw Failure("the PostgreSQL store type is not registered")
        }
        let wire = try kind.connect(url)
        defer { wire.close() }
        return try wire.withSession { session in
            var lines: [String] = []
            let tables = try session.run("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name", [])
            for name in tables.rows.compactMap({ $0.first?.text }) {
                lines.append("table \(name)")
                lines += try session.run("SELECT r::text FROM \(name) r ORDER BY 1", []).rows.map { $0.first?.text ?? "?" }
            }
            let indexes = try session.run("SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname", [])
            return lines + indexes.rows.map { $0.first?.text ?? "?" }
        }
    }
}
