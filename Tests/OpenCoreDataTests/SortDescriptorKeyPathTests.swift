import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// `NSSortDescriptor.keyPath` (Foundation: "The key path that specifies the property to compare", an
/// `AnyKeyPath?` that is `nil` when the descriptor was made from a string key).
@Suite struct SortDescriptorKeyPathTests {
    @Test func aDescriptorMadeFromAKeyPathGivesItBack() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        _ = try KeyPathKeyTests.savedZoo(store)
        let byName = NSSortDescriptor(keyPath: \Animal.commonName, ascending: true)
        #expect(byName.keyPath == \Animal.commonName)
        #expect(byName.key == "commonName")
        let through = NSSortDescriptor(keyPath: \Animal.classification?.order, ascending: false)
        #expect(through.keyPath == \Animal.classification?.order)
        #expect(through.keyPath != \Animal.commonName)
        #expect(try NSSortDescriptor(validatingKeyPath: \Zoo.name, ascending: true).keyPath == \Zoo.name)
        // Reversing keeps the key path; so does a descriptor made from Foundation's SortDescriptor.
        #expect((byName.reversedSortDescriptor as? NSSortDescriptor)?.keyPath == \Animal.commonName)
        #expect(NSSortDescriptor(SortDescriptor(\Animal.commonName, order: .reverse)).keyPath == \Animal.commonName)
    }

    @Test func aDescriptorMadeFromAStringKeyHasNone() throws {
        #expect(NSSortDescriptor(key: "commonName", ascending: true).keyPath == nil)
        #expect(NSSortDescriptor(key: "commonName", ascending: true, selector: Selector("localizedCompare:")).keyPath == nil)
        #expect((NSSortDescriptor(key: "a", ascending: true).reversedSortDescriptor as? NSSortDescriptor)?.keyPath == nil)
        // An archive holds the key alone: a decoded descriptor has no key path, as in Foundation.
        let made = NSSortDescriptor(keyPath: \Animal.commonName, ascending: true)
        let data = try NSKeyedArchiver.archivedData(withRootObject: made, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSSortDescriptor.self, from: data))
        #expect(decoded.key == "commonName")
        #expect(decoded.keyPath == nil)
    }
}
