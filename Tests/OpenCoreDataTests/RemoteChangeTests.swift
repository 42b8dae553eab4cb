import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Live controllers across processes (issue 38, item 4): a second process writes random histories (saves and
/// batch requests) while this one's controllers merge each transaction from history, announced by remote change
/// notifications, and after every write their headless tables equal a fresh fetch. (A coordinator's own commits
/// are not announced: `RemoteChangeWatcherTests` in the concurrency tests.)
@Suite("Remote change notifications", .serialized)
struct RemoteChangeTests {
    /// The stores these tests run on: a SQLite file, and a PostgreSQL database when the tests have a server.
    static let stores: [StoreUnderTest] = [.sqlite] + (PostgresTestServer.unavailable == nil ? [.postgres] : [])

    @Test("Controllers in this process follow another process's random saves and batch requests through history",
          arguments: stores)
    func acrossProcesses(_ kind: StoreUnderTest) throws {
        let writerURL = try #require(CrashConsistencyTests.writerURL, "ocd-crash-writer is built with the tests")
        let store = kind.fresh()
        defer { store.cleanUp() }
        let url = try #require(store.url)
        let coordinator = try NSPersistentStoreCoordinator.seedStore(at: url, posting: true)
        let view = NSManagedObjectContext(.privateQueue)
        view.persistentStoreCoordinator = coordinator
        let byName = NSFetchRequest<NSManagedObject>(entityName: "Products")
        byName.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: true)]
        let cheap = NSFetchRequest<NSManagedObject>(entityName: "Products")
        cheap.predicate = NSPredicate(format: "price < 500")
        cheap.sortDescriptors = [NSSortDescriptor(key: "price", ascending: false)]
        func cell(_ o: NSManagedObject) -> String { "\(o.value(forKey: "name") ?? "") \(o.value(forKey: "price") ?? "")" }
        let tables = try view.performAndWait {
            [try makeRecordedTable(byName, in: view, sectionNameKeyPath: "name", cell: cell), try makeRecordedTable(cheap, in: view, cell: cell)]
        }
        let inbox = NotificationInbox()
        let observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil) { inbox.append($0) }
        defer { NotificationCenter.default.removeObserver(observer) }

        let process = Process()
        process.executableURL = writerURL
        process.arguments = ["--history-writer", url.isFileURL ? url.path : url.absoluteString, "5", "150"]
        let output = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        var token: NSPersistentHistoryToken?
        var lines = LineReader(output.fileHandleForReading)
        var latencies: [Double] = []
        var handled: Int64 = 0, writes = 0
        while let line = lines.next(), line != "done" {
            let parts = line.split(separator: " ")
            guard parts.count == 3, parts[0] == "commit", let number = Int64(parts[1]), let committed = Int64(parts[2]) else {
                Issue.record("writer: \(line)"); break
            }
            writes += 1
            if number > handled {
                while (inbox.all.last?.info[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken)?.transactionNumber ?? 0 < number {
                    guard inbox.wait(5) else { Issue.record("no remote change for transaction \(number)"); return }
                }
                let seen = inbox.all.first { ($0.info[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken)?.transactionNumber ?? 0 >= number }!
                latencies.append(Double(seen.time - committed) / 1e6)
                try view.performAndWait {
                    let request = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
                    for transaction in (try view.execute(request) as! NSPersistentHistoryResult).result as! [NSPersistentHistoryTransaction] {
                        view.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
                        token = transaction.token
                    }
                    handled = number
                    for (i, (controller, table, _)) in tables.enumerated() {
                        let fresh = NSManagedObjectContext(.privateQueue)
                        fresh.persistentStoreCoordinator = coordinator
                        let expected = try fresh.performAndWait { try fresh.fetch(i == 0 ? byName : cheap).map(cell) }
                        #expect(table.rows.flatMap { $0 } == expected, "write \(writes), table \(i)")
                        #expect(table.errors.isEmpty, "write \(writes), table \(i): \(table.errors)")
                        #expect(controller.fetchedObjects?.map(cell) == expected)
                    }
                }
            }
            input.fileHandleForWriting.write(Data("ok\n".utf8))
        }
        process.waitUntilExit()
        #expect(writes == 150 && process.terminationStatus == 0)
        latencies.sort()
        if !latencies.isEmpty {
            let p50 = latencies[latencies.count / 2], p99 = latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
            print("remote change latency across processes (\(kind.name)): \(latencies.count) commits, p50 \(String(format: "%.1f", p50)) ms, p99 \(String(format: "%.1f", p99)) ms")
        }
    }
}

/// Lines of a pipe, read as they come.
struct LineReader {
    let handle: FileHandle
    var buffer = Data()
    init(_ handle: FileHandle) { self.handle = handle }
    mutating func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let chunk = handle.availableData
            guard !chunk.isEmpty else { return buffer.isEmpty ? nil : String(decoding: buffer, as: UTF8.self) }
            buffer += chunk
        }
    }
}
