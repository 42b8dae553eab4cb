import Foundation
import OpenCoreDataInspector
import Testing

/// The report `ocd-store FILE [--model MODEL]` prints, exactly, for stores Core Data wrote on Apple
/// platforms; every value is the one the fixtures' README lists for that store.
@Suite struct StoreReportTests {
    /// A WAL store whose rows are all in its -wal file (README: "opened without -wal, every entity table is
    /// empty"): the counts include the -wal, the metadata is Core Data's binary plist.
    @Test func aWALStoreFromDuckDuckGo() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let store = try AppleStores.copy("ddg-bookmarks", "Bookmarks_V1.sqlite", to: folder)
        let output = try StoreInspector.run(store: store)
        #expect(output.exitCode == 0)
        #expect(output.text == """
            Store file  \(store)
            SQLite      page size 4096, WAL, -wal file 16512 bytes, auto-vacuum on, user_version 0
            Store type  SQLite
            Store UUID  8E430534-5F59-49DB-9479-C3290AE2713E
            Framework   1251

            Metadata (Z_METADATA: Z_VERSION 1, Z_PLIST binary property list)
              NSPersistenceFrameworkVersion     1251
              NSStoreModelVersionHashesDigest   5KlKrVThxcoXSL+ZjFKY7n06yLOp+yhkgKcYEd/X2RK/9UmzKy8A4/X11PZ2vR9NjCIbeM7jNq9EoAHMv8yklQ==
              NSStoreModelVersionHashesVersion  3
              NSStoreModelVersionIdentifiers    [""]
              NSStoreType                       SQLite
              _NSAutoVacuumLevel                2

            Entity version hashes (NSStoreModelVersionHashes)
              BookmarkEntity  w3rZsxoc4/ryWBZERHF6cwMX3uBO+kGR0xCG0hefnCA=

            Entities (Z_PRIMARYKEY)
              Z_ENT  entity          parent  Z_MAX  table            rows
              1      BookmarkEntity  -       10     ZBOOKMARKENTITY  10

            Tables
              ZBOOKMARKENTITY  10
              Z_METADATA       1
              Z_MODELCACHE     1
              Z_PRIMARYKEY     1

            """)
    }

    /// Inheritance: three entities share `ZCAR`, each counted by its `Z_ENT` (README: 1:115, 2:5, 3:5);
    /// with the model folder, the first of its three versions matches.
    @Test func entitiesSharingATableAndTheMatchingVersion() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let store = try AppleStores.copy("coredataplus-samplemodel", "SampleModel_V1.sqlite", to: folder)
        let model = AppleStores.model("coredataplus-samplemodel", "SampleModel.xcdatamodeld")
        let output = try StoreInspector.run(store: store, model: model)
        #expect(output.exitCode == 0)
        #expect(output.text == """
            Store file  \(store)
            SQLite      page size 4096, WAL, -wal file 0 bytes, auto-vacuum on, user_version 0
            Store type  SQLite
            Store UUID  753753D3-A961-4901-AB05-8CC48B1D3853
            Framework   1044

            Metadata (Z_METADATA: Z_VERSION 1, Z_PLIST binary property list)
              NSPersistenceFrameworkVersion     1044
              NSStoreModelVersionHashesDigest   fACvwxty0QWritKFX3/LTtXZvI64UnFcRtP6qcjW1Yl0owr+rH+SpCvzy/uDYRpknMXbgacd3srn9wmE2KkL8Q==
              NSStoreModelVersionHashesVersion  3
              NSStoreModelVersionIdentifiers    ["1"]
              NSStoreType                       SQLite
              _NSAutoVacuumLevel                2

            Entity version hashes (NSStoreModelVersionHashes)
              Car                nlVVKQchWCING6zS+Ao9rUkZ90oyqovp7iKmp7QSbI8=
              ExpensiveSportCar  PcfjKxvkW1pMeVrJrz4dEKpyItPGmugFu+tECL3rpIA=
              Person             FkJoVRtFEIrnY6orph/zLTLTIyOFCYfD4hYHyNpEtys=
              SportCar           UU7BkHpWgpn5+2hREGUWE28HVfRfpTqCOg5NRAE9UxM=

            Entities (Z_PRIMARYKEY)
              Z_ENT  entity             parent    Z_MAX  table    rows
              1      Car                -         125    ZCAR     115
              2      SportCar           Car       0      ZCAR     5
              3      ExpensiveSportCar  SportCar  0      ZCAR     5
              4      Person             -         20     ZPERSON  20

            Tables
              ZCAR          125
              ZPERSON       20
              Z_METADATA    1
              Z_MODELCACHE  1
              Z_PRIMARYKEY  4

            Model SampleModel.xcdatamodeld (3 versions, current "SampleModel")
              SampleModel   matches the store
              SampleModel2  differs: Car, ExpensiveSportCar, LuxuryCar, Person, SportCar
              SampleModel3  differs: Car, ExpensiveSportCar, LuxuryCar, Maker, Person, SportCar
            The store matches model version "SampleModel".

            """)
    }

    /// The oldest store (framework 419, rollback journal, no Z_MODELCACHE) and an app-defined metadata key.
    @Test func otherFixturesReportTheirREADMEValues() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let old = try StoreInspector.run(store: try AppleStores.copy("bookmigration", "Model1.sqlite", to: folder)).text
        #expect(old.contains("SQLite      page size 4096, rollback journal, auto-vacuum on, user_version 0\n"))
        #expect(old.contains("Store UUID  EB0E13EE-F6AD-47EF-B7B2-FD2FB6A9F894\nFramework   419\n"))
        #expect(old.contains("  1      Book    -       12     ZBOOK  4\n  2      User    -       3      ZUSER  3\n"))
        #expect(!old.contains("Z_MODELCACHE"))
        let moody = try StoreInspector.run(store: try AppleStores.copy("objcio-moody", "Moody 4.moody", to: folder)).text
        #expect(moody.contains("  io.objc.Moody.CloudKitUserID      _62a0ed0ad3b375fc9ec7fdf66dfd9c63\n"))
        #expect(moody.contains("  NSStoreModelVersionIdentifiers    [\"4\"]\n"))
        let history = try StoreInspector.run(store: try AppleStores.copy("coredataplus-samplemodel2-history", "SampleModel2_V1.sqlite", to: folder)).text
        #expect(history.contains("  ACHANGE             5468\n"))
        #expect(history.contains("  ATRANSACTION        1\n  ATRANSACTIONSTRING  2\n"))
        #expect(history.contains("  ZPAGE               4970\n"))
    }

    /// `ocd-store FILE` prints the same report, exit status 0.
    @Test func theCommandPrintsTheReport() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let store = try AppleStores.copy("ddg-bookmarks", "Bookmarks_V2.sqlite", to: folder)
        let result = try OCDStoreTool.run([store])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == (try StoreInspector.run(store: store)).text)
        #expect(result.output.contains("Store UUID  596ECDCA-987E-454C-A269-04E0817C5E33\n"))
        #expect(result.errors.isEmpty)
    }
}
