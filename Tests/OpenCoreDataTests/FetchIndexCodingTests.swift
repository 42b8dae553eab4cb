import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Fetch index descriptions archive and unarchive (`NSSecureCoding`), and an unarchived index works as the
/// original does when added to an entity.
@Suite("Fetch index archiving")
struct FetchIndexCodingTests {
    @Test func anArchivedIndexComesBackAndTheStoreCreatesIt() throws {
        let elements = [NSFetchIndexElementDescription(propertyName: "name", collationType: .binary),
                        NSFetchIndexElementDescription(propertyName: "price", collationType: .binary, ascending: false)]
        let index = NSFetchIndexDescription(name: "byNameAndPrice", elements: elements)
        index.partialIndexPredicate = NSPredicate(format: "price > 3")
        let data = try NSKeyedArchiver.archivedData(withRootObject: index, requiringSecureCoding: true)
        let back = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSFetchIndexDescription.self, from: data))
        #expect(back.name == "byNameAndPrice")
        #expect(back.elements.map(\.propertyName) == ["name", "price"] && back.elements.map(\.isAscending) == [true, false])
        #expect(back.elements.allSatisfy { $0.collationType == .binary && $0.indexDescription === back })
        #expect(back.partialIndexPredicate?.predicateFormat == "price > 3")

        back.partialIndexPredicate = nil  // the plain index here; a partial one: FetchIndexSQLTests
        let model = makeProductsModel()
        model.entitiesByName["Products"]!.indexes = [back]
        let store = TemporaryStore()
        defer { store.cleanUp() }
        _ = try store.container(model)
        let sql = try SQLiteTestAccess.values("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'Z_Products_byNameAndPrice'", store.url)
        #expect(sql == [[.string("CREATE INDEX Z_Products_byNameAndPrice ON ZPRODUCTS (ZNAME COLLATE BINARY ASC, ZPRICE COLLATE BINARY DESC)")]])
    }

    @Test func anArchiveOfSomethingElseIsRefused() throws {
        let data = try NSKeyedArchiver.archivedData(withRootObject: NSString(string: "not an index"), requiringSecureCoding: true)
        // Refused: no index comes out (Foundation here returns nil; Apple's throws).
        #expect((try? NSKeyedUnarchiver.unarchivedObject(ofClass: NSFetchIndexDescription.self, from: data)) == nil)
    }
}
