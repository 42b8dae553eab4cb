import Foundation
import Logging
import NIOCore
import NIOPosix
import OpenCoreDataTesting
import PostgresNIO

/// The floor: postgres-nio on one connection running the statements the PostgreSQL store runs for each
/// figure (the same text, the same bound values), decoding every cell into a Swift value.
final class RawPostgres {
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let connection: PostgresConnection
    private let logger = Logger(label: "compare-postgres")
    /// The product table's columns after `Z_PK`, `Z_ENT`, `Z_OPT`, in table order, with their types.
    private var columns: [(name: String, type: String)] = []

    init(_ server: URL, schema: String) throws {
        let parts = URLComponents(url: server, resolvingAgainstBaseURL: false)!
        var configuration = PostgresConnection.Configuration(host: parts.host!, port: parts.port ?? 5432, username: parts.user ?? "postgres",
                                                             password: parts.password, database: String(parts.path.dropFirst()), tls: .disable)
        configuration.options.additionalStartupParameters = [("search_path", "\"\(schema)\"")]
        connection = try PostgresConnection.connect(on: group.next(), configuration: configuration, id: 1, logger: logger).wait()
        columns = try query("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'zproducts' AND column_name NOT IN ('z_pk', 'z_ent', 'z_opt') ORDER BY ordinal_position")
            .map { row in (try row[0].decode(String.self), try row[1].decode(String.self)) }
    }

    func close() {
        try? (connection.close() as EventLoopFuture<Void>).wait()
        try? group.syncShutdownGracefully()
    }

    private func query(_ sql: String, _ bind: (inout PostgresBindings) throws -> Void = { _ in }) throws -> [PostgresRandomAccessRow] {
        var bindings = PostgresBindings()
        try bind(&bindings)
        return try connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).wait().rows.map { PostgresRandomAccessRow($0) }
    }

    /// One transaction: the keys reserved, the products in multi-row `INSERT`s of at most 65,535 bound
    /// values (as the store sends them), the change notice.
    func insert(_ count: Int) throws -> Double {
        let names = ["Z_PK", "Z_ENT", "Z_OPT"] + columns.map { $0.name.uppercased() }
        let perChunk = 65_535 / names.count
        var rng = SeededRandom(seed: 7)
        let start = now()
        _ = try query("BEGIN")
        let max = try query("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + $1 WHERE Z_ENT = $2 RETURNING Z_MAX") { $0.append(Int64(count)); $0.append(Int64(1)) }[0][0].decode(Int64.self)
        var first = 0
        while first < count {
            let n = min(perChunk, count - first)
            let rows = (0..<n).map { r in "(" + (0..<names.count).map { "$\(r * names.count + $0 + 1)" }.joined(separator: ", ") + ")" }
            _ = try query("INSERT INTO ZPRODUCTS (\(names.joined(separator: ", "))) VALUES \(rows.joined(separator: ", "))") { b in
                for i in first..<(first + n) {
                    b.append(max - Int64(count) + 1 + Int64(i)); b.append(Int64(1)); b.append(Int64(1))
                    for column in columns {
                        switch column.type {
                        case "bigint": b.append(Int64(rng.next() % 1000))
                        default: b.append(SeedModel.productNames[Int(rng.next() % UInt64(SeedModel.productNames.count))])
                        }
                    }
                }
            }
            first += n
        }
        _ = try query("SELECT pg_notify($1, $2)") { $0.append("ocd_bench"); $0.append("raw") }
        _ = try query("COMMIT")
        return now() - start
    }

    private var selectList: String { (["t0.Z_PK", "t0.Z_ENT", "t0.Z_OPT"] + columns.map { "t0.\($0.name.uppercased())" }).joined(separator: ", ") }

    func fetch() throws -> Double {
        let start = now()
        var total = 0
        for row in try query("SELECT \(selectList) FROM ZPRODUCTS t0 WHERE t0.ZPRICE < $1 ORDER BY t0.ZPRICE NULLS FIRST, t0.Z_PK NULLS FIRST", { $0.append(Int64(500)) }) {
            total &+= Int(try row[0].decode(Int64.self))
            for (i, column) in columns.enumerated() {
                if column.type == "bigint" { total &+= Int(try row[3 + i].decode(Int64?.self) ?? 0) } else { total &+= (try row[3 + i].decode(String?.self))?.utf8.count ?? 0 }
            }
        }
        precondition(total != 0)
        return now() - start
    }

    func count() throws -> Double {
        let start = now()
        let count = try query("SELECT COUNT(*) FROM ZPRODUCTS t0 WHERE t0.ZPRICE < $1") { $0.append(Int64(500)) }[0][0].decode(Int64.self)
        precondition(count > 0)
        return now() - start
    }

    func singleChange() throws -> Double {
        let start = now()
        let row = try query("SELECT \(selectList) FROM ZPRODUCTS t0 WHERE t0.ZNAME = $1 ORDER BY t0.Z_PK NULLS FIRST LIMIT 1") { $0.append(SeedModel.productNames[0]) }[0]
        let (pk, version) = (try row[0].decode(Int64.self), try row[2].decode(Int64.self))
        let price = try row[3 + columns.firstIndex { $0.name == "zprice" }!].decode(Int64.self)
        _ = try query("BEGIN")
        _ = try query("UPDATE ZPRODUCTS SET Z_OPT = $1, ZPRICE = $2 WHERE Z_PK = $3 AND Z_OPT = $4") { b in
            b.append(version + 1); b.append(price + 1); b.append(pk); b.append(version)
        }
        _ = try query("SELECT pg_notify($1, $2)") { $0.append("ocd_bench"); $0.append("raw") }
        _ = try query("COMMIT")
        return now() - start
    }
}

/// The server the figures run against: `OPENCOREDATA_POSTGRES_URL`, else one started for the run.
struct BenchServer {
    let url: URL
    let folder: String?

    static func start() throws -> BenchServer {
        if let given = ProcessInfo.processInfo.environment["OPENCOREDATA_POSTGRES_URL"], let url = URL(string: given) {
            return BenchServer(url: url, folder: nil)
        }
        let folder = NSTemporaryDirectory() + "compare-postgres-\(UUID().uuidString)"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Scripts/postgres-server.sh").standardized.path
        guard let pipe = popen("/bin/bash '\(script)' start '\(folder)'", "r") else { throw CocoaError(.fileNoSuchFile) }
        var output = Data(), buffer = [UInt8](repeating: 0, count: 4096)
        while case let n = fread(&buffer, 1, buffer.count, pipe), n > 0 { output.append(contentsOf: buffer[0..<n]) }
        guard pclose(pipe) == 0, let url = URL(string: String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw CocoaError(.executableLoad)
        }
        return BenchServer(url: url, folder: folder)
    }

    func stop() {
        guard let folder else { return }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Scripts/postgres-server.sh").standardized.path
        _ = system("/bin/bash '\(script)' stop '\(folder)' >/dev/null 2>&1")
    }
}
