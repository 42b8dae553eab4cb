import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// An ordered to-many whose inverse is a to-one keeps each member's position in the member's row
/// (`Z_FOK_…`). When owner and members are inserted by one save, the positions must be written after
/// every row is in: an entity whose rows are written later would reset them (the order came back in
/// key order before).
@Suite("Relationships: ordered to-many inserted with its members")
struct OrderedInsertTests {
    @Test func orderSurvivesTheSaveThatInsertsTheMembers() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(ManagedSampleModel.make())
        let context = container.viewContext
        let sample = NSEntityDescription.insertNewObject(forEntityName: "Sample", into: context)
        let steps = (0..<3).map { i -> NSManagedObject in
            let s = NSEntityDescription.insertNewObject(forEntityName: "Step", into: context)
            s.setValue("s\(i)", forKey: "name")
            return s
        }
        sample.setValue(NSOrderedSet(array: [steps[0], steps[2], steps[1]]), forKey: "steps")
        try context.save()
        let other = container.newBackgroundContext()
        try other.performAndWait {
            let s = try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Sample"))[0]
            let names = (s.value(forKey: "steps") as! NSOrderedSet).array.map { ($0 as! NSManagedObject).value(forKey: "name") as! String }
            #expect(names == ["s0", "s2", "s1"])
        }
    }
}
