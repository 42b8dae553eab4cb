import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// `@Managed` properties: every attribute type Xcode's codegen writes, to-one and to-many relationships,
/// faults, change tracking, and the Xcode-style to-many accessors of `@ManagedAccessor`.
@Suite("Model classes: @Managed properties")
struct ManagedPropertyTests {
    private func container() throws -> (NSPersistentContainer, TemporaryStore) {
        let store = TemporaryStore()
        return (try store.container(ManagedSampleModel.make()), store)
    }

    private func fetchOne(_ context: NSManagedObjectContext) throws -> ManagedSample {
        let samples = try context.fetch(ManagedSample.fetchRequest())
        try #require(samples.count == 1)
        return samples[0]
    }

    /// Insert with the typed setters, save, refetch in a new context and read typed.
    @Test func everyAttributeTypeRoundTrips() throws {
        let (container, store) = try container()
        defer { store.cleanUp() }
        let context = container.viewContext
        let sample = ManagedSample(context: context)
        let when = Date(timeIntervalSinceReferenceDate: 700_000_000.25)
        let id = UUID()
        sample.text = "Grüße ✓"
        sample.requiredText = "required"
        sample.small = -12_345
        sample.medium = 2_000_000_000
        sample.large = 9_000_000_000_000
        sample.boxed = NSNumber(value: 42)
        sample.real = 19.99
        sample.single = 1.5
        sample.flag = true
        sample.amount = Decimal(string: "12345.6789")
        sample.price = NSDecimalNumber(string: "19.99")
        sample.when = when
        sample.blob = Data([0, 1, 2, 255])
        sample.identifier = id
        sample.link = URL(string: "https://example.com/a?b=c")
        sample.colour = Colour(red: 1, green: 0.5, blue: 0)
        sample.badge = Badge(title: "gold")
        #expect(sample.text == "Grüße ✓" && sample.small == -12_345 && sample.flag)
        try context.save()

        let other = container.newBackgroundContext()
        try other.performAndWait {
            let s = try fetchOne(other)
            #expect(s.text == "Grüße ✓")
            #expect(s.requiredText == "required")
            #expect(s.small == -12_345)
            #expect(s.medium == 2_000_000_000)
            #expect(s.large == 9_000_000_000_000)
            #expect(s.boxed == NSNumber(value: 42))
            #expect(s.real == 19.99)
            #expect(s.single == 1.5)
            #expect(s.flag == true)
            #expect(s.amount == Decimal(string: "12345.6789"))
            #expect(s.price == NSDecimalNumber(string: "19.99"))
            #expect(s.when == when)
            #expect(s.blob == Data([0, 1, 2, 255]))
            #expect(s.identifier == id)
            #expect(s.link == URL(string: "https://example.com/a?b=c"))
            #expect(s.colour == Colour(red: 1, green: 0.5, blue: 0))
            #expect(s.badge?.title == "gold")
            // The typed values are the ones value(forKey:) sees.
            #expect(s.value(forKey: "medium") as? Int32 == 2_000_000_000)
            #expect(s.value(forKey: "text") as? String == "Grüße ✓")
        }
    }

    /// nil reads as 0 / false for scalars (as Core Data's scalar accessors do) and as nil for optionals;
    /// setting nil clears the slot.
    @Test func nilAndScalars() throws {
        let (container, store) = try container()
        defer { store.cleanUp() }
        let sample = ManagedSample(context: container.viewContext)
        #expect(sample.small == 0 && sample.large == 0 && sample.real == 0 && sample.single == 0 && !sample.flag)
        #expect(sample.text == nil && sample.boxed == nil && sample.amount == nil && sample.colour == nil && sample.keeper == nil)
        #expect(sample.requiredText == "", "the attribute's default value")
        sample.text = "x"
        sample.text = nil
        #expect(sample.text == nil && sample.value(forKey: "text") == nil)
        sample.boxed = 7
        #expect(sample.value(forKey: "boxed") as? Int == 7)
    }

