import Foundation
import Observation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Issue #35, item 4: managed objects in Swift's Observation. `withObservationTracking` sees a property
/// of an object change however it changes (set, inverse, undo, rollback, merge, refresh), and only that
/// property of that object; a read nobody tracks leaves nothing behind. Serialized: one test turns the
/// probe off for the whole process, which another test here checks the absence of.
@Suite(.serialized) struct ObservationTests {
    /// How many times a tracking's `onChange` ran.
    final class Fired: @unchecked Sendable {
        private let lock = NSLock()
        private var n = 0
        func hit() { lock.withLock { n += 1 } }
        var count: Int { lock.withLock { n } }
    }

    /// Tracks what `read` reads; the returned counter counts `onChange` calls (at most one: it is one-shot).
    func track(_ read: () -> Void) -> Fired {
        let fired = Fired()
        withObservationTracking(read) { fired.hit() }
        return fired
    }

    /// A saved store of products and a view context holding two of them, loaded.
    struct Setup {
        let store = TemporaryStore()
        let container: NSPersistentContainer
        let context: NSManagedObjectContext
        let a: Products
        let b: Products

        init() throws {
            container = try store.container()
            context = container.viewContext
            a = Products(context: context)
            a.name = "Альфа"
            a.price = 10
            b = Products(context: context)
            b.name = "Бета"
            b.price = 20
            try context.save()
        }

        /// In another context: sets `name` of `object`'s row and saves.
        func renameElsewhere(_ object: Products, to name: String) throws {
            let other = container.newBackgroundContext()
            let id = object.objectID
            try other.performAndWait {
                (try other.existingObject(with: id) as! Products).name = name
                try other.save()
            }
        }
    }

    @Test func theProbeTellsTrackingScopesApartOnThisToolchain() {
        // If a toolchain moves Observation's thread-local, this fails (observation still works, slower).
        #expect(ObservationScope.probeIsTrusted)
        #expect(!ObservationScope.mayBeTracking)
        var inside = false
        withObservationTracking { inside = ObservationScope.mayBeTracking } onChange: {}
        #expect(inside)
        #expect(!ObservationScope.mayBeTracking)
    }

    @Test func aSetFiresOnlyForThePropertyReadOfThatObject() throws {
        let s = try Setup()
        defer { s.store.cleanUp() }
        let fired = track { _ = s.a.name }
        s.b.name = "Гамма"
        s.a.price = 11
        s.a.name = "Альфа"  // the same value: no change
        #expect(fired.count == 0)
        s.a.name = "Дельта"
        #expect(fired.count == 1)
        s.a.name = "Эпсилон"
        #expect(fired.count == 1)  // one-shot, as Observation's onChange is
    }

    @Test func readsOutsideTrackingLeaveNothingBehind() throws {
        let s = try Setup()
        defer { s.store.cleanUp() }
        _ = s.a.name
        _ = s.a.price
        _ = s.a.value(forKey: "name")
        s.a.name = "Другое"
        #expect(s.a.existingExtras?.observation == nil)
        _ = track { _ = s.b.price }
        #expect(s.b.existingExtras?.observation?.keyPaths.count == 1)
    }

    @Test func keyValueReadsAndWritesAreObservedToo() throws {
        let s = try Setup()
        defer { s.store.cleanUp() }
        let byKey = track { _ = s.a.value(forKey: "price") }
        s.a.setValue(99, forKey: "price")
        #expect(byKey.count == 1)
        // A @Managed read and a key-value write meet on the same key path.
        let typed = track { _ = s.a.name }
        s.a.setValue("Каппа", forKey: "name")
        #expect(typed.count == 1)
        let byKeyThenTyped = track { _ = s.b.value(forKey: "name") }
        s.b.name = "Лямбда"
        #expect(byKeyThenTyped.count == 1)
    }

    @Test func anEntityWithoutAClassIsObservedByKey() throws {
        let model = NSManagedObjectModel()
        let entity = NSEntityDescription()
        entity.name = "Note"
        let text = NSAttributeDescription()
        text.name = "text"
        text.attributeType = .stringAttributeType
        text.isOptional = true
        entity.properties = [text]
        model.entities = [entity]
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(model).viewContext
        let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
        note.setValue("one", forKey: "text")
        let fired = track { _ = note.value(forKey: "text") }
        note.setValue("two", forKey: "text")
        #expect(fired.count == 1)
    }

