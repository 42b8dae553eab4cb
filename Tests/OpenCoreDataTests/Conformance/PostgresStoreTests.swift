import Foundation
@testable import OpenCoreData
import OpenCoreDataPostgres
import Testing

/// What only the PostgreSQL store has: its layout in the database, keys reserved safely by many
/// coordinators at once, a refused save that leaves every row as it was, and change notices that resume
/// after the listening connection is lost. Against the tests' server (``PostgresTestServer``).
@Suite("PostgreSQL store", .enabled(if: PostgresTestServer.unavailable == nil))
struct PostgresStoreTests {
    /// A raw connection to the store's schema, for checking what is in the database.
    private func rows(_ url: URL, _ sql: String) throws -> [[PostgresDatum]] {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ConformanceModel.make())
        let store = try coordinator.addPersistentStore(ofType: NSPostgreSQLStoreType, configurationName: nil, at: url, options: nil)
        return try #require(store.backend as? PostgresStore).run(sql).rows
    }

    private func fresh() throws -> (URL, StorePlace) {
        let place = StoreUnderTest.postgres.fresh()
        return (try #require(place.url), place)
    }

    @Test func theLayoutIsCoreDatas() throws {
        let (url, place) = try fresh()
        defer { place.cleanUp() }
        let tables = try rows(url, "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name")
        #expect(tables.compactMap { $0[0].text } == ["z_metadata", "z_primarykey", "zauthor", "zbook", "ztag"])
        let columns = try rows(url, "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'zbook' ORDER BY ordinal_position")
        // Core Data's column order (integers, with the foreign keys, then reals, decimals, text, data).
        #expect(columns.map { "\($0[0].text ?? "") \($0[1].text ?? "")" } == [
            "z_pk bigint", "z_ent bigint", "z_opt bigint", "zinprint bigint", "zpages bigint", "zauthor bigint", "zpublished double precision",
            "zrating double precision", "zprice double precision", "ztitle text", "zisbn bytea", "zcover bytea",
        ])
        let unique = try rows(url, "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'ztag' AND indexdef LIKE '%UNIQUE%' AND indexname <> 'ztag_pkey'")
        #expect(unique.count == 1)
    }

    /// Coordinators with pools of their own insert at once; every object gets a key of its own, and
    /// `Z_MAX` ends at the number of rows.
    @Test func keysAreUniqueAcrossCoordinators() throws {
        let (url, place) = try fresh()
        defer { place.cleanUp() }
        let writers = 4, saves = 10, perSave = 5
        let coordinators = try (0..<writers).map { _ in try place.coordinator() }
        DispatchQueue.concurrentPerform(iterations: writers) { w in
            let context = StorePlace.context(of: coordinators[w])
            context.performAndWait {
                for s in 0..<saves {
                    for i in 0..<perSave { ConformanceModel.tag("w\(w)-s\(s)-\(i)", "x", in: context) }
                    do { try context.save() } catch { Issue.record("writer \(w) save \(s): \(error)") }
                }
            }
        }
        let keys = try rows(url, "SELECT Z_PK FROM ZTAG ORDER BY Z_PK").compactMap { $0[0].integer }
        #expect(keys == Array(1...Int64(writers * saves * perSave)))
        let max = try rows(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Tag'").first?.first?.integer
        #expect(max == Int64(writers * saves * perSave))
    }

    /// A save refused by a uniqueness constraint (error merge policy) writes nothing: every row and
    /// `Z_MAX` as before, byte for byte.
    @Test func aRefusedSaveLeavesTheRows() throws {
        let (url, place) = try fresh()
        defer { place.cleanUp() }
        let context = try place.context()
        try context.performAndWait { () throws in
            ConformanceModel.tag("a", "first", in: context)
            ConformanceModel.author("Ann", books: ["One", "Two"], in: context)
            try context.save()
        }
        let dump = "SELECT (SELECT string_agg(t::text, ';' ORDER BY Z_PK) FROM ZTAG t) || '|' || (SELECT string_agg(b::text, ';' ORDER BY Z_PK) FROM ZBOOK b) || '|' || (SELECT string_agg(k::text, ';' ORDER BY Z_ENT) FROM Z_PRIMARYKEY k)"
        let before = try rows(url, dump)
        let other = try place.context()
        try other.performAndWait { () throws in
            ConformanceModel.tag("a", "again", in: other)
            ConformanceModel.author("Bob", books: ["Three"], in: other)
            #expect(throws: (any Error).self) { try other.save() }
        }
        #expect(try rows(url, dump) == before)
    }

    /// The listening connection is ended by the server (as a restart or a network drop would): the
    /// store says so once it listens again, and other coordinators' saves are announced after that.
    @Test func noticesResumeAfterTheListenerIsCutOff() throws {
        let (url, place) = try fresh()
        defer { place.cleanUp() }
        let watching = try place.coordinator(options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true])
        defer { try? watching.remove(watching.persistentStores[0]) }
        let posted = DispatchSemaphore(value: 0)
        let observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: watching, queue: nil) { _ in posted.signal() }
        defer { NotificationCenter.default.removeObserver(observer) }
        let channel = "ocd_" + (try PostgresStoreKind.schema(of: url))
        let cut = try rows(url, "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query = 'LISTEN \"\(channel)\"'")
        #expect(cut.first?.first?.integer == 1)
        #expect(posted.wait(timeout: .now() + 10) == .success, "no notice after the listener came back")
        try ConformanceModel.seedAuthors(StorePlace.context(of: place.coordinator()))
        #expect(posted.wait(timeout: .now() + 10) == .success, "another coordinator's save was not announced after the reconnection")
    }

    /// Each save's notice carries its own history transaction's number: five saves in a row are announced
    /// with their own tokens (commits heard together are told once, with the last one's), in commit order,
    /// ending with the last save's.
    @Test func eachNoticeCarriesItsTransactionsToken() throws {
        let (_, place) = try fresh()
        defer { place.cleanUp() }
        let options: [AnyHashable: Any] = [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true, NSPersistentHistoryTrackingKey: true]
        let watching = try place.coordinator(options: options)
        defer { try? watching.remove(watching.persistentStores[0]) }
        let tokens = LockedValue<[NSPersistentHistoryToken]>([])
        let posted = DispatchSemaphore(value: 0)
        let observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: watching, queue: nil) { note in
            if let token = note.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken { tokens.withLock { $0.append(token) } }
            posted.signal()
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let writing = try place.coordinator(options: [NSPersistentHistoryTrackingKey: true])
        let context = StorePlace.context(of: writing)
        var saved: [NSPersistentHistoryToken] = []
        for _ in 0..<5 {
            try ConformanceModel.seedAuthors(context)
            saved.append(try #require(writing.currentPersistentHistoryToken(fromStores: nil)))
        }
        while tokens.withLock({ $0.last }) != saved.last, posted.wait(timeout: .now() + 10) == .success {}
        let heard = tokens.withLock { $0 }
        #expect(heard.last == saved.last)
        #expect(heard.allSatisfy(saved.contains), "every token is one save's: \(heard) of \(saved)")
        #expect(zip(heard, heard.dropFirst()).allSatisfy { $0.transactionNumber < $1.transactionNumber }, "in commit order")
    }

    /// Coordinators whose saves record one new author at once all save: each updates a book of its own
    /// (no key to reserve, so nothing orders them before the history), and a second insert of the same
    /// history string waits for the first, adds nothing and takes its key.
    @Test func concurrentSavesShareANewHistoryString() throws {
        let (url, place) = try fresh()
        defer { place.cleanUp() }
        try ConformanceModel.seedAuthors(StorePlace.context(of: place.coordinator()))  // four books
        let author = "author-\(UUID().uuidString)"
        let coordinators = try (0..<4).map { _ in try place.coordinator(options: [NSPersistentHistoryTrackingKey: true]) }
        let failures = LockedValue<[String]>([])
        DispatchQueue.concurrentPerform(iterations: coordinators.count) { i in
            let context = StorePlace.context(of: coordinators[i])
            context.transactionAuthor = author
            context.performAndWait {
                do {
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
                    request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
                    let book = try context.fetch(request)[i]
                    book.setValue("edition \(i)", forKey: "title")
                    try context.save()
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(try rows(url, "SELECT COUNT(*) FROM ATRANSACTIONSTRING WHERE ZNAME = '\(author)'").first?.first?.integer == 1)
        #expect(try rows(url, "SELECT COUNT(*) FROM ATRANSACTION").first?.first?.integer == 4)
    }
}

