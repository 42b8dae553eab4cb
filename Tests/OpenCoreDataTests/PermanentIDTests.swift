import Foundation
import Testing
import OpenCoreData
import OpenCoreDataTesting

/// `obtainPermanentIDs(for:)` before a save, with relationships between the objects (what custom stores
/// do on every save, and what apps do to hand IDs to another context).
@Suite("Permanent IDs before saving")
struct PermanentIDTests {
    @Test func objectsThatNameAnObjectGivenAPermanentIDStillSave() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(ZooModel.make()).viewContext
        let seeded = ZooModel.seed(context)
        let some = Array(seeded.classifications.values.prefix(2)) + Array(seeded.zoos.values.prefix(1))
        try context.obtainPermanentIDs(for: some)
        #expect(some.allSatisfy { !$0.objectID.isTemporaryID })
        try context.save()
        let reader = try store.container(ZooModel.make()).viewContext
        let animals = try reader.fetch(ZooModel.tableRequest())
        #expect(animals.count == seeded.animals.count)
        for animal in animals {
            let original = try #require(seeded.animals[animal.commonName!])
            #expect(animal.classification?.family == original.classification?.family)
            #expect(Set(animal.zoos.map(\.name)) == Set(original.zoos.map(\.name)))
        }
        #expect(try reader.existingObject(with: some[0].objectID).value(forKey: "family") as? String == some[0].value(forKey: "family") as? String)
    }
}
