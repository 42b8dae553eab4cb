import Foundation
import Testing
@testable import OpenCoreDataPredicates
import OpenCoreDataTesting
import class OpenCoreDataPredicates.NSPredicate
import class OpenCoreDataPredicates.NSComparisonPredicate

/// The compiled form of common predicates (plain keys against constants, `AND`/`OR`/`NOT`) answers exactly
/// as the general evaluator does. A failure prints its seed.
@Suite("Compiled predicates")
struct CompiledPredicateTests {
    @Test func commonShapesCompileAndOthersDoNot() throws {
        func compiles(_ format: String) throws -> Bool {
            CompiledPredicate.compile(try NSPredicate(validatingFormat: format).node) != nil
        }
        #expect(try compiles("price < 500"))
        #expect(try compiles("500 >= price AND (name == 'a' OR NOT flag == YES)"))
        #expect(try compiles("TRUEPREDICATE"))
        #expect(try !compiles("name ==[c] 'a'"))
        #expect(try !compiles("owner.name == 'Ann'"))
        #expect(try !compiles("price IN {1, 2}"))
        #expect(try !compiles("price < $LIMIT"))
        #expect(try !compiles("ANY tags == 'red'"))
        #expect(try !compiles("price < 5 AND name BEGINSWITH 'a'"))
    }

    /// On dictionaries the compiled form always answers (nothing is handed over), and answers the same.
    @Test func compiledAndGeneralEvaluationAgree() throws {
        let keys = ["name", "price", "weight", "count", "flag", "nothing", "created", "missing"]
        for seed in UInt64(0)..<4_000 {
            var rng = SeededRandom(seed: seed)
            var values = RandomPredicateGenerator(seed: seed &+ 77)
            // Mostly from small pools, so that equal values meet often.
            func value() -> Value {
                switch rng.int(0...6) {
                case 0, 1: return .int(Int64(rng.int(-2...2)))
                case 2: return .double(Double(rng.int(-4...4)) / 2)
                case 3: return .string(rng.pick(["", "a", "b", "é"]))
                case 4: return rng.chance(0.5) ? .bool(rng.chance(0.5)) : .null
                default: return values.constant()
                }
            }
            func tree(_ depth: Int) -> PredicateNode {
                switch depth > 2 ? 3 : rng.int(0...6) {
                case 0: return .and([tree(depth + 1), tree(depth + 1)])
                case 1: return .or([tree(depth + 1), tree(depth + 1)])
                case 2: return .not(tree(depth + 1))
                default:
                    let op = rng.pick([NSComparisonPredicate.Operator.lessThan, .lessThanOrEqualTo, .greaterThan,
                                       .greaterThanOrEqualTo, .equalTo, .notEqualTo])
                    let key = ExpressionNode.keyPath(rng.pick(keys)), constant = ExpressionNode.constant(value())
                    let (left, right) = rng.chance(0.5) ? (key, constant) : (constant, key)
                    return .comparison(ComparisonNode(left, op, right, modifier: .direct, options: []))
                }
            }
            let node = tree(0)
            var object = sample
            for key in keys.dropLast() where rng.chance(0.5) { object[key] = value().anyValue ?? NSNull() }
            let compiled = try #require(CompiledPredicate.compile(node), "seed \(seed): \(PredicatePrinter.format(node))")
            var evaluator = Evaluator()
            let expected = Result { try evaluator.evaluate(node, with: object) }
            switch (compiled.evaluate(object), expected) {
            case (let fast?, .success(let slow)) where fast == slow: break
            default: Issue.record("seed \(seed): \(PredicatePrinter.format(node)) compiled differs on \(object)")
            }
        }
    }

    /// A dictionary of at most eight entries is searched by comparing keys instead of hashing: it must
    /// find what hashing finds — canonically equivalent keys (`é` composed or not, the Kelvin sign and
    /// `K`), keys of equal length, long keys made at run time — and read every kind of value as the
    /// general evaluator does. Sizes around the limit take both ways.
    @Test func smallDictionariesFindTheKeysHashingFinds() throws {
        let keys = ["price", "count", "é", "e\u{301}x", "\u{212A}ey", "Key", String(repeating: "long key ", count: 3), "p"]
        let spelled = ["price", "count", "e\u{301}", "éx", "Key", "\u{212A}ey", String(repeating: "long key ", count: 3), "p"]
        for seed in UInt64(0)..<2_000 {
            var rng = SeededRandom(seed: seed)
            func value() -> Any {
                switch rng.int(0...8) {
                case 0: return rng.int(-3...3)
                case 1: return Int32(rng.int(-3...3))
                case 2: return Int64(rng.int(-3...3))
                case 3: return Double(rng.int(-6...6)) / 2
                case 4: return NSNumber(value: rng.int(-3...3))
                case 5: return Optional(rng.int(-3...3)) as Any
                case 6: return NSNull()
                case 7: return rng.pick(["", "a", "2"])
                default: return UInt8(rng.int(0...3))
                }
            }
            var object: [String: Any] = [:]
            for i in 0..<rng.int(0...12) { object[rng.chance(0.7) ? rng.pick(keys) : "filler\(i)"] = value() }
            let op = rng.pick([NSComparisonPredicate.Operator.lessThan, .lessThanOrEqualTo, .greaterThan,
                               .greaterThanOrEqualTo, .equalTo, .notEqualTo])
            let constant: Value = rng.chance(0.8) ? .int(Int64(rng.int(-3...3))) : .double(0.5)
            let key = ExpressionNode.keyPath(rng.pick(spelled)), c = ExpressionNode.constant(constant)
            let (left, right) = rng.chance(0.5) ? (key, c) : (c, key)
            let node = PredicateNode.comparison(ComparisonNode(left, op, right, modifier: .direct, options: []))
            let compiled = try #require(CompiledPredicate.compile(node))
            var evaluator = Evaluator()
            let expected = try evaluator.evaluate(node, with: object)
            #expect(compiled.evaluate(dictionary: object) == expected, "seed \(seed): \(PredicatePrinter.format(node)) on \(object)")
            #expect(NSPredicate(node: node).evaluate(with: object) == expected, "seed \(seed): typed overload")
        }
    }

