import Foundation
import OpenCoreDataTesting
import Testing
@testable import OpenCoreData

/// The fetched results controller with relationships, on requests that read only the fetched entity's
/// own keys (these run without SQL joins).
@Suite("NSFetchedResultsController: relationship edits") struct ControllerRelationshipEditTests {
    /// Reassigning an animal changes both classifications' `animals` (inverses are kept in memory): for
    /// a controller of classifications sorted by `order`, that is an update in place, not a move.
    @Test func aChangeOfTheToManySideAloneIsAnUpdateInPlace() throws {
        let stack = try ZooStack()
        try seedZoo(stack.background)
        stack.view.automaticallyMergesChangesFromParent = true
        let request = NSFetchRequest<NSManagedObject>(entityName: "Classification")
        request.sortDescriptors = [NSSortDescriptor(key: "order", ascending: true)]
        let cell = { (c: NSManagedObject) in "\(c.string("order")!)|\(c.set("animals").count)" }
        let tracked = try stack.view.performAndWait { try makeRecordedTable(request, in: stack.view, cell: cell) }
        try stack.view.performAndWait {
            let lion = try stack.one(stack.view, "Animal", "commonName", "Lion")
            lion.setValue(try stack.one(stack.view, "Classification", "order", "Primates"), forKey: "classification")
            stack.view.processPendingChanges()
            #expect(tracked.delegate.calls.sorted() == ["update 0/0", "update 0/1"])
            #expect(tracked.table.rows == [["Carnivora|1", "Primates|3", "Rodentia|1"]])
            #expect(tracked.table.errors.isEmpty)
            try stack.view.save()
        }
        // The same from a merged save (of a context that read the graph after the view's save): the view
        // registered the classifications, so they arrive updated.
        let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        writer.persistentStoreCoordinator = stack.coordinator
        try writer.performAndWait {
            let mouse = try stack.one(writer, "Animal", "commonName", "Mouse")
            mouse.setValue(try stack.one(writer, "Classification", "order", "Carnivora"), forKey: "classification")
            try writer.save()
        }
        stack.view.performAndWait {
            #expect(tracked.delegate.calls.sorted() == ["update 0/0", "update 0/2"])
            #expect(tracked.table.rows == [["Carnivora|2", "Primates|3", "Rodentia|0"]])
            #expect(tracked.table.errors.isEmpty)
        }
    }

    /// A merged save that changes only the to-many side of rows the view never registered (a predicate on
    /// `order` alone): they are evaluated, nothing is delivered, and they stay unregistered.
    @Test func aMergedChangeOfTheToManySideOfUnregisteredRowsDeliversNothing() throws {
        let stack = try ZooStack()
        try seedZoo(stack.background)
        stack.view.automaticallyMergesChangesFromParent = true
        let request = NSFetchRequest<NSManagedObject>(entityName: "Classification")
        request.predicate = NSPredicate(format: "order BEGINSWITH 'P'")
        request.sortDescriptors = [NSSortDescriptor(key: "order", ascending: true)]
        let tracked = try stack.view.performAndWait { try makeRecordedTable(request, in: stack.view) { $0.string("order")! } }
        let rodentiaID = try stack.background.performAndWait {
            let rodentia = try stack.one(stack.background, "Classification", "order", "Rodentia")
            try stack.one(stack.background, "Animal", "commonName", "Stray").setValue(rodentia, forKey: "classification")
            try stack.background.save()
            return rodentia.objectID
        }
        stack.view.performAndWait {
            #expect(stack.view.registeredObject(for: rodentiaID) == nil)
            #expect(tracked.table.batches == 0)
            #expect(tracked.table.rows == [["Primates"]])
        }
    }

    /// A fetch with `fetchLimit` and unsaved changes reads SQL's first `offset + limit + k` rows, k the
    /// rows changed here: enough when every changed row sorted first in the store.
    @Test func aLimitedFetchWithUnsavedChangesReadsEnoughRows() throws {
        let stack = try ZooStack()
        try stack.view.performAndWait {
            let animals = (0..<12).map { stack.view.make("Animal", ["commonName": String(format: "a%02d", $0)]) }
            try stack.view.save()
            for animal in animals.prefix(5) { animal.setValue("z" + animal.string("commonName")!, forKey: "commonName") }
            animals[11].setValue("a00b", forKey: "commonName")
            stack.view.delete(animals[5])
            let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
            request.sortDescriptors = [NSSortDescriptor(key: "commonName", ascending: true)]
            request.fetchOffset = 1
            request.fetchLimit = 3
            #expect(try stack.view.fetch(request).map { $0.string("commonName")! } == ["a06", "a07", "a08"])
            request.fetchLimit = 0
            #expect(try stack.view.fetch(request).count == 10)
        }
    }

