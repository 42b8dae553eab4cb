import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// A transformable attribute holding a predicate.
final class RuleHolder: NSManagedObject {
    @Managed var rule: NSPredicate?
    @Managed var box: RuleBox?
}

/// An `NSCoding` class of the caller's own holding a predicate.
final class RuleBox: NSObject, NSCoding {
    let predicate: NSPredicate
    init(_ predicate: NSPredicate) { self.predicate = predicate }
    init?(coder: NSCoder) {
        guard let p = coder.decodeObject(forKey: "predicate") as? NSPredicate else { return nil }
        predicate = p
    }
    func encode(with coder: NSCoder) { coder.encode(predicate, forKey: "predicate") }
}

/// A transformer that allows predicates, as Darwin's `NSSecureUnarchiveFromDataTransformer` subclasses do.
final class PredicateTransformer: NSSecureUnarchiveFromDataTransformer, @unchecked Sendable {
    override class var allowedTopLevelClasses: [AnyClass] { super.allowedTopLevelClasses + [NSPredicate.self] }
}

/// Issue 32 B11 where predicates are stored as values: transformable attributes and
/// `NSSecureUnarchiveFromDataTransformer` archive them under Apple's class names (as a store written on an
/// Apple device holds them) and read those back through the checked unarchiver.
@Suite("Predicates in archived values")
struct PredicateValueArchiveTests {
    static func classNames(_ data: Data) throws -> Set<String> {
        let plist = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        return Set((plist["$objects"] as? [Any] ?? []).compactMap { ($0 as? [String: Any])?["$classname"] as? String })
    }

    static let predicate = NSPredicate(format: "name BEGINSWITH[c] 'Ко' AND price < 500")

    @Test func secureUnarchiveTransformerWritesAndReadsApplesClasses() throws {
        let data = try #require(PredicateTransformer().reverseTransformedValue(Self.predicate) as? Data)
        let names = try Self.classNames(data)
        #expect(names.isSuperset(of: ["NSCompoundPredicate", "NSComparisonPredicate", "NSSubstringPredicateOperator", "NSKeyPathExpression"]))
        #expect(!names.contains { $0.contains("OpenCoreData") })
        let decoded = try #require(PredicateTransformer().transformedValue(data) as? NSPredicate)
        #expect(decoded == Self.predicate)
        #expect(throws: PredicateEvaluationError.self) { try decoded.evaluate(validating: ["name": "Кофе", "price": 3]) }
        decoded.allowEvaluation()
        #expect(decoded.evaluate(with: ["name": "Кофе", "price": 3]))
        // The standard transformer does not allow predicates: nil, as Darwin's returns, never a trap.
        #expect(NSSecureUnarchiveFromDataTransformer().transformedValue(data) == nil)
        // A hostile archive (the compound made its own subpredicate: a cycle, on which Foundation's unarchiver
        // on Linux recurses without end) is refused by the checks before Foundation's unarchiver sees it.
        guard case .dictionary(var top) = try PropertyListTree(data), case .array(var objects)? = top["$objects"],
              case .uid(let root)? = top["$top"]?["root"], case .uid(let array)? = objects[root]["NSSubpredicates"],
              case .dictionary(var list) = objects[array] else { Issue.record("unexpected archive"); return }
        list["NS.objects"] = .array([.uid(root)])
        objects[array] = .dictionary(list)
        top["$objects"] = .array(objects)
        #expect(PredicateTransformer().transformedValue(PropertyListTree.dictionary(top).binaryData()) == nil)
        #expect(PredicateTransformer().transformedValue(Data("not an archive".utf8)) == nil)
    }

    @Test func transformableAttributesArchiveApplesClasses() throws {
        guard case .data(let data) = ManagedTransform.encode(Self.predicate, property: "rule") else {
            Issue.record("not data"); return
        }
        #expect(try Self.classNames(data).contains("NSCompoundPredicate"))
        #expect(data.range(of: Data("OpenCoreDataPredicates".utf8)) == nil)
        let decoded = try #require(ManagedTransform.decode(.data(data), as: NSPredicate?.self, property: "rule") ?? nil)
        #expect(decoded == Self.predicate)
        // A predicate inside an object of the caller's class: Apple's names there too, mapped back on reading.
        guard case .data(let boxed) = ManagedTransform.encode(RuleBox(Self.predicate), property: "box") else {
            Issue.record("not data"); return
        }
        #expect(try Self.classNames(boxed).isSuperset(of: ["NSCompoundPredicate", "NSComparisonPredicateOperator"]))
        #expect(boxed.range(of: Data("OpenCoreDataPredicates".utf8)) == nil)
        let box = try #require(ManagedTransform.decode(.data(boxed), as: RuleBox?.self, property: "box") ?? nil)
        #expect(box.predicate == Self.predicate)
    }

    @Test func transformableAttributesRoundTripThroughTheStore() throws {
        let holder = NSEntityDescription(name: "RuleHolder", managedObjectClassName: NSStringFromClass(RuleHolder.self), properties: [
            NSAttributeDescription(name: "rule", type: .transformableAttributeType, optional: true, defaultValue: nil),
            NSAttributeDescription(name: "box", type: .transformableAttributeType, optional: true, defaultValue: nil),
        ])
        let model = NSManagedObjectModel(entities: [holder])
        let file = TemporaryStore()
        defer { file.cleanUp() }
        let container = try file.container(model)
        try container.viewContext.performAndWait {
            let h = RuleHolder(context: container.viewContext)
            h.rule = Self.predicate
            h.box = RuleBox(Self.predicate)
            try container.viewContext.save()
        }
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let h = try #require(try reader.fetch(NSFetchRequest<RuleHolder>(entityName: "RuleHolder")).first)
            #expect(h.rule == Self.predicate)
            #expect(h.box?.predicate == Self.predicate)
        }
    }
}