    /// Relationships set through typed properties keep their inverses at once, before any save.
    @Test func relationshipsKeepInversesInMemory() throws {
        let (container, store) = try container()
        defer { store.cleanUp() }
        let context = container.viewContext
        let sample = ManagedSample(context: context)
        let keeper = ManagedKeeper(context: context), other = ManagedKeeper(context: context)
        sample.keeper = keeper
        #expect(keeper.samples == [sample])
        sample.keeper = other
        #expect(keeper.samples.isEmpty && other.samples == [sample])
        other.samples = []
        #expect(sample.keeper == nil)
        keeper.samples = [sample]
        #expect(sample.keeper === keeper)

        let red = ManagedTag(context: context), blue = ManagedTag(context: context)
        sample.tags = NSSet(array: [red, blue])
        #expect(red.samples == NSSet(array: [sample]) && blue.samples?.count == 1)
        sample.tags = NSSet(array: [blue])
        #expect(red.samples?.count == 0 && blue.samples == NSSet(array: [sample]))

        let one = ManagedStep(context: context), two = ManagedStep(context: context)
        sample.steps = NSOrderedSet(array: [two, one])
        #expect(one.sample === sample && two.sample === sample)
        #expect(sample.steps?.array as? [ManagedStep] == [two, one])
        one.sample = nil
        #expect(sample.steps?.array as? [ManagedStep] == [two])

        try context.save()
        let fresh = container.newBackgroundContext()
        try fresh.performAndWait {
            let s = try fetchOne(fresh)
            #expect(s.keeper?.name == nil && s.keeper != nil)
            #expect((s.tags?.allObjects as? [ManagedTag])?.count == 1)
            #expect(s.steps?.count == 1)
            #expect((s.steps?.firstObject as? ManagedStep)?.sample === s)
        }
    }

    /// A typed set records the same change as `setValue(_:forKey:)`: `changedValues()`, `isUpdated`.
    @Test func changedValuesMatchSetValue() throws {
        let (container, store) = try container()
        defer { store.cleanUp() }
        let context = container.viewContext
        let seed = ManagedSample(context: context)
        let keeper = ManagedKeeper(context: context)
        let tag = ManagedTag(context: context)
        try context.save()

        func changes(_ body: (ManagedSample, ManagedKeeper, ManagedTag) -> Void) throws -> [String: String] {
            let c = container.newBackgroundContext()
            return try c.performAndWait {
                let s = try fetchOne(c)
                let k = try #require(c.existingObject(with: keeper.objectID) as? ManagedKeeper)
                let t = try #require(c.existingObject(with: tag.objectID) as? ManagedTag)
                body(s, k, t)
                #expect(s.isUpdated)
                return s.changedValues().mapValues { value in
                    if let object = value as? NSManagedObject { return object.objectID.uriRepresentation().absoluteString }
                    if let set = value as? NSSet { return set.allObjects.compactMap { ($0 as? NSManagedObject)?.objectID.uriRepresentation().absoluteString }.sorted().joined(separator: ",") }
                    return "\(value)"
                }
            }
        }
        let typed = try changes { s, k, t in
            s.text = "a"; s.small = 3; s.boxed = 4; s.real = 2.5; s.flag = true; s.amount = 1.25; s.keeper = k; s.tags = NSSet(object: t)
        }
        let keyed = try changes { s, k, t in
            s.setValue("a", forKey: "text"); s.setValue(3, forKey: "small"); s.setValue(4, forKey: "boxed"); s.setValue(2.5, forKey: "real")
            s.setValue(true, forKey: "flag"); s.setValue(Decimal(1.25), forKey: "amount"); s.setValue(k, forKey: "keeper"); s.setValue(NSSet(object: t), forKey: "tags")
        }
        #expect(typed == keyed)
        #expect(Set(typed.keys) == ["text", "small", "boxed", "real", "flag", "amount", "keeper", "tags"])
        _ = seed
    }

    /// Setting the value a property already holds records no change, as with `setValue(_:forKey:)`.
    @Test func settingTheSameValueIsNoChange() throws {
        let (container, store) = try container()
        defer { store.cleanUp() }
        let context = container.viewContext
        let sample = ManagedSample(context: context)
        sample.text = "same"
        try context.save()
        sample.text = "same"
        #expect(!sample.isUpdated && !context.hasChanges)
    }

    /// A typed read of a fault fires it.
    @Test func typedReadFiresTheFault() throws {
        let (container, store) = try container()
        defer { store.cleanUp() }
        let context = container.viewContext
        ManagedSample(context: context).text = "fault"
        try context.save()
        let other = container.newBackgroundContext()
        try other.performAndWait {
            let request: NSFetchRequest<ManagedSample> = ManagedSample.fetchRequest()
            request.returnsObjectsAsFaults = true
            let s = try #require(try other.fetch(request).first)
            #expect(s.isFault)
            #expect(s.text == "fault")
            #expect(!s.isFault)
            // An object by ID is a fault too; a typed relationship read fires it.
            let third = container.newBackgroundContext()
            let again = try #require(third.object(with: s.objectID) as? ManagedSample)
            #expect(again.isFault)
            #expect(again.keeper == nil && !again.isFault)
            withExtendedLifetime(third) {}
        }
    }