    /// An object passed as `Any` is recognised as a value reader by its class after the first one
    /// (``ReaderClass``): objects of other kinds in between — dictionaries, other classes, `nil` — still
    /// take their own way, and a reader class seen again is recognised again.
    @Test func readerClassMemoryDoesNotCaptureOtherObjects() throws {
        final class OtherBox: PredicateValueReading {
            let price: Double
            init(_ price: Double) { self.price = price }
            var predicateLayout: Int { 1_000_002 }
            func predicateSlot(forKey key: String) throws -> Int { 3 }
            func predicateValue(atSlot slot: Int) -> Value { .double(price) }
            func predicateInteger(atSlot slot: Int) -> Int64? { nil }
        }
        final class Plain: KeyValueCoding {
            func value(forKey key: String) -> Any? { key == "price" ? 1 : nil }
        }
        let predicate = NSPredicate(format: "price < 5")
        let objects: [(Any?, Bool)] = [(Box(1), true), (Box(9), false), (["price": 2] as [String: Any], true), (Box(3), true),
                                       (OtherBox(7.5), false), (OtherBox(4.5), true), (Box(7), false), (Plain(), true),
                                       (["price": 8] as [String: Any], false), (nil, false), (Box(4), true)]
        for round in 0..<3 {
            for (i, (object, expected)) in objects.enumerated() {
                #expect(predicate.evaluate(with: object) == expected, "round \(round), object \(i)")
            }
        }
    }

    /// The remembered reader class reads the object out of the `Any` directly, without a cast: that must
    /// hold however the object was wrapped — as itself, as `AnyObject`, as a class-bound or an opaque
    /// protocol existential, inside an `Optional` (a different type: not a reader) — and integers in a dictionary are read the same
    /// way only when their type is exactly `Int`, `Int64` or `Int32`.
    @Test func readersAndIntegersPassedAsAnyAreReadWhereverTheyAreWrapped() throws {
        let predicate = NSPredicate(format: "price < 5")
        for round in 0..<3 {
            for price in [Int64(1), 9, -4, 5] {
                let box = Box(price), expected = price < 5
                let wrapped: [(String, Any?)] = [("itself", box), ("AnyObject", box as AnyObject),
                                                 ("existential", box as PredicateValueReading),
                                                 ("opaque existential", box as KeyValueCoding), ("Optional", Optional(box) as Any)]
                for (how, object) in wrapped {
                    #expect(predicate.evaluate(with: object) == expected, "round \(round), price \(price), \(how)")
                }
                let numbers: [(String, Any)] = [("Int", Int(price)), ("Int64", price), ("Int32", Int32(price)), ("Int16", Int16(price)),
                                                ("UInt8", UInt8(truncatingIfNeeded: price)), ("NSNumber", NSNumber(value: price)), ("Double", Double(price))]
                for (type, number) in numbers {
                    var evaluator = Evaluator()
                    let dictionary: [String: Any] = ["price": number]
                    let general = try evaluator.evaluate(PredicateParser.parsePredicate("price < 5", arguments: []), with: dictionary)
                    #expect(predicate.evaluate(with: dictionary) == general, "price \(price) as \(type)")
                    #expect(predicate.evaluate(with: dictionary as Any) == general, "price \(price) as \(type), as Any")
                }
            }
        }
    }
}

/// A value reader with one integer key, `price`, in slot 0 (the compiled predicates' tests pass it as
/// itself, as `Any` and wrapped in other ways).
private final class Box: PredicateValueReading, KeyValueCoding {
    let price: Int64
    init(_ price: Int64) { self.price = price }
    var predicateLayout: Int { 1_000_001 }
    func predicateSlot(forKey key: String) throws -> Int {
        guard key == "price" else { throw PredicateEvaluationError(.notKeyValueCodingCompliant(type: "Box", key: key)) }
        return 0
    }
    func predicateValue(atSlot slot: Int) -> Value { .int(price) }
    func predicateInteger(atSlot slot: Int) -> Int64? { price }
    func value(forKey key: String) -> Any? { key == "price" ? price : nil }
}
