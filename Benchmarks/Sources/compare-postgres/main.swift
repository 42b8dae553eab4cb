import Foundation
import Logging
import NIOCore
import NIOPosix
import OpenCoreDataPostgres
import OpenCoreDataTesting
import PostgresNIO

// The PostgreSQL store against its floor, postgres-nio running the same SQL on one connection, and against
// the SQLite store, in one process (Benchmarks/README.md, "PostgreSQL"):
//
//     swift run -c release --package-path Benchmarks compare-postgres [--rows N] [--repetitions R]
//
// The server is the one OPENCOREDATA_POSTGRES_URL names, else one started with Scripts/postgres-server.sh
// (stopped at the end). Each run uses schemas of its own, dropped at the end.

var rows = 100_000, repetitions = 5
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--rows": rows = arguments.next().flatMap { Int($0) } ?? rows
    case "--repetitions": repetitions = arguments.next().flatMap { Int($0) } ?? repetitions
    default:
        FileHandle.standardError.write(Data("usage: compare-postgres [--rows N] [--repetitions R]\n".utf8))
        exit(2)
    }
}

let server = try BenchServer.start()
defer { server.stop() }
let tag = UUID().uuidString.prefix(8).lowercased()
let ours = try BenchStores.postgres(server.url, schema: "bench_ours_\(tag)")
let floorStore = try BenchStores.postgres(server.url, schema: "bench_raw_\(tag)")
let sqliteFile = FileManager.default.temporaryDirectory.appendingPathComponent("compare-postgres-\(tag).sqlite")
let sqlite = try BenchStores.sqlite(sqliteFile)
defer {
    for (url, type) in [(ours.url, NSPostgreSQLStoreType), (floorStore.url, NSPostgreSQLStoreType), (sqliteFile, NSSQLiteStoreType)] {
        try? NSPersistentStoreCoordinator(managedObjectModel: SeedModel.makeCurrent()).destroyPersistentStore(at: url, ofType: type)
    }
}
let raw = try RawPostgres(server.url, schema: "bench_raw_\(tag)")
defer { raw.close() }

progress("inserting \(rows) products into each store")
let insertOurs = try BenchStores.insert(rows, into: ours.container)
let insertSQLite = try BenchStores.insert(rows, into: sqlite.container)
let insertRaw = try raw.insert(rows)

var table: [(String, Double, Double, Double)] = [("P1 insert + save \(rows) products", insertOurs, insertRaw, insertSQLite)]
progress("fetching (\(repetitions) runs each)")
let fetchOurs = try medianOf(repetitions) { try BenchStores.fetch(ours.container) }
let fetchRaw = try medianOf(repetitions) { try raw.fetch() }
let fetchSQLite = try medianOf(repetitions) { try BenchStores.fetch(sqlite.container) }
table.append(("P2 fetch price < 500 sorted by price (~\(rows / 2) objects, values read)", fetchOurs, fetchRaw, fetchSQLite))
let countOurs = try medianOf(repetitions) { try BenchStores.count(ours.container) }
let countRaw = try medianOf(repetitions) { try raw.count() }
let countSQLite = try medianOf(repetitions) { try BenchStores.count(sqlite.container) }
table.append(("P3 count price < 500", countOurs, countRaw, countSQLite))
let changeOurs = try medianOf(repetitions) { try BenchStores.singleChange(ours.container) }
let changeRaw = try medianOf(repetitions) { try raw.singleChange() }
let changeSQLite = try medianOf(repetitions) { try BenchStores.singleChange(sqlite.container) }
table.append(("P4 change one product's price and save", changeOurs, changeRaw, changeSQLite))

print("| figure | PostgreSQL store | raw postgres-nio (floor) | ours / floor | SQLite store | PostgreSQL / SQLite |")
print("|---|---|---|---|---|---|")
for (name, a, b, c) in table {
    print("| \(name) | \(seconds(a)) | \(seconds(b)) | \(String(format: "%.2f×", a / b)) | \(seconds(c)) | \(String(format: "%.2f×", a / c)) |")
}
