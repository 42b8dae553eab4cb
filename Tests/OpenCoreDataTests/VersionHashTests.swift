import Foundation
import OpenCoreDataPredicates
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Core Data's version hashes, proven against store files Core Data wrote on Apple platforms
/// (Tests/Fixtures/AppleStores: each store with the model that wrote it; its README pairs them).
@Suite struct VersionHashTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Fixtures/AppleStores").standardizedFileURL

    /// One store of the fixtures and the model version that wrote it, as the README lists them.
    struct Pair: CustomStringConvertible {
        let fixture: String, store: String, version: String
        var description: String { "\(fixture)/\(store) (model \(version))" }
        var storeURL: URL { fixtures.appendingPathComponent(fixture).appendingPathComponent(store) }
    }

    static func pairs() throws -> [Pair] {
        let readme = try String(contentsOf: fixtures.appendingPathComponent("README.md"), encoding: .utf8)
        var fixture = "", pairs: [Pair] = []
        for line in readme.split(separator: "\n").map(String.init) {
            if line.hasPrefix("## ") { fixture = String(line.dropFirst(3)) }
            let parts = line.split(separator: "`").map(String.init)
            if line.hasPrefix("### `"), parts.count >= 4, parts[2].contains("model version") {
                pairs.append(Pair(fixture: fixture, store: parts[1], version: parts[3]))
            }
        }
        return pairs
    }

    /// The model folder of a fixture (nil when the model was built in code and is not included).
    static func modelFolder(_ fixture: String) -> URL? {
        let folder = fixtures.appendingPathComponent(fixture)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.first { $0.hasSuffix(".xcdatamodeld") }.map { folder.appendingPathComponent($0) }
    }

    static func model(_ fixture: String, version: String) throws -> NSManagedObjectModel? {
        guard let folder = modelFolder(fixture) else { return nil }
        return try NSManagedObjectModel(validatingContentsOf: folder).versions.first { $0.versionName == version }
    }

    /// The store's `Z_METADATA` plist, read from a copy (store, `-wal`, `-shm`): the fixture is never touched.
    static func metadata(of store: URL) throws -> [String: Any] {
        let temporary = TemporaryStore()
        defer { temporary.cleanUp() }
        for suffix in ["", "-wal", "-shm"] {
            let source = URL(fileURLWithPath: store.path + suffix)
            if FileManager.default.fileExists(atPath: source.path) {
                try FileManager.default.copyItem(at: source, to: URL(fileURLWithPath: temporary.url.path + suffix))
            }
        }
        let connection = try SQLiteConnection(path: temporary.url.path)
        var plist = Data()
        try connection.query("SELECT Z_PLIST FROM Z_METADATA") { row in
            if case .data(let data) = row.value(0, as: .binaryDataAttributeType) { plist = data }
        }
        return try #require(PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any])
    }

    /// Every fixture store: the hashes computed from its model equal the ones in its metadata, byte for byte,
    /// and so does the checksum where the store records one. A mismatch is listed, never skipped.
    @Test func everyFixtureStoreMatchesItsModel() throws {
        var mismatches: [String] = [], entitiesChecked = 0, checksumsChecked = 0, storesChecked = 0
        for pair in try Self.pairs() {
            guard Self.modelFolder(pair.fixture) != nil else { continue }  // model built in code, not included
            guard let model = try Self.model(pair.fixture, version: pair.version) else {
                mismatches.append("\(pair): model version not found"); continue
            }
            let metadata = try Self.metadata(of: pair.storeURL)
            let stored = try #require(metadata[NSStoreModelVersionHashesKey] as? [String: Data], "\(pair)")
            let computed = model.entityVersionHashesByName
            if Set(stored.keys) != Set(computed.keys) { mismatches.append("\(pair): entities \(stored.keys.sorted()) ≠ \(computed.keys.sorted())") }
            for (name, hash) in stored.sorted(by: { $0.key < $1.key }) where computed[name] != nil {
                entitiesChecked += 1
                if computed[name] != hash {
                    mismatches.append("\(pair): \(name) stored \(hash.base64EncodedString()) computed \(computed[name]!.base64EncodedString())")
                }
            }
            if let checksum = metadata[NSPersistentStoreModelVersionChecksumKey] as? String {
                checksumsChecked += 1
                if model.versionChecksum != checksum { mismatches.append("\(pair): checksum \(checksum) computed \(model.versionChecksum)") }
            }
            #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), "\(pair)")
            storesChecked += 1
        }
        #expect(mismatches.isEmpty, "mismatches:\n\(mismatches.joined(separator: "\n"))")
        #expect(storesChecked == 23 && entitiesChecked == 50 && checksumsChecked == 4,
                "\(storesChecked) stores, \(entitiesChecked) entities, \(checksumsChecked) checksums")
    }

    /// The `VersionInfo.plist` of a compiled model (Xcode's model compiler's hashes and checksums) agrees
    /// for every version, also those no store was written with.
    @Test func compiledModelVersionInfoMatches() throws {
        var checked = 0
        for fixture in ["coredataplus-samplemodel", "coredataplus-samplemodel3"] {
            let data = try Data(contentsOf: Self.fixtures.appendingPathComponent(fixture).appendingPathComponent("VersionInfo.plist"))
            let info = try #require(PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
            let hashes = try #require(info["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
            let checksums = info["NSManagedObjectModel_VersionChecksums"] as? [String: String] ?? [:]
            for (version, stored) in hashes {
                let model = try #require(try Self.model(fixture, version: version), "\(fixture) \(version)")
                #expect(model.entityVersionHashesByName == stored, "\(fixture) \(version)")
                if let checksum = checksums[version] { #expect(model.versionChecksum == checksum, "\(fixture) \(version)") }
                checked += 1
            }
        }
        #expect(checked == 6)
    }

    /// SHA-256 against the FIPS 180-4 examples (one block, two blocks, many blocks).
    @Test func sha256MatchesTheStandardExamples() {
        func hex(_ text: String) -> String {
            var sha = SHA256()
            sha.update(Array(text.utf8))
            return sha.finalize().map { String(format: "%02x", $0) }.joined()
        }
        #expect(hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(hex(String(repeating: "a", count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    static func people() -> NSManagedObjectModel {
        let person = NSEntityDescription(name: "Person", properties: [
            NSAttributeDescription(name: "name", type: .stringAttributeType),
            NSRelationshipDescription(name: "friends", destination: "Person", inverse: "friends", toMany: true),
        ])
        let employee = NSEntityDescription(name: "Employee", properties: [NSAttributeDescription(name: "salary", type: .integer64AttributeType)])
        person.subentities = [employee]
        return NSManagedObjectModel(entities: [person])
    }

    /// What changes an entity's hash (what a store's layout depends on) and what leaves it alone, as
    /// Apple documents `versionHash`.
    @Test func whatTheHashesDependOn() {
        func hash(_ change: (NSManagedObjectModel) -> Void) -> Data {
            let model = Self.people()
            change(model)
            return model.entitiesByName["Person"]!.versionHash
        }
        let base = hash { _ in }
        #expect(base.count == 32)
        #expect(hash { _ in } == base, "stable")
        let person = { (m: NSManagedObjectModel) in m.entitiesByName["Person"]! }
        let name = { (m: NSManagedObjectModel) in person(m).attributesByName["name"]! }
        for change: (NSManagedObjectModel) -> Void in [
            { name($0).isOptional = false }, { name($0).attributeType = .URIAttributeType },
            { name($0).versionHashModifier = "2" }, { person($0).versionHashModifier = "2" },
            { person($0).isAbstract = true }, { name($0).allowsExternalBinaryDataStorage = true },
            { person($0).uniquenessConstraints = [["name"]] },
            { ($0.entitiesByName["Person"]!.relationshipsByName["friends"]!).isOrdered = true },
        ] { #expect(hash(change) != base) }
        for change: (NSManagedObjectModel) -> Void in [
            { name($0).renamingIdentifier = "fullName" }, { name($0).userInfo = ["a": "b"] },
            { name($0).defaultValue = "x" }, { name($0).isIndexed = true },
            { person($0).managedObjectClassName = "Other" }, { person($0).renamingIdentifier = "Human" },
            { person($0).userInfo = ["a": "b"] }, { $0.versionIdentifiers = ["7"] },
        ] { #expect(hash(change) == base) }
        #expect(hash { name($0).isTransient = true } == hash { person($0).properties = [person($0).relationshipsByName["friends"]!] },
                "a transient property is left out of its entity's hash")
    }

    /// A subentity's hash includes its superentity's; an inherited property hashes as in its entity, a
    /// relationship that is its own inverse included.
    @Test func subentitiesAndInheritedProperties() {
        let model = Self.people()
        let person = model.entitiesByName["Person"]!, employee = model.entitiesByName["Employee"]!
        let before = employee.versionHash
        person.versionHashModifier = "x"
        #expect(employee.versionHash != before, "the superentity's hash is part of the subentity's")
        let friends = person.relationshipsByName["friends"]!
        #expect(employee.relationshipsByName["friends"]!.versionHash == friends.versionHash)
        let named = friends.versionHash
        friends.inverseRelationship = friends
        #expect(friends.versionHash == named, "own inverse, by name or by object")
        #expect(model.entityVersionHashesByName == ["Person": person.versionHash, "Employee": employee.versionHash])
    }

    static func storedMetadata(_ model: NSManagedObjectModel, version: Int = 3) -> [String: Any] {
        [NSStoreModelVersionHashesKey: model.entityVersionHashesByName, "NSStoreModelVersionHashesVersion": version]
    }

    /// `isConfiguration(withName:compatibleWithStoreMetadata:)`: the hashes must match, all of them.
    @Test func compatibilityWithStoreMetadata() throws {
        let model = Self.people()
        let metadata = Self.storedMetadata(model)
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(model.isConfiguration(withName: "PF_DEFAULT_CONFIGURATION_NAME", compatibleWithStoreMetadata: metadata))
        #expect(!model.isConfiguration(withName: nil, compatibleWithStoreMetadata: [:]), "no hashes")
        #expect(!model.isConfiguration(withName: nil, compatibleWithStoreMetadata: Self.storedMetadata(model, version: 4)), "newer algorithm")
        var fewer = model.entityVersionHashesByName
        fewer["Employee"] = nil
        #expect(!model.isConfiguration(withName: nil, compatibleWithStoreMetadata: [NSStoreModelVersionHashesKey: fewer]))
        let changed = Self.people()
        changed.entitiesByName["Person"]!.attributesByName["name"]!.isOptional = false
        #expect(!changed.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), "Person and Employee changed")
        #expect(changed.isConfiguration(withName: nil, compatibleWithStoreMetadata: Self.storedMetadata(model, version: 2)),
                "hashes of an older algorithm: names only, as Core Data")
        // A named configuration: the metadata may list every entity of the model, or that configuration's.
        model.setEntities([model.entitiesByName["Employee"]!], forConfigurationName: "Staff")
        #expect(model.isConfiguration(withName: "Staff", compatibleWithStoreMetadata: metadata))
        #expect(model.isConfiguration(withName: "Staff", compatibleWithStoreMetadata: [NSStoreModelVersionHashesKey: fewer.filter { $0.key == "Employee" }]) == false)
        let staffOnly = [NSStoreModelVersionHashesKey: ["Employee": model.entitiesByName["Employee"]!.versionHash]]
        #expect(model.isConfiguration(withName: "Staff", compatibleWithStoreMetadata: staffOnly))
        #expect(!model.isConfiguration(withName: nil, compatibleWithStoreMetadata: staffOnly))
    }

    /// A fixture's metadata fits the version that wrote it and no other.
    @Test func fixtureMetadataFitsOnlyItsVersion() throws {
        let folder = try #require(Self.modelFolder("objcio-moody"))
        let versions = try NSManagedObjectModel(validatingContentsOf: folder).versions
        let metadata = try Self.metadata(of: Self.fixtures.appendingPathComponent("objcio-moody/Moody 2.moody"))
        #expect(versions.filter { $0.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) }.map(\.versionName) == ["Moody 2"])
    }

    /// `init(byMerging:)`: the entities of several models in one (copies); two entities of one name: nil.
    @Test func mergingModels() throws {
        let people = Self.people()
        let pets = NSManagedObjectModel(entities: [NSEntityDescription(name: "Pet", properties: [NSAttributeDescription(name: "name", type: .stringAttributeType)])])
        let merged = try #require(NSManagedObjectModel(byMerging: [people, pets]))
        #expect(merged.entities.map { $0.name! }.sorted() == ["Employee", "Person", "Pet"])
        #expect(merged.entityVersionHashesByName == people.entityVersionHashesByName.merging(pets.entityVersionHashesByName) { a, _ in a })
        #expect(people.entities.allSatisfy { $0.managedObjectModel === people }, "the models given are left as they are")
        for e in merged.entities { #expect(e.managedObjectModel === merged) }
        #expect(NSManagedObjectModel(byMerging: [people, Self.people()]) == nil, "Person twice")
        #expect(NSManagedObjectModel(byMerging: nil)?.entities.isEmpty == true)
        let metadata = Self.storedMetadata(merged)
        #expect(NSManagedObjectModel(byMerging: [people, pets], forStoreMetadata: metadata) != nil)
        #expect(NSManagedObjectModel(byMerging: [people], forStoreMetadata: metadata) == nil, "Pet is missing")
    }

    /// `mergedModel(from:forStoreMetadata:)` picks, in each model folder of the bundles, the version the
    /// store was written with.
    @Test func mergedModelForStoreMetadataPicksTheVersion() throws {
        let temporary = TemporaryStore()
        defer { temporary.cleanUp() }
        let source = try #require(Self.modelFolder("wibosco-migration"))
        try FileManager.default.copyItem(at: source, to: temporary.directory.appendingPathComponent(source.lastPathComponent))
        let bundle = try #require(Bundle(url: temporary.directory))
        for (store, version) in [("CoreDataMigration_Example_2.sqlite", "CoreDataMigration_Example 2"),
                                 ("CoreDataMigration_Example_3.sqlite", "CoreDataMigration_Example 3")] {
            let metadata = try Self.metadata(of: Self.fixtures.appendingPathComponent("wibosco-migration").appendingPathComponent(store))
            let model = try #require(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: metadata))
            #expect(model.versionName == version)
        }
        var unknown = Self.storedMetadata(Self.people())
        #expect(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: unknown) == nil)
        unknown[NSStoreModelVersionHashesKey] = nil
        #expect(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: unknown) == nil)
    }

    /// The metadata keys are Core Data's strings.
    @Test func metadataKeys() {
        #expect(NSStoreModelVersionHashesKey == "NSStoreModelVersionHashes")
        #expect(NSStoreModelVersionIdentifiersKey == "NSStoreModelVersionIdentifiers")
        #expect(NSPersistentStoreModelVersionChecksumKey == "NSStoreModelVersionChecksumKey")
        #expect(NSPersistentStoreOSCompatibility == "NSPersistentStoreOSCompatibility")
    }
}
