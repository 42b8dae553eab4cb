import Foundation
import Testing
@testable import OpenCoreDataPredicates
import class OpenCoreDataPredicates.NSPredicate
import class OpenCoreDataPredicates.NSComparisonPredicate
import class OpenCoreDataPredicates.NSCompoundPredicate
import class OpenCoreDataPredicates.NSExpression
import class OpenCoreDataPredicates.NSSortDescriptor
import OpenCoreDataTesting

/// Issue 32 B11: `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding:)` of a predicate,
/// expression or sort descriptor names Apple's classes, with Darwin's `$classes` and each operator's keys
/// (Tests/OpenCoreDataTests/AppleArchiveTests.swift compares them with archives Apple's Foundation wrote).
@Suite("Apple's class table in our archives")
struct AppleClassTableTests {
    /// Each object of an archive: its class name, its `$classes`, its keys (without `$class`).
    static func objects(_ data: Data) throws -> [(name: String, classes: [String], object: [String: PropertyListTree])] {
        guard case .dictionary(let top) = try PropertyListTree(data), case .array(let objects)? = top["$objects"] else {
            throw PredicateArchivingError("not an archive")
        }
        return objects.compactMap { entry in
            guard case .dictionary(var object) = entry, case .uid(let c)? = object["$class"],
                  case .string(let name)? = objects[c]["$classname"], case .array(let chain)? = objects[c]["$classes"] else { return nil }
            object["$class"] = nil
            return (name, chain.compactMap { if case .string(let s) = $0 { s } else { nil } }, object)
        }
    }

    static func archive(_ p: NSPredicate) throws -> Data {
        try NSKeyedArchiver.archivedData(withRootObject: p, requiringSecureCoding: true)
    }