    /// `sectionNameKeyPath` across relationships: every key must exist, and only to-ones lead on.
    @Test func sectionKeyPathsAreCheckedThroughRelationships() throws {
        let stack = try ZooStack()
        stack.view.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
            request.sortDescriptors = [NSSortDescriptor(key: "commonName", ascending: true)]
            for (path, message) in [("classification.nope", "keypath classification.nope not found in entity Animal"),
                                    ("commonName.order", "keypath commonName.order not found in entity Animal"),
                                    ("zoos.name", "to-many key not allowed here: keypath zoos.name in entity Animal")] {
                let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: stack.view, sectionNameKeyPath: path, cacheName: nil)
                #expect { try controller.performFetch() } throws: { "\($0)".contains(message) }
            }
        }
    }
}

/// The fetched results controller across relationships: sections and sorts by `classification.order`,
/// related changes followed (beyond Core Data), merged rows the view never registered. These need the
/// store's joins to run `performFetch()`.
@Suite("NSFetchedResultsController across relationships", .enabled(if: RelationshipSQL.isAvailable))
struct ControllerAcrossRelationshipsTests {
    /// Seed 003's table: sections by `classification.order`; an animal without classification is in the
    /// section named "" (first: nil sorts first), as in Core Data.
    @Test func sectionsAcrossAToOne() throws {
        let stack = try ZooStack()
        try seedZoo(stack.view)
        try stack.view.performAndWait {
            let controller = NSFetchedResultsController(fetchRequest: zooTableRequest(), managedObjectContext: stack.view,
                                                        sectionNameKeyPath: "classification.order", cacheName: nil)
            try controller.performFetch()
            #expect(controller.sections?.map(\.name) == ["", "Carnivora", "Primates", "Rodentia"])
            #expect(controller.sections?.map(\.numberOfObjects) == [1, 2, 2, 1])
            #expect(controller.sectionIndexTitles == ["C", "P", "R"])
            #expect(controller.object(at: IndexPath(row: 1, section: 2)).string("commonName") == "Gorilla")
        }
    }

    /// The edits of seed 003's articles in the view context: reclassify (a move between sections), empty
    /// a section, take a classification away (to the "" section), rename an order (its rows move, in
    /// the same batch), rename a key the request does not read (nothing).
    @Test func editsInTheViewContextKeepTheTableInStep() throws {
        let stack = try ZooStack()
        try seedZoo(stack.view)
        try stack.view.performAndWait {
            let request = zooTableRequest()
            let tracked = try makeRecordedTable(request, in: stack.view, sectionNameKeyPath: "classification.order", cell: animalCell)
            func check(_ what: String) throws {
                stack.view.processPendingChanges()
                let expected = try memoryReference(request, in: stack.view, sectionNameKeyPath: "classification.order", cell: animalCell)
                #expect(tracked.table.errors.isEmpty, "\(what): \(tracked.table.errors)")
                #expect(tracked.table.rows == expected, "\(what): \(tracked.delegate.calls)")
            }
            let capuchin = try stack.one(stack.view, "Animal", "commonName", "Capuchin")
            let carnivora = try stack.one(stack.view, "Classification", "order", "Carnivora")
            capuchin.setValue(carnivora, forKey: "classification")
            try check("reclassify")
            #expect(tracked.delegate.calls == ["move 2/0 -> 1/0"])
            try stack.one(stack.view, "Animal", "commonName", "Mouse").setValue(nil, forKey: "classification")
            try check("to the nil section")
            #expect(tracked.delegate.calls == ["section delete 3", "delete 3/0", "insert 0/0"])
            carnivora.setValue("Zcarnivora", forKey: "order")
            try check("rename an order")
            #expect(tracked.controller.sections?.map(\.name) == ["", "Primates", "Zcarnivora"])
            let batches = tracked.table.batches
            carnivora.setValue("Canidae", forKey: "family")
            try check("rename a family")
            #expect(tracked.table.batches == batches)
            try stack.view.save()
            let fetched = try stack.view.fetch(request)
            #expect(fetched == tracked.controller.fetchedObjects)
        }
    }

