import Foundation
import OpenCoreData
import OpenCoreDataInspector
import OpenCoreDataTesting
import Testing

/// Which model version wrote a store, or entity by entity what differs: on Apple's stores (each with the
/// versioned model that wrote it) and on stores this project writes.
@Suite struct ModelMatchTests {
    /// Each DuckDuckGo store matches its own version of the six (README: "Store Bookmarks_Vn pairs with
    /// model version n"), and no other.
    @Test func eachStoreMatchesTheVersionThatWroteIt() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let model = AppleStores.model("ddg-bookmarks", "BookmarksModel.xcdatamodeld")
        for n in 1...5 {
            let store = try StoreSummary(path: try AppleStores.copy("ddg-bookmarks", "Bookmarks_V\(n).sqlite", to: folder))
            let comparison = try ModelComparison(store: store, modelPath: model)
            #expect(comparison.versions.map(\.name) == ["BookmarksModel", "BookmarksModel 2", "BookmarksModel 3",
                                                        "BookmarksModel 4", "BookmarksModel 5", "BookmarksModel 6"])
            #expect(comparison.currentName == "BookmarksModel 6")
            #expect(comparison.versions.filter(\.matches).map(\.name) == [n == 1 ? "BookmarksModel" : "BookmarksModel \(n)"])
        }
    }

    /// Moody 4's store against model version 3: two entities' hashes differ (README: Continent and Country
    /// changed; Mood's hash is equal in stores 3 and 4, so Mood is not listed), and the abstract
    /// GeographicRegion of version 3 is not in the store.
    @Test func whatDiffersEntityByEntity() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let store = try AppleStores.copy("objcio-moody", "Moody 4.moody", to: folder)
        let model = AppleStores.model("objcio-moody", "Moody.xcdatamodeld/Moody 3.xcdatamodel")
        let output = try StoreInspector.run(store: store, model: model)
        #expect(output.exitCode == 0)
        let modelSection = try #require(output.text.range(of: "Model Moody 3.xcdatamodel"))
        #expect(output.text[modelSection.lowerBound...] == """
            Model Moody 3.xcdatamodel
              Moody 3  differs: Continent, Country, GeographicRegion
            No version matches the store; the closest is "Moody 3":
              Continent         version hash differs: store fn1XS7ktx0POyYzbkKIyWrJJBDOyP7C6dI5c4kob5Ps=, model GU9d9pcV1QSZehlNSsG6C6rLKpy2Ci8zhYSJeGEVRX0=
              Country           version hash differs: store SuE3vZK9ClO2XyMZ7Q01ApSgG3j/qM+iKvy6mBbFFyQ=, model K6AnzAVupL2ZiDPpBFhiQeHuU6+zOSbCTumRDZlfsAE=
              GeographicRegion  in the model, not in the store

            """)
    }

    /// An entity the store has and the model lacks is named too (SampleModel_V2's LuxuryCar against the
    /// first version, whose sub-entity is still ExpensiveSportCar).
    @Test func anEntityOnlyInTheStore() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let store = try StoreSummary(path: try AppleStores.copy("coredataplus-samplemodel", "SampleModel_V2.sqlite", to: folder))
        let comparison = try ModelComparison(
            store: store, modelPath: AppleStores.model("coredataplus-samplemodel", "SampleModel.xcdatamodeld/SampleModel.xcdatamodel"))
        let differences = try #require(comparison.versions.first).differences
        #expect(differences.contains(.onlyInStore("LuxuryCar")))
        #expect(differences.contains(.onlyInModel("ExpensiveSportCar")))
        #expect(comparison.matching == nil)
    }

    /// A store written here with the Zootastic model matches that model; with the model an app's next
    /// version would have (an attribute more, an entity more) no version matches and the report names
    /// what differs.
    @Test func aStoreThisProjectWroteMatchesItsModelAndNotAChangedOne() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let (store, model) = try ZooStore.make(in: folder)
        let matching = try StoreInspector.run(store: store, model: model)
        #expect(matching.exitCode == 0)
        #expect(matching.text.contains("""
            Model Zoo.xcdatamodeld
              Zoo  matches the store

            """))
        #expect(matching.text.hasSuffix("The store matches model version \"Zoo\".\n"))
        #expect(matching.text.contains("  1      Animal          -       4      ZANIMAL          4\n"))

        let changed = try ZooStore.changedModel(in: folder)
        let report = try StoreInspector.run(store: store, model: changed).text
        #expect(report.contains("No version matches the store; the closest is \"ZooChanged\":\n"))
        #expect(report.contains("  Keeper  in the model, not in the store\n") || report.contains("  Keeper        in the model, not in the store\n"))
        // What else differs depends on what the store records: Core Data's entity hashes name Animal; a
        // store written before OpenCoreData recorded them has one model hash, compared whole.
        let differences = try ModelComparison(store: try StoreSummary(path: store), modelPath: changed).versions[0].differences
        #expect(Set(differences.map(\.entityName)) == ["Animal", "Keeper"] || Set(differences.map(\.entityName)) == ["Keeper", nil])
    }

    /// A model file that does not read is a clear error naming it, exit status 1.
    @Test func aModelThatDoesNotRead() throws {
        let folder = TemporaryFolder()
        defer { folder.cleanUp() }
        let store = try AppleStores.copy("ddg-bookmarks", "Bookmarks_V1.sqlite", to: folder)
        let bogus = folder.path("Bogus.xcdatamodel")
        try FileManager.default.createDirectory(atPath: bogus, withIntermediateDirectories: true)
        try Data("<model><entity name=".utf8).write(to: URL(fileURLWithPath: bogus + "/contents"))
        #expect(throws: InspectorError.self) { try StoreInspector.run(store: store, model: bogus) }
        let result = try OCDStoreTool.run([store, "--model", bogus])
        #expect(result.status == 1)
        #expect(result.errors.hasPrefix("ocd-store: cannot read the model \(bogus): "))
        #expect(result.output.isEmpty)
    }
}

extension ModelComparison.Difference {
    /// The entity named, nil for the whole-model hash.
    var entityName: String? {
        switch self {
        case .hashDiffers(let name, _, _), .onlyInStore(let name), .onlyInModel(let name): return name
        case .modelHashDiffers: return nil
        }
    }
}
