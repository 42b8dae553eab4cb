import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Core Data's store file (issue #33): every fixture store that Core Data wrote on an Apple platform
/// opens here with its model, fetches, sorts and sections; what we create has Core Data's layout.
@Suite struct StoreFormatTests {
    /// The persistent attributes of an entity that a sort can use (not transformable or binary).
    static func sortableAttributes(_ entity: NSEntityDescription) -> [NSAttributeDescription] {
        entity.properties.compactMap { $0 as? NSAttributeDescription }
            .filter { !$0.isTransient && ![.transformableAttributeType, .binaryDataAttributeType, .UUIDAttributeType, .objectIDAttributeType].contains($0.attributeType) }
            .sorted { $0.name < $1.name }
    }

    /// Opens every fixture with its model and, per entity: the fetch count equals the rows `sqlite3`
    /// counts (its `Z_ENT` and those of its subentities), a fetch sorted by each attribute comes back in
    /// order, and a controller sectioned by a string attribute has as many objects as the fetch. Every
    /// failure is listed.
    @Test func everyFixtureOpensFetchesSortsAndSections() throws {
        var failures: [String] = [], fetched = 0
        for pair in try FixtureCopy.all() {
            let copy = try FixtureCopy(pair)
            defer { copy.cleanUp() }
            guard let model = try copy.model() else { failures.append("\(pair): no model"); continue }
            let coordinator: NSPersistentStoreCoordinator
            do { coordinator = try copy.coordinator(model) } catch { failures.append("\(pair): open: \(error)"); continue }
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            for entity in model.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
                let name = entity.name!
                do {
                    let ids = entity.layout.entityIDs.map(String.init).joined(separator: ", ")
                    let rows = try copy.int("SELECT count(*) FROM \(entity.layout.tableName) WHERE Z_ENT IN (\(ids))")
                    let objects = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: name))
                    if objects.count != rows { failures.append("\(pair) \(name): fetched \(objects.count), sqlite3 counts \(rows)") }
                    for object in objects { _ = object.value(forKey: entity.properties.first { !($0 is NSRelationshipDescription) }?.name ?? "objectID") }
                    fetched += objects.count
                    for attribute in Self.sortableAttributes(entity) {
                        let request = NSFetchRequest<NSManagedObject>(entityName: name)
                        request.sortDescriptors = [NSSortDescriptor(key: attribute.name, ascending: true)]
                        let sorted = try context.fetch(request)
                        let again = sorted.sorted { a, b in request.sortDescriptors![0].compare(a, to: b) == .orderedAscending }
                        if sorted.map(\.objectID) != again.map(\.objectID) || sorted.count != rows {
                            failures.append("\(pair) \(name): sorted by \(attribute.name) out of order or incomplete")
                        }
                    }
                    if let section = Self.sortableAttributes(entity).first(where: { $0.attributeType == .stringAttributeType }) {
                        let request = NSFetchRequest<NSManagedObject>(entityName: name)
                        request.sortDescriptors = [NSSortDescriptor(key: section.name, ascending: true)]
                        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                                    sectionNameKeyPath: section.name, cacheName: nil)
                        try controller.performFetch()
                        let sectioned = controller.sections?.reduce(0) { $0 + $1.numberOfObjects } ?? -1
                        if sectioned != rows { failures.append("\(pair) \(name): sections hold \(sectioned) of \(rows)") }
                    }
                } catch {
                    failures.append("\(pair) \(name): \(error)")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) failures:\n\(failures.joined(separator: "\n"))")
        #expect(fetched > 20_000, "\(fetched) objects fetched")
    }

    /// The schema a new store gets from each fixture's model is the fixture's, statement for statement:
    /// every entity and join table's `CREATE TABLE` text, and every index Core Data made that the model
    /// still asks for (a store keeps indexes of earlier model versions, and the oldest stores declare
    /// uniqueness inside `CREATE TABLE`; those are listed apart).
    @Test func newStoresHaveTheFixturesSchema() throws {
        var differences: [String] = [], compared = 0
        for pair in try FixtureCopy.all() {
            let copy = try FixtureCopy(pair)
            defer { copy.cleanUp() }
            guard let model = try copy.model() else { continue }
            let fresh = TemporaryStore()
            defer { fresh.cleanUp() }
            _ = try NSPersistentStoreCoordinator(validatingModel: model)
                .addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: fresh.url)
            let connection = try SQLiteConnection(path: fresh.url.path)
            var ours: [String: String] = [:]
            try connection.query("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL") { row in
                if case .string(let n) = row.value(0, as: .stringAttributeType), case .string(let s) = row.value(1, as: .stringAttributeType) { ours[n] = s }
            }
            var theirs: [String: String] = [:]
            try copy.query("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL") { row in
                if case .string(let n) = row.value(0, as: .stringAttributeType), case .string(let s) = row.value(1, as: .stringAttributeType) { theirs[n] = s }
            }
            for (name, sql) in theirs.sorted(by: { $0.key < $1.key }) where name != "Z_MODELCACHE" {
                let oldStyle = sql.contains(" CONSTRAINT ") || !sql.hasPrefix("CREATE TABLE") && ours[name] == nil
                if oldStyle { continue }
                compared += 1
                if ours[name] != sql { differences.append("\(pair) \(name):\n  Core Data: \(sql)\n  ours:      \(ours[name] ?? "(none)")") }
            }
            for (name, sql) in ours.sorted(by: { $0.key < $1.key }) where theirs[name] == nil {
                // Before unique and named fetch indexes (framework 637), Core Data made the same index
                // under another name, or declared uniqueness inside CREATE TABLE.
                let columns = sql.components(separatedBy: " (").last!.replacingOccurrences(of: " COLLATE BINARY ASC", with: "")
                let table = sql.components(separatedBy: " ON ").last!.components(separatedBy: " ").first!
                if theirs.values.contains(where: { $0.contains(" \(table) ") && $0.contains("(\(columns)") }) { continue }
                differences.append("\(pair) \(name): only ours: \(sql)")
            }
        }
        #expect(differences.isEmpty, "\(differences.count) differences:\n\(differences.joined(separator: "\n"))")
        #expect(compared > 60, "\(compared) statements compared")
    }

    /// `NSStoreModelVersionHashesDigest` as computed here equals every fixture's that records one, and a
    /// new store's `Z_PLIST` is a binary property list with Core Data's keys and values for its model.
    @Test func metadataIsCoreDatas() throws {
        var digests = 0
        for pair in try FixtureCopy.all() {
            let plist = try VersionHashTests.metadata(of: pair.storeURL)
            guard let stored = plist[StoreMetadata.hashesDigestKey] as? String else { continue }
            let hashes = try #require(plist[NSStoreModelVersionHashesKey] as? [String: Data])
            #expect(StoreMetadata.digest(hashes) == stored, "\(pair)")
            digests += 1
        }
        #expect(digests == 10, "\(digests) digests")

        let copy = try FixtureCopy(try #require(try FixtureCopy.all().first { $0.fixture == "contentful-test" }))
        defer { copy.cleanUp() }
        let model = try #require(try copy.model())
        let fresh = TemporaryStore()
        defer { fresh.cleanUp() }
        let store = try NSPersistentStoreCoordinator(validatingModel: model)
            .addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: fresh.url)
        let ours = try VersionHashTests.metadata(of: fresh.url)
        let theirs = try VersionHashTests.metadata(of: copy.url)
        #expect(Set(ours.keys) == Set(theirs.keys))
        for key in [NSStoreModelVersionHashesKey, StoreMetadata.hashesDigestKey, NSPersistentStoreModelVersionChecksumKey,
                    "NSStoreModelVersionHashesVersion", NSStoreTypeKey, "_NSAutoVacuumLevel", NSStoreModelVersionIdentifiersKey] {
            #expect((ours[key] as? NSObject) == (theirs[key] as? NSObject), "\(key)")
        }
        #expect(ours[StoreMetadata.frameworkVersionKey] as? Int == 1344)
        let raw = try SQLiteTestAccess.values("SELECT Z_VERSION, Z_UUID, substr(Z_PLIST, 1, 8) FROM Z_METADATA", fresh.url)
        #expect(raw == [[.int(1), .string(store.identifier), .data(Data("bplist00".utf8))]])
        #expect(store.metadata[NSStoreUUIDKey] as? String == store.identifier)
        #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: fresh.url)[NSStoreUUIDKey] as? String == store.identifier)
        #expect(try SQLiteTestAccess.values("PRAGMA auto_vacuum", fresh.url) == [[.int(2)]])
    }

    /// SHA-512 against the FIPS 180-4 examples.
    @Test func sha512MatchesTheStandardExamples() {
        func hex(_ text: String) -> String {
            var sha = SHA512()
            sha.update(Array(text.utf8))
            return sha.finalize().map { String(format: "%02x", $0) }.joined()
        }
        #expect(hex("abc") == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
        #expect(hex("") == "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e")
    }
}