    // Darwin's `_newOperatorWithType:modifier:options:` picks the operator's class by type; the string
    // operators keep their options as NSFlags, the substring ones add NSPosition.
    @Test(arguments: [
        ("a < 1", "NSComparisonPredicateOperator", ["NSModifier": 0, "NSOperatorType": 0, "NSVariant": 0, "NSOptions": 0]),
        ("a >=[c] 'x'", "NSComparisonPredicateOperator", ["NSModifier": 0, "NSOperatorType": 3, "NSVariant": 3, "NSOptions": 1]),
        ("a != 1", "NSEqualityPredicateOperator", ["NSModifier": 0, "NSOperatorType": 5, "NSNegate": 1, "NSOptions": 0]),
        ("ANY a ==[cd] 'x'", "NSEqualityPredicateOperator", ["NSModifier": 2, "NSOperatorType": 4, "NSNegate": 0, "NSOptions": 3]),
        ("a MATCHES[c] 'x'", "NSMatchingPredicateOperator", ["NSModifier": 0, "NSOperatorType": 6, "NSFlags": 1]),
        ("ALL a LIKE[cd] 'x*'", "NSLikePredicateOperator", ["NSModifier": 1, "NSOperatorType": 7, "NSFlags": 3]),
        ("a BEGINSWITH[n] 'x'", "NSSubstringPredicateOperator", ["NSModifier": 0, "NSOperatorType": 8, "NSFlags": 4, "NSPosition": 0]),
        ("a ENDSWITH 'x'", "NSSubstringPredicateOperator", ["NSModifier": 0, "NSOperatorType": 9, "NSFlags": 0, "NSPosition": 1]),
        ("a IN {1, 2}", "NSInPredicateOperator", ["NSModifier": 0, "NSOperatorType": 10, "NSFlags": 0]),
        ("a CONTAINS[d] 'x'", "NSInPredicateOperator", ["NSModifier": 0, "NSOperatorType": 99, "NSFlags": 2]),
        ("a BETWEEN {1, 2}", "NSBetweenPredicateOperator", ["NSModifier": 0, "NSOperatorType": 100]),
    ])
    func operatorsAreApplesClasses(_ format: String, _ cls: String, _ keys: [String: Int]) throws {
        let p = NSPredicate(format: format)
        let data = try Self.archive(p)
        let op = try #require(try Self.objects(data).first { $0.object["NSOperatorType"] != nil })
        #expect(op.name == cls)
        #expect(op.classes == AppleClassTable.chain(cls))
        var found: [String: Int] = [:]
        for (key, value) in op.object {
            switch value {
            case .integer(let i): found[key] = Int(i)
            case .bool(let b): found[key] = b ? 1 : 0
            default: Issue.record("\(key) is not a scalar")
            }
        }
        #expect(found == keys, "\(format)")
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPredicate.self, from: data))
        #expect(decoded == p, "\(format) → \(decoded.predicateFormat)")
    }

    @Test func theChainsAreDarwins() {
        #expect(AppleClassTable.chain("NSLikePredicateOperator") == ["NSLikePredicateOperator", "NSMatchingPredicateOperator",
                                                                    "NSStringPredicateOperator", "NSPredicateOperator", "NSObject"])
        #expect(AppleClassTable.chain("NSSubstringPredicateOperator") == ["NSSubstringPredicateOperator", "NSStringPredicateOperator",
                                                                         "NSPredicateOperator", "NSObject"])
        #expect(AppleClassTable.chain("NSKeyPathExpression") == ["NSKeyPathExpression", "NSFunctionExpression", "NSExpression", "NSObject"])
        #expect(AppleClassTable.chain("NSTruePredicate") == ["NSTruePredicate", "NSPredicate", "NSObject"])
        #expect(AppleClassTable.chain("NSSortDescriptor") == ["NSSortDescriptor", "NSObject"])
    }

    /// Every kind of predicate and expression is archived under Darwin's class, none under ours.
    @Test func everyKindIsApplesClass() throws {
        let cases: [(String, Set<String>)] = [
            ("TRUEPREDICATE", ["NSTruePredicate"]), ("FALSEPREDICATE", ["NSFalsePredicate"]),
            ("NOT (a == 1 OR b == 2)", ["NSCompoundPredicate", "NSComparisonPredicate", "NSKeyPathExpression",
                                        "NSKeyPathSpecifierExpression", "NSSelfExpression", "NSConstantValueExpression"]),
            ("$v.name == SELF", ["NSVariableExpression", "NSKeyPathExpression", "NSSelfExpression"]),
            ("sum:(items.price) > 1", ["NSFunctionExpression", "NSConstantValueExpression"]),
            ("FUNCTION(name, 'uppercaseString') == 'X'", ["NSFunctionExpression"]),
            ("(a UNION b) CONTAINS 1", ["NSSetExpression"]), ("(a INTERSECT b) CONTAINS 1", ["NSSetExpression"]),
            ("(a MINUS b) CONTAINS 1", ["NSSetExpression"]),
            ("SUBQUERY(items, $i, $i.price > 3).@count > 0", ["NSSubqueryExpression", "NSVariableExpression"]),
            ("a IN {1, b}", ["NSAggregateExpression"]), ("ANYKEY == 1", ["NSAnyKeyExpression"]),
            ("TERNARY(a > 1, 'y', 'n') == 'y'", ["NSTernaryExpression"]),
        ]
        for (format, classes) in cases {
            let p = NSPredicate(format: format)
            let data = try Self.archive(p)
            #expect(data.range(of: Data("OpenCoreDataPredicates".utf8)) == nil, "\(format)")
            let objects = try Self.objects(data)
            let names = Set(objects.map(\.name))
            #expect(names.isSuperset(of: classes), "\(format): \(names.sorted())")
            for o in objects where AppleClassTable.superclass[o.name] != nil {
                #expect(o.classes == AppleClassTable.chain(o.name), "\(o.name): \(o.classes)")
            }
            // One class dictionary per class, as Darwin writes them.
            guard case .array(let all)? = try PropertyListTree(data)["$objects"] else { continue }
            let classEntries = all.compactMap { $0["$classname"] }
            #expect(classEntries.count == Set(classEntries.map { "\($0)" }).count, "\(format)")
            let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPredicate.self, from: data))
            #expect(decoded == p, "\(format) → \(decoded.predicateFormat)")
        }
        let e = NSExpression(forFunction: "add:to:", arguments: [NSExpression(forKeyPath: "a"), NSExpression(forConstantValue: 2)])
        let expressionData = try NSKeyedArchiver.archivedData(withRootObject: e, requiringSecureCoding: true)
        #expect(try Self.objects(expressionData).first?.name == "NSFunctionExpression")
        #expect(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSExpression.self, from: expressionData) == e)
        let s = NSSortDescriptor(key: "name", ascending: false, selector: Selector("localizedStandardCompare:"))
        let sortData = try NSKeyedArchiver.archivedData(withRootObject: s, requiringSecureCoding: true)
        #expect(try Self.objects(sortData).map(\.classes) == [["NSSortDescriptor", "NSObject"]])
        #expect(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSSortDescriptor.self, from: sortData) == s)
    }

    /// The binary writer's output is what Foundation's parser reads back, value for value.
    @Test func theWriterRoundTrips() throws {
        let tree = PropertyListTree.dictionary([
            "ascii": .string("plain"), "unicode": .string("Колбаса «Молочная» 😀"), "empty": .string(""),
            "long": .string(String(repeating: "x", count: 300)), "ints": .array([.integer(0), .integer(255), .integer(256),
                .integer(70_000), .integer(5_000_000_000), .integer(-1), .integer(Int64.min), .integer(Int64.max)]),
            "reals": .array([.real(0.1), .real(-0.0), .real(1e300)]), "bools": .array([.bool(true), .bool(false)]),
            "date": .date(Date(timeIntervalSinceReferenceDate: 12.5)), "data": .data(Data([0, 1, 2, 255])),
            "uids": .array([.uid(0), .uid(255), .uid(256), .uid(70_000)]),
            "many": .array((0..<40).map { .integer(Int64($0)) }), "nested": .dictionary(["a": .array([])]),
        ])
        #expect(try PropertyListTree(tree.binaryData()) == tree)
        // Around the sizes where references and offsets take another byte (255, 256, 257 objects …).
        for count in [253, 254, 255, 256, 65_534, 65_535, 65_536] {
            let array = PropertyListTree.array((0..<count).map { .integer(Int64($0 % 3)) })
            #expect(try PropertyListTree(array.binaryData()) == array, "\(count + 1) objects")
        }
    }

    /// Whether the tree holds numbers equal as `NSNumber`s but of different kinds or forms (`0`, `FALSE`,
    /// `-0.0`): swift-corelibs-foundation's archiver shares equal objects (Darwin's, identical ones), so
    /// those come back as one of them (docs/Predicates.md, "Archiving").
    static func sharesEqualNumbers(_ tree: PredicateNode) -> Bool {
        var numbers: [Value] = []
        func collect(_ any: Any) {
            if let v = any as? Value {
                switch v {
                case .bool, .int, .double: numbers.append(v)
                default: break
                }
            }
            for child in Mirror(reflecting: any).children { collect(child.value) }
        }
        collect(tree)
        return numbers.contains { a in numbers.contains { b in a != b && ValueComparison.equal(a, b) } }
    }

    /// Seeded random predicates (the generator of RandomPredicateTests, with custom selectors among the
    /// comparisons) archive under Apple's names and decode to the same predicate.
    @Test func seededRandomPredicatesRoundTrip() throws {
        let cases = 1_500 * (Int(ProcessInfo.processInfo.environment["OCD_RANDOM_SCALE"] ?? "") ?? 1)
        var excused = 0
        defer { #expect(excused < cases / 20, "\(excused) of \(cases) differ by shared numbers only") }
        for i in 0..<cases {
            let seed = 0xB11 &* 1_000_003 &+ UInt64(i)
            var generator = RandomPredicateGenerator(seed: seed)
            var tree = generator.predicate()
            if generator.rng.chance(0.2), case .comparison(var c) = tree {
                c.op = .customSelector
                c.options = []
                c.selector = generator.rng.pick(["hasPrefix:", "isEqual:", "isAnagramOf:"])
                tree = .comparison(c)
            }
            let p = NSPredicate.wrap(tree)
            let data: Data
            do { data = try Self.archive(p) } catch {
                Issue.record("seed \(seed): \(PredicatePrinter.format(tree)) does not archive: \(error)")
                continue
            }
            #expect(data.range(of: Data("OpenCoreDataPredicates".utf8)) == nil, "seed \(seed)")
            do {
                let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPredicate.self, from: data))
                if decoded.node != p.node, Self.sharesEqualNumbers(tree) {
                    excused += 1
                } else if decoded.node != p.node {
                    Issue.record("seed \(seed): \(PredicatePrinter.format(tree)) came back as \(decoded.predicateFormat)")
                }
            } catch {
                Issue.record("seed \(seed): \(PredicatePrinter.format(tree)) does not decode: \(error)")
            }
        }
    }
}
