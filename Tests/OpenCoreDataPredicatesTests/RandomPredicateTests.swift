import Foundation
import Testing
@testable import OpenCoreDataPredicates
import class OpenCoreDataPredicates.NSPredicate
import class OpenCoreDataPredicates.NSComparisonPredicate

/// Seeded random tests. Each chunk runs `casesPerChunk` seeds; a failure prints its seed, and
/// `OCD_RANDOM_SCALE=10 swift test` runs ten times as many.
@Suite("Seeded random predicates")
struct RandomPredicateTests {
    static let scale = Int(ProcessInfo.processInfo.environment["OCD_RANDOM_SCALE"] ?? "") ?? 1
    static let casesPerChunk = 6_000 * scale
    static let chunks: [UInt64] = Array(0..<10)

    /// print → parse gives the same tree, and printing that gives the same text.
    @Test(arguments: chunks)
    func roundTrip(_ chunk: UInt64) throws {
        for i in 0..<Self.casesPerChunk {
            let seed = chunk &* 1_000_003 &+ UInt64(i)
            var generator = RandomPredicateGenerator(seed: seed)
            let tree = generator.predicate()
            let text = PredicatePrinter.format(tree)
            let parsed: PredicateNode
            do {
                parsed = try PredicateParser.parsePredicate(text, arguments: [])
            } catch {
                Issue.record("seed \(seed): printed form does not parse: \(error)")
                continue
            }
            if parsed != tree {
                Issue.record("seed \(seed): round trip changed the tree\n  printed: \(text)\n  reprint: \(PredicatePrinter.format(parsed))")
            }
        }
    }

    /// Mutated format strings never crash: each either throws a positioned error or parses into a
    /// predicate that itself round-trips and evaluates (or throws) without trapping.
    @Test(arguments: chunks)
    func mutationsThrowOrRoundTrip(_ chunk: UInt64) throws {
        var parsedCount = 0
        for i in 0..<Self.casesPerChunk {
            let seed = 0xC0FFEE &+ chunk &* 1_000_003 &+ UInt64(i)
            var generator = RandomPredicateGenerator(seed: seed)
            let text = generator.mutate(PredicatePrinter.format(generator.predicate()))
            do {
                let predicate = try NSPredicate(validatingFormat: text)
                parsedCount += 1
                let again = try NSPredicate(validatingFormat: predicate.predicateFormat)
                if again != predicate {
                    Issue.record("seed \(seed): \(text) parsed but its print \(predicate.predicateFormat) does not round-trip")
                }
                _ = try? predicate.evaluate(validating: sample, substitutionVariables: ["X": 1, "price": 2, "v1": "a"])
            } catch let error as PredicateFormatError {
                let length = text.unicodeScalars.count
                if error.offset < 0 || error.offset > length || !error.description.hasSuffix("^") {
                    Issue.record("seed \(seed): bad diagnostic for \(text): \(error)")
                }
            } catch {
                Issue.record("seed \(seed): unexpected error type \(type(of: error)) for \(text)")
            }
        }
        #expect(parsedCount > 0, "some mutations should still parse")
    }

    /// Random trees evaluate without trapping, and the evaluation of a tree equals that of its reparse.
    @Test(arguments: [UInt64(0), 1])
    func evaluationIsStableAcrossRoundTrip(_ chunk: UInt64) throws {
        for i in 0..<(Self.casesPerChunk / 2) {
            let seed = 0xE7A1 &+ chunk &* 1_000_003 &+ UInt64(i)
            var generator = RandomPredicateGenerator(seed: seed)
            let tree = generator.predicate()
            if PredicatePrinter.format(tree).contains("now()") || PredicatePrinter.format(tree).contains("random") { continue }
            let bindings: [String: Value] = ["X": .int(1), "price": .int(2), "v1": .string("a")]
            var e1 = Evaluator(bindings: bindings), e2 = Evaluator(bindings: bindings)
            let reparsed = try PredicateParser.parsePredicate(PredicatePrinter.format(tree), arguments: [])
            let a = Result { try e1.evaluate(tree, sample) }
            let b = Result { try e2.evaluate(reparsed, sample) }
            switch (a, b) {
            case (.success(let x), .success(let y)) where x == y: break
            case (.failure, .failure): break
            default: Issue.record("seed \(seed): \(PredicatePrinter.format(tree)) evaluates differently after a round trip")
            }
        }
    }
}
