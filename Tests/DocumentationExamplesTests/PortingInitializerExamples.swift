import Foundation
import OpenCoreData
import Testing

// doc: porting-required-after
final class LabelledContainer: NSPersistentContainer {
    let label: String

    init(name: String, managedObjectModel model: NSManagedObjectModel, label: String) {
        self.label = label
        super.init(name: name, managedObjectModel: model)
    }

    required init(name: String, managedObjectModel model: NSManagedObjectModel) {
        self.label = "default"
        super.init(name: name, managedObjectModel: model)
    }
}
// end-doc

// doc: porting-generic-archive-after
func archive<T: NSPredicate>(_ value: T) throws -> Data {
    try NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
}

func unarchive<T: NSPredicate>(_ type: T.Type, from data: Data) throws -> T? {
    try NSKeyedUnarchiver.unarchivedObject(ofClass: type, from: data)
}
// end-doc

/// The same generic functions as Core Data code writes them (CoreDataOriginals.swift): on Linux they reach
/// Foundation's own overloads.
func archiveAnyCoding<T: NSObject & NSSecureCoding>(_ value: T) throws -> Data {
    try NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
}

func unarchiveAnyCoding<T: NSObject & NSSecureCoding>(_ type: T.Type, from data: Data) throws -> T? {
    try NSKeyedUnarchiver.unarchivedObject(ofClass: type, from: data)
}

/// The porting article's "Initializers reached through Self" and "Archiving predicates in generic code".
@Suite("Documentation: Porting, initializers and generic archiving")
struct PortingInitializerExamples {
    @Test func aSubclassWithAnInitializerOfItsOwnDeclaresTheRequiredOne() {
        let model = NSManagedObjectModel()
        let labelled = LabelledContainer(name: "Library", managedObjectModel: model, label: "tests")
        let plain = LabelledContainer(name: "Library", managedObjectModel: model)
        #expect(labelled.label == "tests" && plain.label == "default")
        func make<C: NSPersistentContainer>(_ type: C.Type) -> C { type.init(name: "Made", managedObjectModel: model) }
        #expect(make(LabelledContainer.self).label == "default", "a metatype reaches the required initializer")
    }

    @Test func genericArchivingConstrainedToNSPredicateWritesApplesClasses() throws {
        let predicate = NSPredicate(format: "title BEGINSWITH %@ AND pages > 100", "The")
        let data = try archive(predicate)
        #expect(data.range(of: Data("NSComparisonPredicate".utf8)) != nil)
        #expect(data.range(of: Data("OpenCoreDataPredicates".utf8)) == nil, "Apple's class names only")
        let decoded = try #require(try unarchive(NSPredicate.self, from: data))
        #expect(decoded.predicateFormat == predicate.predicateFormat)
        let comparison = try #require(NSPredicate(format: "pages > 100") as? NSComparisonPredicate)
        let decodedComparison = try unarchive(NSComparisonPredicate.self, from: try archive(comparison))
        #expect(decodedComparison?.predicateFormat == "pages > 100")
    }

    @Test func foundationsGenericPathNamesThisModulesClassesAndReadsThemBack() throws {
        let predicate = NSPredicate(format: "title BEGINSWITH %@", "The")
        let data = try archiveAnyCoding(predicate)
        #expect(data.range(of: Data("OpenCoreDataPredicates".utf8)) != nil, "Foundation's overload: this module's names")
        let decoded = try #require(try unarchiveAnyCoding(NSPredicate.self, from: data))
        #expect(decoded.predicateFormat == predicate.predicateFormat)
    }
}