    /// Beyond Core Data: renaming a classification moves its animals in the same batch, as an update
    /// where they keep their place; from the view context and merged from another context.
    @Test func aRelatedRenameMovesRowsInTheSameBatch() throws {
        let stack = try ZooStack()
        try seedZoo(stack.view)
        stack.view.automaticallyMergesChangesFromParent = true
        let request = zooTableRequest()
        let tracked = try stack.view.performAndWait { try makeRecordedTable(request, in: stack.view, cell: animalCell) }
        try stack.view.performAndWait {
            // Stray, Lion, Tiger, Capuchin, Gorilla, Mouse → Stray, Capuchin, Gorilla, Lion, Tiger, Mouse
            try stack.one(stack.view, "Classification", "order", "Carnivora").setValue("Qarnivora", forKey: "order")
            stack.view.processPendingChanges()
            #expect(tracked.table.rows == [["Stray|-|", "Capuchin|Primates|Bronx", "Gorilla|Primates|Berlin", "Lion|Qarnivora|Bronx", "Tiger|Qarnivora|", "Mouse|Rodentia|"]])
            #expect(tracked.table.errors.isEmpty)
            // A rename that keeps the order: the rows are updated (their cells show the order).
            try stack.one(stack.view, "Classification", "order", "Rodentia").setValue("Rodents", forKey: "order")
            stack.view.processPendingChanges()
            #expect(tracked.delegate.calls == ["update 0/5"])
            try stack.view.save()
        }
        try stack.background.performAndWait {
            try stack.one(stack.background, "Classification", "order", "Primates").setValue("Apes", forKey: "order")
            try stack.background.save()
        }
        try stack.view.performAndWait {
            #expect(tracked.table.rows == [["Stray|-|", "Capuchin|Apes|Bronx", "Gorilla|Apes|Berlin", "Lion|Qarnivora|Bronx", "Tiger|Qarnivora|", "Mouse|Rodents|"]])
            #expect(tracked.delegate.calls.sorted() == ["update 0/1", "update 0/2"])
            #expect(tracked.table.errors.isEmpty)
            let fetched = try stack.view.fetch(request)
            #expect(fetched == tracked.controller.fetchedObjects)
        }
    }

    /// A merged save renames classifications the view context never registered, whose animals it never
    /// registered either: the animals are found through the inverse relationship in the store and
    /// evaluated — one enters the results, one leaves.
    @Test func aMergedChangeOfUnregisteredRelatedRowsReachesTheController() throws {
        let stack = try ZooStack()
        try seedZoo(stack.background)
        stack.view.automaticallyMergesChangesFromParent = true
        let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
        request.predicate = NSPredicate(format: "classification.order == 'Primates'")
        request.sortDescriptors = [NSSortDescriptor(key: "commonName", ascending: true)]
        let cell = { (a: NSManagedObject) in a.string("commonName")! }
        let tracked = try stack.view.performAndWait { try makeRecordedTable(request, in: stack.view, cell: cell) }
        let (carnivora, primates, lion) = try stack.background.performAndWait {
            (try stack.one(stack.background, "Classification", "order", "Carnivora").objectID,
             try stack.one(stack.background, "Classification", "order", "Primates").objectID,
             try stack.one(stack.background, "Animal", "commonName", "Lion").objectID)
        }
        stack.view.performAndWait {
            #expect(tracked.table.rows == [["Capuchin", "Gorilla"]])
            #expect(stack.view.registeredObject(for: carnivora) == nil && stack.view.registeredObject(for: lion) == nil)
        }
        try stack.background.performAndWait {
            try stack.one(stack.background, "Classification", "order", "Carnivora").setValue("Primates", forKey: "order")
            try stack.background.save()
        }
        stack.view.performAndWait {
            #expect(tracked.table.rows == [["Capuchin", "Gorilla", "Lion", "Tiger"]])
            #expect(tracked.table.errors.isEmpty)
            #expect(stack.view.registeredObject(for: lion) != nil)
            #expect(stack.view.registeredObject(for: primates) == nil)
        }
        try stack.background.performAndWait {
            try stack.background.existingObject(with: primates).setValue("Apes", forKey: "order")
            try stack.background.save()
        }
        try stack.view.performAndWait {
            #expect(tracked.table.rows == [["Lion", "Tiger"]])
            #expect(tracked.table.errors.isEmpty)
            let fetched = try stack.view.fetch(request)
            #expect(fetched == tracked.controller.fetchedObjects)
        }
    }

