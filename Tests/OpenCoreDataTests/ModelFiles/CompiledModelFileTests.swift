import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Compiled model files as Xcode's model compiler makes them: a `.mom` file (the keyed archive a store's
/// model cache also holds) and a `.momd` folder of versions with its `VersionInfo.plist`, read by
/// `NSManagedObjectModel(contentsOf:)`, `mergedModel(from:)` and `NSPersistentContainer(name:)`.
@Suite("Compiled model files (.mom, .momd)")
struct CompiledModelFileTests {
    static let fixtures = VersionHashTests.fixtures

    static func cache(_ fixture: String, _ store: String) throws -> Data {
        try #require(try CompiledModelFixtures.archive(fixtures.appendingPathComponent(fixture).appendingPathComponent(store)))
    }

    static func storedHashes(_ fixture: String, _ store: String) throws -> [String: Data] {
        let metadata = try VersionHashTests.metadata(of: fixtures.appendingPathComponent(fixture).appendingPathComponent(store))
        return try #require(metadata[NSStoreModelVersionHashesKey] as? [String: Data])
    }

    /// A `.mom` file reads as the model it holds; the model loads into a coordinator and a store of it saves
    /// and fetches.
    @Test func aMomFileReads() throws {
        let folder = TemporaryStore()
        defer { folder.cleanUp() }
        let url = folder.directory.appendingPathComponent("Test.mom")
        try Self.cache("contentful-test", "Test.sqlite").write(to: url)
        let model = try #require(NSManagedObjectModel(contentsOf: url))
        #expect(model.entityVersionHashesByName == (try Self.storedHashes("contentful-test", "Test.sqlite")))
        #expect(model.versions.isEmpty && model.versionName == nil)
        #expect(try NSManagedObjectModel(validatingContentsOf: url).entityVersionHashesByName == model.entityVersionHashesByName)

        for entity in model.entities { entity.managedObjectClassName = "NSManagedObject" }  // test classes named Author, Post… exist elsewhere
        let container = try folder.container(model)
        let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: container.viewContext)
        author.setValue("a1", forKey: "id")
        let photo = NSEntityDescription.insertNewObject(forEntityName: "Asset", into: container.viewContext)
        photo.setValue("photo", forKey: "id")
        photo.setValue("Portrait", forKey: "title")
        author.setValue(photo, forKey: "profilePhoto")
        let post = NSEntityDescription.insertNewObject(forEntityName: "Post", into: container.viewContext)
        post.setValue("p1", forKey: "id")
        post.setValue(NSOrderedSet(object: author), forKey: "authors")
        try container.viewContext.save()
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let authors = try reader.fetch(NSFetchRequest<NSFetchRequestResult>(entityName: "Author")) as! [NSManagedObject]
            #expect(authors.map { ($0.value(forKey: "profilePhoto") as? NSManagedObject)?.value(forKey: "title") as? String } == ["Portrait"])
            #expect(authors.map { ($0.value(forKey: "createdEntries") as? NSOrderedSet)?.count } == [1])
        }
    }

    /// A `.momd` folder: its `VersionInfo.plist` names the current version (here Xcode's own, from
    /// coredataplus-samplemodel); every version is read, with the hashes the compiler recorded for it.
    @Test func aMomdFolderReadsItsCurrentVersionAndTheOthers() throws {
        let folder = TemporaryStore()
        defer { folder.cleanUp() }
        let momd = try Self.sampleModelMomd(in: folder.directory)
        let model = try #require(NSManagedObjectModel(contentsOf: momd))
        #expect(model.versionName == "SampleModel")
        #expect(model.versions.map(\.versionName) == ["SampleModel", "SampleModel2", "SampleModel3"])
        let info = try #require(PropertyListSerialization.propertyList(from: Data(contentsOf: momd.appendingPathComponent("VersionInfo.plist")), format: nil) as? [String: Any])
        let hashes = try #require(info["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
        for version in model.versions {
            #expect(version.entityVersionHashesByName == hashes[version.versionName ?? ""], "\(version.versionName ?? "?")")
        }
        // Core Data looks for compiled models in bundles: so do mergedModel(from:) and the container.
        let bundle = try #require(Bundle(url: folder.directory))
        let merged = try #require(NSManagedObjectModel.mergedModel(from: [bundle]))
        #expect(merged.entityVersionHashesByName == hashes["SampleModel"])
    }

    /// The `.momd` of coredataplus-samplemodel: versions 1 (the current one) and 2 from its stores' model
    /// caches, 3 (which no store has) archived here from its model file, and Xcode's `VersionInfo.plist`.
    static func sampleModelMomd(in directory: URL) throws -> URL {
        let momd = directory.appendingPathComponent("SampleModel.momd")
        try FileManager.default.createDirectory(at: momd, withIntermediateDirectories: true)
        try cache("coredataplus-samplemodel", "SampleModel_V1.sqlite").write(to: momd.appendingPathComponent("SampleModel.mom"))
        try cache("coredataplus-samplemodel", "SampleModel_V2.sqlite").write(to: momd.appendingPathComponent("SampleModel2.mom"))
        let third = try #require(try VersionHashTests.model("coredataplus-samplemodel", version: "SampleModel3"))
        try NSKeyedArchiver.archivedData(withRootObject: third, requiringSecureCoding: true).write(to: momd.appendingPathComponent("SampleModel3.mom"))
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("coredataplus-samplemodel/VersionInfo.plist"),
                                         to: momd.appendingPathComponent("VersionInfo.plist"))
        return momd
    }

    /// Without `VersionInfo.plist`: the only version, else the one named like the folder, else an error;
    /// a `VersionInfo.plist` naming a version the folder does not hold is an error.
    @Test func aMomdWithoutVersionInfo() throws {
        let folder = TemporaryStore()
        defer { folder.cleanUp() }
        let momd = try Self.sampleModelMomd(in: folder.directory)
        try FileManager.default.removeItem(at: momd.appendingPathComponent("VersionInfo.plist"))
        #expect(NSManagedObjectModel(contentsOf: momd)?.versionName == "SampleModel")  // named like the folder
        try FileManager.default.moveItem(at: momd.appendingPathComponent("SampleModel.mom"), to: momd.appendingPathComponent("First.mom"))
        let error = try #require(throws: ModelFileError.self) { try NSManagedObjectModel(validatingContentsOf: momd) }
        #expect(error.reason == "no VersionInfo.plist says which of the 3 versions is current")
        let info = try PropertyListSerialization.data(fromPropertyList: ["NSManagedObjectModel_CurrentVersionName": "SampleModel9"], format: .binary, options: 0)
        try info.write(to: momd.appendingPathComponent("VersionInfo.plist"))
        let missing = try #require(throws: ModelFileError.self) { try NSManagedObjectModel(validatingContentsOf: momd) }
        #expect(missing.reason.hasPrefix("the current version SampleModel9 is not in the folder"))
        #expect(NSManagedObjectModel(contentsOf: momd) == nil)
    }

    /// A resource bundle with a compiled model only: `NSPersistentContainer(name:)` finds `Name.momd`.
    @Test func theContainerFindsACompiledModelByName() throws {
        let folder = TemporaryStore()
        defer { folder.cleanUp() }
        let url = folder.directory.appendingPathComponent("Bookmarks.mom")
        try Self.cache("ddg-bookmarks", "Bookmarks_V5.sqlite").write(to: url)
        let model = try ModelBundleLookup.model(named: "Bookmarks", in: [folder.directory])
        #expect(model.entityVersionHashesByName == (try Self.storedHashes("ddg-bookmarks", "Bookmarks_V5.sqlite")))
    }
}