    /// Xcode's to-many accessors of an unordered relationship: one object and an NSSet.
    @Test func xcodeAccessorsOfAnUnorderedToMany() throws {
        let (container, store) = try container()
        defer { store.cleanUp() }
        let context = container.viewContext
        let sample = ManagedSample(context: context)
        let tags = (0..<4).map { i -> ManagedTag in
            let t = ManagedTag(context: context)
            t.name = "t\(i)"
            return t
        }
        sample.addToTags(tags[0])
        #expect(sample.tags == NSSet(array: [tags[0]]) && tags[0].samples == NSSet(array: [sample]))
        sample.addToTags(NSSet(array: [tags[1], tags[2], tags[3]]))
        #expect(sample.tags?.count == 4 && tags[3].samples?.count == 1)
        sample.removeFromTags(tags[0])
        #expect(sample.tags?.count == 3 && tags[0].samples?.count == 0)
        sample.removeFromTags(NSSet(array: [tags[1], tags[2]]))
        #expect(sample.tags == NSSet(array: [tags[3]]) && tags[1].samples?.count == 0)
        try context.save()
        let other = container.newBackgroundContext()
        try other.performAndWait {
            let s = try fetchOne(other)
            #expect((s.tags?.allObjects as? [ManagedTag])?.map(\.name) == ["t3"])
        }
    }

    /// Xcode's to-many accessors of an ordered relationship, with indexes and index sets.
    @Test func xcodeAccessorsOfAnOrderedToMany() throws {
        let (container, store) = try container()
        defer { store.cleanUp() }
        let context = container.viewContext
        let sample = ManagedSample(context: context)
        let steps = (0..<8).map { i -> ManagedStep in
            let s = ManagedStep(context: context)
            s.name = "s\(i)"
            return s
        }
        func names() -> [String] { (sample.steps?.array as? [ManagedStep] ?? []).map { $0.name ?? "?" } }
        sample.addToSteps(steps[0])
        sample.addToSteps(NSOrderedSet(array: [steps[1], steps[2]]))
        #expect(names() == ["s0", "s1", "s2"])
        sample.insertIntoSteps(steps[3], at: 1)
        #expect(names() == ["s0", "s3", "s1", "s2"] && steps[3].sample === sample)
        sample.insertIntoSteps([steps[4], steps[5]], at: NSIndexSet(indexesIn: NSRange(location: 0, length: 2)))
        #expect(names() == ["s4", "s5", "s0", "s3", "s1", "s2"])
        sample.removeFromSteps(at: 2)
        #expect(names() == ["s4", "s5", "s3", "s1", "s2"] && steps[0].sample == nil)
        let indexes = NSMutableIndexSet(index: 0)
        indexes.add(4)
        sample.removeFromSteps(at: indexes)
        #expect(names() == ["s5", "s3", "s1"] && steps[4].sample == nil && steps[2].sample == nil)
        sample.replaceSteps(at: 1, with: steps[6])
        #expect(names() == ["s5", "s6", "s1"] && steps[3].sample == nil && steps[6].sample === sample)
        let both = NSMutableIndexSet(index: 0)
        both.add(2)
        sample.replaceSteps(at: both, with: [steps[7], steps[0]])
        #expect(names() == ["s7", "s6", "s0"] && steps[5].sample == nil && steps[1].sample == nil)
        sample.removeFromSteps(steps[6])
        #expect(names() == ["s7", "s0"])
        sample.removeFromSteps(NSOrderedSet(array: [steps[7]]))
        #expect(names() == ["s0"])
        sample.addToSteps(NSOrderedSet(array: [steps[2], steps[1]]))
        #expect(names() == ["s0", "s2", "s1"])
        try context.save()
        let other = container.newBackgroundContext()
        try other.performAndWait {
            let s = try fetchOne(other)
            #expect((s.steps?.array as? [ManagedStep])?.map(\.name) == ["s0", "s2", "s1"])
        }
    }

    /// `insertNewObject(forEntityName:into:)` and fetches return the subclass; a class named without
    /// its module (`"ManagedKeeper"`) is found among the program's @Managed classes.
    @Test func objectsAreOfTheSubclass() throws {
        let (container, store) = try container()
        defer { store.cleanUp() }
        let context = container.viewContext
        let object = NSEntityDescription.insertNewObject(forEntityName: "Sample", into: context)
        #expect(object is ManagedSample)
        #expect(NSEntityDescription.insertNewObject(forEntityName: "Keeper", into: context) is ManagedKeeper)
        #expect(container.managedObjectModel.classWarnings.isEmpty)
        try context.save()
        let fetched = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Keeper"))
        #expect(fetched.count == 1 && fetched[0] is ManagedKeeper)
    }
}
