import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// The SQL of thousands of random predicates (the differential test's generator, and random trees that
/// reach every construct the translator knows, and many it refuses) hashed as one: the split of the
/// predicate translator into a dialect-neutral tree and a SQLite printer kept every text, argument list
/// and error message byte for byte. A change that alters generated SQL changes the hash; if it is meant,
/// check the new SQL by hand and record the new hash.
@Suite("Predicate SQL unchanged")
struct PredicateTranslationGoldenTests {
    /// The differential test's model, plus a UUID, a binary, a URI and a transient attribute.
    static func makeModel() -> NSManagedObjectModel {
        let transient = NSAttributeDescription(name: "tr", type: .stringAttributeType)
        transient.isTransient = true
        return DifferentialTests.makeModel(adding: [
            NSAttributeDescription(name: "u", type: .UUIDAttributeType),
            NSAttributeDescription(name: "x", type: .binaryDataAttributeType),
            NSAttributeDescription(name: "w", type: .URIAttributeType),
            transient,
        ])
    }

    /// Random predicate trees over ``makeModel()``: every comparison operator, modifier and option, and
    /// constants, key paths (known, unknown, transient, through relationships), functions, aggregates,
    /// `TERNARY`, variables and the other expressions.
    struct TreeGenerator {
        var rng: SeededRandom
        static let keys = ["s", "t", "i", "j", "d", "b", "dt", "u", "x", "w", "tr", "nope", "s.length", "@count"]
        static let functions = ["add:to:", "from:subtract:", "multiply:by:", "divide:by:", "abs:", "uppercase:",
                                "lowercase:", "length:", "sqrt:", "random", "modulus:by:", "noSuch:"]

        mutating func constant() -> Value {
            switch rng.int(0...12) {
            case 0: return .null
            case 1: return .bool(rng.chance(0.5))
            case 2, 3: return .int(Int64(rng.int(-5...5)))
            case 4: return .double(Double(rng.int(-20...20)) / 4)
            case 5, 6: return .string(rng.pick(DifferentialTests.strings))
            case 7: return .date(Date(timeIntervalSinceReferenceDate: Double(rng.int(0...20)) * 100))
            case 8: return .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5\(rng.int(0...9))")!)
            case 9: return .array((0..<rng.int(0...3)).map { _ in constant() })
            case 10: return .set([.string(rng.pick(["a", "b"]))])
            case 11: return .object(AnyHashable(OpaqueArgument(tag: rng.int(0...2))))
            default: return .string(rng.pick(DifferentialTests.patterns))
            }
        }

        mutating func expression(depth: Int) -> ExpressionNode {
            switch depth > 2 ? rng.int(0...5) : rng.int(0...13) {
            case 0, 1, 2: return .constant(constant())
            case 3, 4, 5: return .keyPath(rng.pick(Self.keys))
            case 6, 7:
                let name = rng.pick(Self.functions)
                let arity = name == "random" ? 0 : name.filter { $0 == ":" }.count
                return .function(name, (0..<arity).map { _ in expression(depth: depth + 1) })
            case 8: return .aggregate((0..<rng.int(0...3)).map { _ in expression(depth: depth + 1) })
            case 9: return .conditional(predicate(depth: depth + 1), expression(depth: depth + 1), expression(depth: depth + 1))
            case 10: return rng.pick([.evaluatedObject, .variable("v"), .anyKey, .symbol("FIRST"),
                                      .member(.variable("v"), "s")])
            case 11: return .subquery(.keyPath("s"), "x", .constant(true))
            default: return .keyPath(rng.pick(["s", "i", "d", "dt"]))
            }
        }

        mutating func comparison(depth: Int) -> ComparisonNode {
            let op = rng.pick(NSComparisonPredicate.Operator.allCases)
            var options: NSComparisonPredicate.Options = []
            if rng.chance(0.3) { options.insert(.caseInsensitive) }
            if rng.chance(0.3) { options.insert(.diacriticInsensitive) }
            if rng.chance(0.1) { options.insert(.normalized) }
            let modifier: NSComparisonPredicate.Modifier = rng.chance(0.9) ? .direct : rng.chance(0.5) ? .any : .all
            let left = expression(depth: depth + 1)
            let right = op == .between && rng.chance(0.8)
                ? .aggregate([expression(depth: depth + 2), expression(depth: depth + 2)]) : expression(depth: depth + 1)
            return ComparisonNode(left, op, right, modifier: modifier, options: options)
        }

        /// An attribute compared with a constant or a function of an attribute (long junctions of these).
        mutating func simpleComparison() -> PredicateNode {
            let key = ExpressionNode.keyPath(rng.pick(["s", "t", "i", "j", "d", "b", "dt"]))
            let left: ExpressionNode = switch rng.int(0...5) {
            case 0: .function(rng.pick(["uppercase:", "lowercase:", "length:"]), [.keyPath("s")])
            case 1: rng.chance(0.3) ? .function("abs:", [.keyPath("i")])
                                    : .function(rng.pick(["add:to:", "divide:by:"]), [.keyPath("i"), .constant(.int(2))])
            case 2: .conditional(.comparison(ComparisonNode(.keyPath("b"), .equalTo, .constant(.bool(true)))), key, .constant(rng.chance(0.5) ? .null : constant()))
            default: key
            }
            let op = rng.pick([NSComparisonPredicate.Operator.equalTo, .notEqualTo, .lessThan, .greaterThanOrEqualTo, .in, .beginsWith, .like])
            let options: NSComparisonPredicate.Options = rng.pick([[], [.caseInsensitive], [.caseInsensitive, .diacriticInsensitive]])
            var right = constant()
            if op != .in, right.collectionElements != nil { right = .string("a") }  // a collection as a value throws
            return .comparison(ComparisonNode(left, op, .constant(right), options: options))
        }

