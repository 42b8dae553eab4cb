import Foundation
import OpenCoreDataPostgres
import Testing

/// The PostgreSQL tests' server: there, or its absence said plainly. Without a server the PostgreSQL
/// cases of the conformance suite are not run; this test then fails when a server is required
/// (`OPENCOREDATA_REQUIRE_POSTGRES`, set by `.ci/run`) and is skipped, with the reason, otherwise.
@Suite("PostgreSQL test server")
struct PostgresServerTests {
    @Test(.disabled(if: PostgresTestServer.unavailable != nil && !PostgresTestServer.required,
                    Comment(rawValue: "no PostgreSQL server: \(PostgresTestServer.unavailable ?? "")")))
    func serverIsThere() throws {
        if let reason = PostgresTestServer.unavailable { Issue.record("OPENCOREDATA_REQUIRE_POSTGRES is set, but: \(reason)") }
        let url = try #require(PostgresTestServer.storeURL())
        let model = ConformanceModel.make()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        defer { try? coordinator.destroyPersistentStore(at: url, ofType: NSPostgreSQLStoreType) }
        #expect(store.type == NSPostgreSQLStoreType)
        #expect(coordinator.metadata(for: store)[NSStoreTypeKey] as? String == NSPostgreSQLStoreType)
    }
}
