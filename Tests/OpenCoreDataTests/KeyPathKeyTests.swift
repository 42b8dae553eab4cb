import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Issue #35, item 1: Swift key paths over `@Managed` properties as keys, for sort descriptors and
/// expressions (`NSSortDescriptor(keyPath:)`, `NSExpression(forKeyPath:)`, `NSSortDescriptor(_:)` of a
/// Foundation `SortDescriptor`), through to-one relationships.
@Suite struct KeyPathKeyTests {
    /// The view context of a container on `store` holding the zoo, saved.
    static func savedZoo(_ store: TemporaryStore) throws -> NSManagedObjectContext {
        let context = try store.container(ZooModel.make()).viewContext
        ZooModel.seed(context)
        try context.save()
        return context
    }

    @Test func keyPathsNameTheirProperties() throws {
        #expect(NSSortDescriptor(keyPath: \Animal.commonName, ascending: true).key == "commonName")
        #expect(NSSortDescriptor(keyPath: \Zoo.name, ascending: false).ascending == false)
        #expect(NSSortDescriptor(keyPath: \Animal.classification?.order, ascending: true).key == "classification.order")
        #expect(NSSortDescriptor(keyPath: \Animal.classification?.family, ascending: true).key == "classification.family")
        #expect(NSSortDescriptor(keyPath: \Animal.classification, ascending: true).key == "classification")
        #expect(NSSortDescriptor(keyPath: \Products.price, ascending: true).key == "price")
        #expect(NSExpression(forKeyPath: \Animal.habitat).keyPath == "habitat")
        #expect(NSExpression(forKeyPath: \Animal.classification?.scientificClassification).keyPath == "classification.scientificClassification")
        #expect(NSSortDescriptor(SortDescriptor(\Animal.commonName, order: .reverse)).key == "commonName")
        #expect(NSSortDescriptor(SortDescriptor(\Animal.commonName, order: .reverse)).ascending == false)
        #expect(NSSortDescriptor(SortDescriptor(\Products.price)).ascending)
    }

    @Test func aKeyPathThatIsNotAModeledPropertyIsNamed() throws {
        #expect { try NSSortDescriptor(validatingKeyPath: \Animal.description, ascending: true) } throws: { error in
            let text = "\(error)"
            return text.contains("from Animal to String") && text.contains("names no modeled property")
        }
        #expect { try NSSortDescriptor(validatingKeyPath: \String.count, ascending: true) } throws: { error in
            "\(error)".contains("String is not an NSManagedObject subclass")
        }
        // An inherited property from the subclass: named, with the way out.
        #expect { try NSSortDescriptor(validatingKeyPath: \FavoriteProducts.name, ascending: true) } throws: { error in
            "\(error)".contains("write it from the declaring class")
        }
    }

    @Test func aFetchSortedByKeyPathsMatchesOneSortedByKeys() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try KeyPathKeyTests.savedZoo(store)
        func names(_ sorts: [NSSortDescriptor]) throws -> [String] {
            let request = NSFetchRequest<Animal>(entityName: "Animal")
            request.sortDescriptors = sorts
            return try context.fetch(request).map { $0.commonName ?? "" }
        }
        let byKeyPaths = try names([NSSortDescriptor(keyPath: \Animal.classification?.family, ascending: false),
                                    NSSortDescriptor(keyPath: \Animal.commonName, ascending: true)])
        let byKeys = try names([NSSortDescriptor(key: "classification.family", ascending: false), NSSortDescriptor(key: "commonName", ascending: true)])
        #expect(byKeyPaths == byKeys)
        #expect(byKeyPaths.count == 4)
        let modern = try names([NSSortDescriptor(SortDescriptor(\Animal.commonName, order: .reverse))])
        #expect(modern == byKeys.sorted(by: >))
    }
}

/// Issue #35, item 1, the reverse: Foundation's `SortDescriptor(_:comparing:)` of an `NSSortDescriptor`.
@Suite struct SortDescriptorFromNSSortDescriptorTests {
    @Test func keysBecomeTheirKeyPaths() throws {
        let name = try #require(SortDescriptor(NSSortDescriptor(key: "commonName", ascending: false), comparing: Animal.self))
        #expect(name.keyPath == \Animal.commonName)
        #expect(name.order == .reverse)
        let price = try #require(SortDescriptor(NSSortDescriptor(key: "price", ascending: true), comparing: Products.self))
        #expect(price.keyPath == \Products.price)
        #expect(price.order == .forward)
        let through = try #require(SortDescriptor(NSSortDescriptor(key: "classification.order", ascending: true), comparing: Animal.self))
        #expect(through.keyPath.flatMap { try? ManagedKeyPaths.key(for: $0).get() } == "classification.order")
        // And back: the same key and direction.
        #expect(NSSortDescriptor(name).key == "commonName")
        #expect(NSSortDescriptor(name).ascending == false)
        #expect(NSSortDescriptor(price).key == "price")
        #expect(NSSortDescriptor(through).key == "classification.order")
    }

    @Test func itSortsAsTheNSSortDescriptorDoes() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try KeyPathKeyTests.savedZoo(store)
        let request = NSFetchRequest<Animal>(entityName: "Animal")
        let keys = [NSSortDescriptor(key: "classification.family", ascending: false), NSSortDescriptor(key: "commonName", ascending: true)]
        request.sortDescriptors = keys
        let fetched = try context.fetch(request).map(\.commonName)
        let modern = try keys.map { try #require(SortDescriptor($0, comparing: Animal.self)) }
        let sorted = try context.fetch(NSFetchRequest<Animal>(entityName: "Animal")).sorted(using: modern).map(\.commonName)
        #expect(sorted == fetched)
    }

    @Test func whatHasNoEquivalentIsNil() {
        #expect(SortDescriptor(NSSortDescriptor(key: nil, ascending: true), comparing: Animal.self) == nil)
        #expect(SortDescriptor(NSSortDescriptor(key: "commonName", ascending: true, selector: Selector("localizedStandardCompare:")), comparing: Animal.self) == nil)
        #expect(SortDescriptor(NSSortDescriptor(key: "nickname", ascending: true), comparing: Animal.self) == nil)
        #expect(SortDescriptor(NSSortDescriptor(key: "commonName.count", ascending: true), comparing: Animal.self) == nil)
        #expect(SortDescriptor(NSSortDescriptor(key: "zoos", ascending: true), comparing: Animal.self) == nil)  // a set is not Comparable
        #expect(SortDescriptor(NSSortDescriptor(key: "name", ascending: true), comparing: FavoriteProducts.self) == nil)  // inherited
        #expect(SortDescriptor(NSSortDescriptor(key: "commonName", ascending: true, selector: Selector("compare:")), comparing: Animal.self) != nil)
    }
}
