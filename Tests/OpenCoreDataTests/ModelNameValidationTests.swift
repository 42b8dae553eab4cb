import Foundation
import OpenCoreData
import Testing

/// Names that would make our SQLite layout wrong are errors when the model is loaded, naming the entity,
/// the name and the reason — not raw SQL at the first save (issue "Nothing lost, nothing silently wrong").
@Suite("Model name validation")
struct ModelNameValidationTests {
    /// The message of the error that loading `entities` throws, or `nil` when the model loads.
    private func loadError(_ entities: [NSEntityDescription]) -> String? {
        do {
            _ = try NSPersistentStoreCoordinator(validatingModel: NSManagedObjectModel(entities: entities))
            return nil
        } catch let error as CoreDataError {
            #expect(error.code == NSPersistentStoreInvalidTypeError)
            return error.message
        } catch {
            Issue.record("not a CoreDataError: \(error)")
            return "\(error)"
        }
    }

    private func entity(_ name: String, _ attributes: String...) -> NSEntityDescription {
        NSEntityDescription(name: name, properties: attributes.map { NSAttributeDescription(name: $0, type: .stringAttributeType) })
    }

    @Test func propertyNameWithASpaceIsAnError() throws {
        let message = try #require(loadError([entity("Item", "first name")]))
        #expect(message.contains("entity Item"))
        #expect(message.contains("\"first name\""))
        #expect(message.contains("identifier"))
    }

    @Test(arguments: ["1st", "_x", "a-b", "naïve", "a.b", "@count", ""])
    func propertyNamesThatAreNotIdentifiersAreErrors(name: String) throws {
        let message = try #require(loadError([entity("Item", name)]))
        #expect(message.contains("entity Item"))
    }

    @Test(arguments: ["My Item", "1Item", "Item-2", "Ärger", "_Item"])
    func entityNamesThatAreNotIdentifiersAreErrors(name: String) throws {
        let message = try #require(loadError([entity(name, "title")]))
        #expect(message.contains("entity \"\(name)\""))
        #expect(message.contains("identifier"))
    }

    @Test func entitiesWhoseTablesDifferOnlyInCaseAreAnError() throws {
        let message = try #require(loadError([entity("Item", "title"), entity("ITEM", "title")]))
        #expect(message.contains("Item") && message.contains("ITEM"))
        #expect(message.contains("ZITEM"))
        #expect(message.contains("case"))
    }

    @Test(arguments: [("_opt", "Z_OPT"), ("_pk", "Z_PK"), ("_ENT", "Z_ENT")])
    func propertiesWhoseColumnIsCoreDatasOwnAreErrors(name: String, column: String) throws {
        let message = try #require(loadError([entity("Item", "title", name)]))
        #expect(message.contains("entity Item"))
        #expect(message.contains("\"\(name)\""))
        #expect(message.contains(column))
    }

    @Test func propertiesWhoseColumnsDifferOnlyInCaseInOneHierarchyAreAnError() throws {
        let parent = entity("Parent", "name")
        let child = entity("Child", "Name")
        parent.subentities = [child]
        let message = try #require(loadError([parent]))
        #expect(message.contains("entity Child"))
        #expect(message.contains("\"Name\"") && message.contains("\"name\""))
        #expect(message.contains("ZNAME"))
    }

    @Test(arguments: ["description", "hash", "objectID", "entity", "managedObjectContext", "isDeleted", "hasChanges",
                      "changedValues", "isFault", "self", "class", "debugDescription"])
    func reservedPropertyNamesAreErrors(name: String) throws {
        let message = try #require(loadError([entity("Item", "title", name)]))
        #expect(message.contains("entity Item"))
        #expect(message.contains("\"\(name)\""))
        #expect(message.contains("reserved"))
    }

    @Test func validNamesStillLoad() {
        // Core Data's runtime accepts these (Xcode's editor would ask for a lowercase property and an
        // uppercase entity): so do we.
        #expect(loadError([entity("Item", "firstName", "first_name", "x2", "Title", "desc", "objectId2")]) == nil)
        #expect(loadError([entity("item", "title")]) == nil)
        // Siblings may both have `name` and `Name`: the second gets a `Z<n>NAME` column, as in Core Data.
        let root = entity("Root", "title"), a = entity("A", "name"), b = entity("B", "Name")
        root.subentities = [a, b]
        #expect(loadError([root]) == nil)
    }
}