    /// `ANY zoos.name == 'Bronx'`: renaming a zoo (many-to-many, never registered in the view) inserts
    /// and deletes its animals; adding an animal to a zoo is a change of the animal's own `zoos`.
    @Test func aToManyKeyPathFollowsItsObjects() throws {
        let stack = try ZooStack()
        try seedZoo(stack.background)
        stack.view.automaticallyMergesChangesFromParent = true
        let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
        request.predicate = NSPredicate(format: "ANY zoos.name == 'Bronx'")
        request.sortDescriptors = [NSSortDescriptor(key: "commonName", ascending: true)]
        let tracked = try stack.view.performAndWait { try makeRecordedTable(request, in: stack.view, cell: animalCell) }
        func check(_ what: String) throws {
            try stack.view.performAndWait {
                let expected = try memoryReference(request, in: stack.view, sectionNameKeyPath: nil, cell: animalCell)
                #expect(tracked.table.errors.isEmpty, "\(what): \(tracked.table.errors)")
                #expect(tracked.table.rows == expected, "\(what)")
            }
        }
        try check("fetch")
        try stack.background.performAndWait {
            try stack.one(stack.background, "Zoo", "name", "Berlin").setValue("Bronx", forKey: "name")
            try stack.background.save()
        }
        try check("merged rename in")
        stack.view.performAndWait { #expect(tracked.table.rows == [["Capuchin|Primates|Bronx", "Gorilla|Primates|Bronx", "Lion|Carnivora|Bronx"]]) }
        try stack.background.performAndWait {
            let bronx = try stack.background.fetch(NSFetchRequest<NSManagedObject>(entityName: "Zoo")).first { $0.set("animals").count == 2 }!
            bronx.setValue("Paris", forKey: "name")
            try stack.background.save()
        }
        try check("merged rename out")
        stack.view.performAndWait { #expect(tracked.table.rows == [["Gorilla|Primates|Bronx"]]) }
        try stack.view.performAndWait {
            let mouse = try stack.one(stack.view, "Animal", "commonName", "Mouse")
            let zoo = try stack.view.fetch(NSFetchRequest<NSManagedObject>(entityName: "Zoo")).first { $0.string("name") == "Bronx" }!
            zoo.mutableSetValue(forKey: "animals").add(mouse)
            stack.view.processPendingChanges()
        }
        try check("add in the view")
    }

    /// `fetchLimit`/`fetchOffset` with a sort across a relationship: renames move rows into and out of
    /// the window (view context and merged), and the window stays the store's.
    @Test func fetchLimitWindowsWithARelationshipSort() throws {
        let stack = try ZooStack()
        try seedZoo(stack.view)
        stack.view.automaticallyMergesChangesFromParent = true
        let request = zooTableRequest()
        request.fetchOffset = 1
        request.fetchLimit = 3
        let tracked = try stack.view.performAndWait { try makeRecordedTable(request, in: stack.view, cell: animalCell) }
        func check(_ what: String, _ names: [String]) throws {
            try stack.view.performAndWait {
                #expect(tracked.table.errors.isEmpty, "\(what): \(tracked.table.errors)")
                #expect(tracked.table.rows.flatMap { $0 }.map { String($0.prefix { $0 != "|" }) } == names, "\(what)")
                let fetched = try stack.view.fetch(request)
                #expect(fetched == tracked.controller.fetchedObjects, "\(what)")
            }
        }
        try check("fetch", ["Lion", "Tiger", "Capuchin"])
        try stack.view.performAndWait {
            try stack.one(stack.view, "Classification", "order", "Carnivora").setValue("Zcarnivora", forKey: "order")
            try stack.view.save()
        }
        try check("renamed out", ["Capuchin", "Gorilla", "Mouse"])
        try stack.background.performAndWait {
            try stack.one(stack.background, "Classification", "order", "Rodentia").setValue("Aardvarks", forKey: "order")
            try stack.background.save()
        }
        try check("merged rename", ["Mouse", "Capuchin", "Gorilla"])
        try stack.background.performAndWait {
            try stack.one(stack.background, "Classification", "order", "Primates").setValue("Zebras", forKey: "order")
            try stack.background.save()
        }
        try check("merged rename out", ["Mouse", "Lion", "Tiger"])
    }

    /// Unsaved renames in the controller's context that empty a `fetchLimit` window's known rows: the
    /// edge is fetched through the context, whose fetch evaluates the rows reading the renamed objects in
    /// memory (SQL has the saved names).
    @Test func aWindowEdgeFetchSeesUnsavedRelatedChanges() throws {
        let stack = try ZooStack()
        try stack.view.performAndWait {
            let early = stack.view.make("Classification", ["order": "A"]), late = stack.view.make("Classification", ["order": "M"])
            for i in 0..<30 {
                stack.view.make("Animal", ["commonName": String(format: "a%02d", i), "classification": i < 24 ? early : late])
            }
            try stack.view.save()
            let request = zooTableRequest()
            request.fetchLimit = 3
            request.fetchOffset = 1
            let tracked = try makeRecordedTable(request, in: stack.view, cell: animalCell)
            early.setValue("Z", forKey: "order")  // a00…a23 move behind a24…a29: the known rows run out
            stack.view.processPendingChanges()
            let expected = try memoryReference(request, in: stack.view, sectionNameKeyPath: nil, cell: animalCell)
            #expect(expected.flatMap { $0 }.map { String($0.prefix(3)) } == ["a25", "a26", "a27"])
            #expect(tracked.table.rows == expected)
            #expect(tracked.table.errors.isEmpty)
            let fetched = try stack.view.fetch(request)
            #expect(fetched == tracked.controller.fetchedObjects)
            late.setValue("ZZ", forKey: "order")  // and back in front
            stack.view.processPendingChanges()
            #expect(tracked.table.rows == (try memoryReference(request, in: stack.view, sectionNameKeyPath: nil, cell: animalCell)))
            #expect(tracked.table.rows.flatMap { $0 }.map { String($0.prefix(3)) } == ["a01", "a02", "a03"])
        }
    }

    /// A fetch honours unsaved changes of the related objects its key paths read (Core Data's SQL reads
    /// the saved values): the predicate and the sort see the renamed classification.
    @Test func aFetchSeesUnsavedChangesOfRelatedObjects() throws {
        let stack = try ZooStack()
        try seedZoo(stack.view)
        try stack.view.performAndWait {
            try stack.one(stack.view, "Classification", "order", "Carnivora").setValue("Primates", forKey: "order")
            let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
            request.predicate = NSPredicate(format: "classification.order == 'Primates'")
            request.sortDescriptors = [NSSortDescriptor(key: "commonName", ascending: false)]
            #expect(try stack.view.fetch(request).map { $0.string("commonName")! } == ["Tiger", "Lion", "Gorilla", "Capuchin"])
            #expect(try stack.view.count(for: request) == 4)
            let sorted = zooTableRequest()
            sorted.fetchLimit = 2
            try stack.one(stack.view, "Classification", "order", "Rodentia").setValue("Aardvarks", forKey: "order")
            #expect(try stack.view.fetch(sorted).map { $0.string("commonName")! } == ["Stray", "Mouse"])
        }
    }

    /// A controller on a child context: the parent's save renaming a classification the child never
    /// registered reaches it; the rows that read it are found and read through the parent.
    @Test func aChildContextFollowsItsParent() throws {
        let stack = try ZooStack()
        try seedZoo(stack.view)
        let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        child.parent = stack.view
        child.automaticallyMergesChangesFromParent = true
        let request = NSFetchRequest<NSManagedObject>(entityName: "Animal")
        request.predicate = NSPredicate(format: "classification.order BEGINSWITH 'P'")
        request.sortDescriptors = [NSSortDescriptor(key: "classification.order", ascending: true), NSSortDescriptor(key: "commonName", ascending: true)]
        let cell = { (a: NSManagedObject) in "\(a.string("commonName")!)|\(a.value(forKeyPath: "classification.order") as? String ?? "-")" }
        let tracked = try child.performAndWait { try makeRecordedTable(request, in: child, cell: cell) }
        child.performAndWait { #expect(tracked.table.rows == [["Capuchin|Primates", "Gorilla|Primates"]]) }
        try stack.view.performAndWait {
            try stack.one(stack.view, "Classification", "order", "Carnivora").setValue("Pantherinae", forKey: "order")
            try stack.view.save()
        }
        try child.performAndWait {
            #expect(tracked.table.rows == [["Lion|Pantherinae", "Tiger|Pantherinae", "Capuchin|Primates", "Gorilla|Primates"]])
            let expected = try memoryReference(request, in: child, sectionNameKeyPath: nil, cell: cell)
            #expect(tracked.table.rows == expected)
            #expect(tracked.table.errors.isEmpty)
        }
    }

    /// Two hops: toys sorted and sectioned by `pet.owner.name`. Renaming an owner moves the toys of all
    /// its pets; giving a pet another owner (or none) moves that pet's toys; deleting an owner cascades.
    @Test func twoHops() throws {
        let stack = try ZooStack()
        let request = NSFetchRequest<NSManagedObject>(entityName: "Toy")
        request.sortDescriptors = [NSSortDescriptor(key: "pet.owner.name", ascending: true), NSSortDescriptor(key: "name", ascending: true)]
        try stack.view.performAndWait {
            let ann = stack.view.make("Owner", ["name": "Ann"]), bob = stack.view.make("Owner", ["name": "Bob"])
            let rex = stack.view.make("Pet", ["name": "Rex", "owner": ann]), tom = stack.view.make("Pet", ["name": "Tom", "owner": bob])
            for (name, pet) in [("ball", rex), ("bone", rex), ("yarn", tom)] { stack.view.make("Toy", ["name": name, "pet": pet]) }
            try stack.view.save()
            let cell = { (t: NSManagedObject) in "\(t.string("name")!)|\(t.value(forKeyPath: "pet.owner.name") as? String ?? "-")" }
            let tracked = try makeRecordedTable(request, in: stack.view, sectionNameKeyPath: "pet.owner.name", cell: cell)
            func check(_ what: String) throws {
                stack.view.processPendingChanges()
                let expected = try memoryReference(request, in: stack.view, sectionNameKeyPath: "pet.owner.name", cell: cell)
                #expect(tracked.table.errors.isEmpty, "\(what): \(tracked.table.errors)")
                #expect(tracked.table.rows == expected, "\(what)")
            }
            #expect(tracked.table.rows == [["ball|Ann", "bone|Ann"], ["yarn|Bob"]])
            ann.setValue("Zed", forKey: "name")
            try check("rename the owner")
            #expect(tracked.table.rows == [["yarn|Bob"], ["ball|Zed", "bone|Zed"]])
            tom.setValue(ann, forKey: "owner")
            try check("another owner")
            #expect(tracked.table.rows == [["ball|Zed", "bone|Zed", "yarn|Zed"]])
            tom.setValue(nil, forKey: "owner")
            try check("no owner")
            #expect(tracked.table.rows == [["yarn|-"], ["ball|Zed", "bone|Zed"]])
            stack.view.delete(ann)  // cascades to Rex and its toys
            try check("owner deleted")
            #expect(tracked.table.rows == [["yarn|-"]])
        }
    }

    /// A relationship without an inverse: the rows are found by a fetch (`tag IN %@`), still in the
    /// same batch.
    @Test func aRelationshipWithoutInverse() throws {
        let model = NSManagedObjectModel(entities: [
            NSEntityDescription(name: "Note", properties: [NSAttributeDescription(name: "title", type: .stringAttributeType),
                                                           NSRelationshipDescription(name: "tag", destination: "Tag", inverse: nil)]),
            NSEntityDescription(name: "Tag", properties: [NSAttributeDescription(name: "name", type: .stringAttributeType)]),
        ])
        let stack = try ZooStack(model: model)
        stack.view.automaticallyMergesChangesFromParent = true
        let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
        request.sortDescriptors = [NSSortDescriptor(key: "tag.name", ascending: true), NSSortDescriptor(key: "title", ascending: true)]
        let cell = { (n: NSManagedObject) in "\(n.string("title")!)|\(n.value(forKeyPath: "tag.name") as? String ?? "-")" }
        try stack.view.performAndWait {
            let a = stack.view.make("Tag", ["name": "a"]), b = stack.view.make("Tag", ["name": "b"])
            for (title, tag) in [("n1", a), ("n2", b), ("n3", a)] { stack.view.make("Note", ["title": title, "tag": tag]) }
            try stack.view.save()
        }
        let tracked = try stack.view.performAndWait { try makeRecordedTable(request, in: stack.view, cell: cell) }
        try stack.view.performAndWait {
            #expect(tracked.table.rows == [["n1|a", "n3|a", "n2|b"]])
            try stack.one(stack.view, "Tag", "name", "a").setValue("c", forKey: "name")
            stack.view.processPendingChanges()
            #expect(tracked.table.rows == [["n2|b", "n1|c", "n3|c"]])
            #expect(tracked.table.errors.isEmpty)
            try stack.view.save()
        }
        try stack.background.performAndWait {
            try stack.one(stack.background, "Tag", "name", "b").setValue("d", forKey: "name")
            try stack.background.save()
        }
        stack.view.performAndWait {
            #expect(tracked.table.rows == [["n1|c", "n3|c", "n2|d"]])
            #expect(tracked.table.errors.isEmpty)
        }
    }
}
