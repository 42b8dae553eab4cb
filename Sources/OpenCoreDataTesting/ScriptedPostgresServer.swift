import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL server of its own, run by Scripts/postgres-server.sh through `popen`: for what must
/// restart the server (the chaos trials), which a shared server cannot be.
public final class ScriptedPostgresServer: @unchecked Sendable {
    /// Its URL, without a schema.
    public let url: URL
    private let folder: String

    /// Scripts/postgres-server.sh, found from this file.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Scripts/postgres-server.sh").standardized.path

    /// Starts a server; `durable`: fsync and synchronous commits on, so that a commit the server
    /// acknowledged survives its crash.
    public init(durable: Bool) throws {
        folder = NSTemporaryDirectory() + "ocd-postgres-\(UUID().uuidString.prefix(8))"
        let printed = try Self.run("start '\(folder)'" + (durable ? " durable" : ""))
        guard let line = printed.split(separator: "\n").last, let url = URL(string: String(line)), url.scheme == "postgres" else {
            throw Failure("postgres-server.sh printed no URL: \(printed.suffix(300))")
        }
        self.url = url
    }

    /// Restarts it on the same port: `immediate` kills it (a crash, recovered from the WAL), else it
    /// stops cleanly (`fast`: sessions are ended, open transactions rolled back).
    public func restart(immediate: Bool) throws {
        _ = try Self.run("restart '\(folder)' \(immediate ? "immediate" : "fast")")
    }

    /// Stops it and removes its folder (also when it is released).
    public func stop() { _ = try? Self.run("stop '\(folder)'") }

    deinit { stop() }

    /// A URL for a store in `schema`.
    public func storeURL(schema: String) -> URL {
        var parts = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        parts.queryItems = [URLQueryItem(name: "schema", value: schema)]
        return parts.url!
    }

    /// The script failed: what it printed.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    private static func run(_ arguments: String) throws -> String {
        guard let pipe = popen("/bin/bash '\(script)' \(arguments) 2>&1", "r") else { throw Failure("cannot run \(script)") }
        var output = Data(), buffer = [UInt8](repeating: 0, count: 4096)
        while case let n = fread(&buffer, 1, buffer.count, pipe), n > 0 { output.append(contentsOf: buffer[0..<n]) }
        let status = pclose(pipe)
        let printed = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0 else { throw Failure("postgres-server.sh \(arguments) failed (status \(status)): \(printed.suffix(400))") }
        return printed
    }
}
