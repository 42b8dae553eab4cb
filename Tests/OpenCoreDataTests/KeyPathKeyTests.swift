import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Issue #35, item 1: Swift key paths over `@Managed` properties as keys, for sort descriptors and
/// expressions (`NSSortDescriptor(keyPath:)`, `NSExpression(forKeyPath:)`, `NSSortDescriptor(_:)` of a
/// Foundation `SortDescriptor`), through to-one relationships.
@Suite struct KeyPathKeyTests {
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
        let context = try store.container(ZooModel.make()).viewContext
        ZooModel.seed(context)
        try context.save()
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