    @Test func relationshipsAndTheirInversesAreObserved() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(ZooModel.make()).viewContext
        let seeded = ZooModel.seed(context)
        try context.save()
        let zoo = try #require(seeded.zoos.values.first)
        let animal = try #require(seeded.animals.values.first { !$0.zoos.contains(zoo) })
        let members = track { _ = zoo.animals }
        let toOne = track { _ = animal.classification }
        animal.addToZoos(zoo)  // the zoo's side changes as the inverse
        #expect(members.count == 1)
        #expect(toOne.count == 0)
        animal.classification = nil
        #expect(toOne.count == 1)
    }

    @Test func rollbackAndUndoAreObserved() throws {
        let s = try Setup()
        defer { s.store.cleanUp() }
        s.a.name = "Временно"
        let rolledBack = track { _ = s.a.name }
        s.context.rollback()
        #expect(rolledBack.count == 1)
        #expect(s.a.name == "Альфа")

        s.context.undoManager = UndoManager()
        s.context.undoManager?.groupsByEvent = false
        s.context.undoManager?.beginUndoGrouping()
        s.a.price = 500
        s.context.undoManager?.endUndoGrouping()
        let undone = track { _ = s.a.price }
        s.context.undoManager?.undo()
        #expect(undone.count == 1)
        #expect(s.a.price == 10)
    }

    @Test func aMergedSaveFromAnotherContextIsObserved() throws {
        let s = try Setup()
        defer { s.store.cleanUp() }
        let name = track { _ = s.a.name }
        let price = track { _ = s.a.price }
        let other = track { _ = s.b.name }
        // The other context's save arrives as its did-save notification, merged here.
        let writer = s.container.newBackgroundContext()
        let id = s.a.objectID
        nonisolated(unsafe) var saved: Notification?
        let token = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: writer, queue: nil) { saved = $0 }
        try writer.performAndWait {
            (try writer.existingObject(with: id) as! Products).name = "Слито"
            try writer.save()
        }
        NotificationCenter.default.removeObserver(token)
        s.context.mergeChanges(fromContextDidSave: try #require(saved))
        #expect(name.count == 1)
        #expect(price.count == 0)
        #expect(other.count == 0)
        #expect(s.a.name == "Слито")
    }

    @Test func aBackgroundWritersSavesReachATrackingOnAnotherQueue() async throws {
        let s = try Setup()
        defer { s.store.cleanUp() }
        let reader = s.container.newBackgroundContext()
        reader.automaticallyMergesChangesFromParent = true
        let id = s.a.objectID
        let fired = try reader.performAndWait {
            let product = try reader.existingObject(with: id) as! Products
            return track { _ = product.name }
        }
        for round in 0..<3 {
            try s.renameElsewhere(s.a, to: "Раунд \(round)")
        }
        // The merges run on the reader's queue; the first one fires the (one-shot) tracking there.
        func name() -> String? { reader.performAndWait { (reader.registeredObject(for: id) as? Products)?.name } }
        for _ in 0..<500 where name() != "Раунд 2" { try await Task.sleep(for: .milliseconds(10)) }
        #expect(name() == "Раунд 2")
        #expect(fired.count == 1)
    }

    @Test func aChildContextsSaveIsObservedInItsParent() throws {
        let s = try Setup()
        defer { s.store.cleanUp() }
        let child = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        child.parent = s.context
        let inChild = try #require(try child.existingObject(with: s.a.objectID) as? Products)
        let name = track { _ = s.a.name }
        let price = track { _ = s.a.price }
        inChild.name = "Из дочернего"
        #expect(name.count == 0)  // not in the parent yet
        try child.save()
        #expect(name.count == 1)
        #expect(price.count == 0)
        #expect(s.a.name == "Из дочернего")
    }

    @Test func aRefreshedObjectIsObserved() throws {
        let s = try Setup()
        defer { s.store.cleanUp() }
        // Turned into a fault: its values are unknown until read again, so whatever was read is announced.
        try s.renameElsewhere(s.a, to: "Снаружи")
        let faulted = track { _ = s.a.name }
        s.context.refresh(s.a, mergeChanges: false)
        #expect(faulted.count == 1)
        #expect(s.a.name == "Снаружи")
        // Refreshed with its changes merged: the store's new value is announced, an unchanged one is not.
        s.a.price = 77
        try s.renameElsewhere(s.a, to: "Ещё")
        let name = track { _ = s.a.name }
        let price = track { _ = s.a.price }
        s.context.refresh(s.a, mergeChanges: true)
        #expect(name.count == 1)
        #expect(price.count == 0)
        #expect(s.a.name == "Ещё")
        #expect(s.a.price == 77)
    }

    @Test func withoutTheProbeEveryReadCountsAndObservationStaysExact() throws {
        ObservationScope.useProbe(false)
        defer { ObservationScope.useProbe(true) }
        #expect(ObservationScope.mayBeTracking)
        let s = try Setup()
        defer { s.store.cleanUp() }
        _ = s.b.price  // untracked, yet recorded: the cost of having no probe
        #expect(s.b.existingExtras?.observation != nil)
        let fired = track { _ = s.a.name }
        s.a.price = 1
        #expect(fired.count == 0)
        s.a.name = "Без зонда"
        #expect(fired.count == 1)
    }
}