        mutating func predicate(depth: Int = 0) -> PredicateNode {
            switch depth > 2 ? rng.int(0...4) : rng.int(0...10) {
            case 0: return .constant(rng.chance(0.5))
            case 5: return .and((0..<rng.int(0...3)).map { _ in predicate(depth: depth + 1) })
            case 6: return .or((0..<rng.int(0...3)).map { _ in predicate(depth: depth + 1) })
            case 7: return .not(predicate(depth: depth + 1))
            case 8: return rng.chance(0.5) ? .and((0..<rng.int(15...40)).map { _ in simpleComparison() })
                                           : .or((0..<rng.int(15...40)).map { _ in simpleComparison() })
            case 9: return simpleComparison()
            default: return .comparison(comparison(depth: depth))
            }
        }
    }

    /// One line per predicate: its SQL and arguments, or the error it throws.
    static func translate(_ node: PredicateNode, _ layout: EntityLayout) -> String {
        do {
            var translator = PredicateTranslator(layout: layout, entityName: "Sample")
            let condition = try translator.condition(node)
            var context = translator.context
            let sql = SQLitePrinter.sql(condition, &context)
            return sql + " -- " + context.arguments.map { "\($0)" }.joined(separator: ", ")
        } catch {
            return "error: \(error)"
        }
    }

    /// The predicates: 2,000 of the differential test's (parsed from format strings with arguments) and
    /// 4,000 random trees.
    static func predicates() throws -> [PredicateNode] {
        var nodes: [PredicateNode] = []
        for i in 0..<2000 {
            var generator = DifferentialTests.Generator(rng: SeededRandom(seed: 77 &* UInt64(i) &+ 5), extended: false)
            var args: [Any] = []
            let format = generator.predicate(depth: 0, &args)
            nodes.append(try NSPredicate(validatingFormat: format, argumentArray: args).runnableNode())
        }
        var trees = TreeGenerator(rng: SeededRandom(seed: 2024))
        for _ in 0..<4000 { nodes.append(trees.predicate()) }
        return nodes
    }

    /// FNV-1a, 64 bits (stable across runs and platforms, unlike `Hasher`).
    static func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    /// Recorded when the translator was split (commit d4848f0 compared the new code with the old one on
    /// every predicate here, line by line, before the old one was deleted); recorded again when
    /// relationships reached the translator: the 770 lines that changed were all errors of constructs that
    /// waited for relationships (`ANY`/`ALL`, `SUBQUERY`, `SELF`, `s.length`, `@count`, `$v.s`); 28 of
    /// them, comparisons with `SELF`, became SQL that answers as memory does (checked by hand); the
    /// others are now errors that say what the construct needs. Recorded again when Foundation's keys of
    /// strings reached SQL (issue 17): the 87 lines that changed all read `s.length`, `uppercaseString` or
    /// `lowercaseString`; 47 errors became SQL (`ocd_utf16_length(t0.ZS)`, …) and 40 errors now fail
    /// further on, at what the key's value meets (the generator's stream itself is unchanged:
    /// `extended: false`). Recorded again when `length:` came to count UTF-16 units as `NSString` does
    /// (issue 17): the 32 lines that changed differ only in `ocd_length(` becoming `ocd_utf16_length(`.
    /// Recorded again when custom selector comparisons came (issue 32 B7): the 204 random comparisons
    /// with operator `.customSelector` were errors before and are errors still (2,193 errors, as before),
    /// now all "the custom selector … in … (custom selector comparisons are evaluated in memory only …)".
    static let recordedHash: UInt64 = 0x9c3d_7aca_4b18_1c9f

    @Test func sameSQLAsBeforeTheSplit() throws {
        let model = Self.makeModel()
        _ = NSPersistentStoreCoordinator(managedObjectModel: model)
        let layout = try #require(model.entitiesByName["Sample"]?.layout)
        let lines = try Self.predicates().map { Self.translate($0, layout) }
        // To check a change by hand: OCD_GOLDEN_DUMP=/tmp/x writes the lines (and /tmp/x.predicates the
        // predicates) before and after; diff them.
        if let dump = ProcessInfo.processInfo.environment["OCD_GOLDEN_DUMP"] {
            try lines.joined(separator: "\n").write(toFile: dump, atomically: true, encoding: .utf8)
            try Self.predicates().map { PredicatePrinter.format($0) }.joined(separator: "\n")
                .write(toFile: dump + ".predicates", atomically: true, encoding: .utf8)
        }
        #expect(lines.count == 6000)
        #expect(lines.filter { $0.hasPrefix("error: ") }.count == 2193)
        let hash = Self.fnv1a(lines.joined(separator: "\n"))
        #expect(hash == Self.recordedHash, "SQL changed: hash \(String(hash, radix: 16))")
    }
}
