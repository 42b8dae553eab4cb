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
}
