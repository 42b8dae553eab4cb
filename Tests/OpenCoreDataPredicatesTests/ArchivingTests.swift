import Foundation
import Testing
@testable import OpenCoreDataPredicates
import class OpenCoreDataPredicates.NSPredicate
import class OpenCoreDataPredicates.NSComparisonPredicate
import class OpenCoreDataPredicates.NSCompoundPredicate
import class OpenCoreDataPredicates.NSExpression
import class OpenCoreDataPredicates.NSSortDescriptor
import OpenCoreDataTesting

/// NSSecureCoding of predicates, expressions and sort descriptors (issue #17, item 5): round trips through
/// NSKeyedArchiver / NSKeyedUnarchiver, archives built to Apple's structure, evaluation refused until
/// `allowEvaluation()`, and a seeded fuzz of the decoder (a few thousand cases; ≥ 100,000 with
/// `OCD_RANDOM_SCALE` set; the seed of a failing case is printed).
@Suite("Archiving")
struct ArchivingTests {
    static let formats = [
        "name == 'x'", "price < 500 AND name BEGINSWITH[cd] 'Ко'", "NOT (a IN {1, 2, 3})", "ANY tags.name LIKE[c] '*a?'",
        "TRUEPREDICATE", "FALSEPREDICATE", "a.b.c == $X", "SUBQUERY(items, $i, $i.price > 3).@count > 0",
        "TERNARY(a > 1, 'y', 'n') == 'y'", "sum:(items.price) BETWEEN {1, 10}", "(a UNION b) CONTAINS 3",
        "uppercase:(name) MATCHES 'A.*'", "d == CAST(100, 'NSDate')", "FUNCTION(name, 'uppercaseString') == 'X'",
        "x == CAST('1.5', 'NSDecimalNumber')", "a[LAST] == 2", "ALL n >= 0 OR NONE m == nil", "x == TRUE",
    ]

    static func archive(_ object: Any) throws -> Data {
        try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
    }

    @Test(arguments: formats)
    func predicatesRoundTrip(_ format: String) throws {
        let p = NSPredicate(format: format)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPredicate.self, from: Self.archive(p)))
        #expect(decoded == p, "\(decoded.predicateFormat)")
        #expect(type(of: decoded) == type(of: p) || (p is NSComparisonPredicate) == (decoded is NSComparisonPredicate))
        #expect(decoded.predicateFormat == p.predicateFormat)
        #expect(p.copy() as? NSPredicate == p)
    }

    @Test func expressionsAndSortDescriptorsRoundTrip() throws {
        let e = NSExpression(forFunction: "add:to:", arguments: [NSExpression(forKeyPath: "a"), NSExpression(forConstantValue: 2)])
        let de = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSExpression.self, from: Self.archive(e)))
        #expect(de == e)
        #expect(de.expressionValue(with: ["a": 1], context: nil) == nil)
        de.allowEvaluation()
        #expect(de.expressionValue(with: ["a": 1], context: nil) as? NSNumber == 3)

        let s = NSSortDescriptor(key: "name", ascending: false, selector: Selector("localizedStandardCompare:"))
        let ds = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSSortDescriptor.self, from: Self.archive(s)))
        #expect(ds == s)
        #expect(throws: PredicateEvaluationError.self) { try [["name": "a"], ["name": "b"]].sorted(validatingUsing: [ds]) }
        ds.allowEvaluation()
        #expect(try [["name": "a"], ["name": "b"]].sorted(validatingUsing: [ds]).first?["name"] as? String == "b")
    }

    @Test func plainFoundationCallsRoundTripToo() throws {
        let p = NSPredicate(format: "a == 1 OR b == 'x'")
        let data = try Self.archive(p)
        // Foundation's generic form (no checks of ours), through the NSCoding conformance.
        let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSCompoundPredicate.self], from: data) as? NSPredicate
        #expect(decoded == p)
    }

    @Test func decodedPredicatesRefuseEvaluationUntilAllowed() throws {
        let p = NSPredicate(format: "a == 1 AND b < 3")
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSCompoundPredicate.self, from: Self.archive(p)))
        #expect(throws: PredicateEvaluationError(.evaluationNotAllowed)) { try decoded.evaluate(validating: ["a": 1, "b": 2]) }
        #expect(throws: PredicateEvaluationError.self) { try decoded.runnableNode() }
        let sub = try #require(decoded.subpredicates.first as? NSComparisonPredicate)
        #expect(throws: PredicateEvaluationError.self) { try sub.evaluate(validating: ["a": 1]) }
        decoded.allowEvaluation()
        #expect(try decoded.evaluate(validating: ["a": 1, "b": 2]))
        #expect(try sub.evaluate(validating: ["a": 1]))
    }

    /// Apple's `allowEvaluation()` walks down the tree: allowing a part allows that part (and its parts) only,
    /// and every view of the same part shares its permission.
    @Test func allowingAPartAllowsThatPartOnly() throws {
        let p = NSPredicate(format: "a == 1 AND (b < 3 OR TERNARY(c > 1, 'y', 'n') == 'y')")
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSCompoundPredicate.self, from: Self.archive(p)))
        let object: [String: Any] = ["a": 1, "b": 2, "c": 2]
        let first = try #require(decoded.subpredicates[0] as? NSComparisonPredicate)
        first.allowEvaluation()
        #expect(try (decoded.subpredicates[0] as? NSPredicate)?.evaluate(validating: object) == true, "a second view of the same part")
        #expect(throws: PredicateEvaluationError(.evaluationNotAllowed)) { try decoded.evaluate(validating: object) }
        let second = try #require(decoded.subpredicates[1] as? NSCompoundPredicate)
        #expect(throws: PredicateEvaluationError(.evaluationNotAllowed)) { try second.evaluate(validating: object) }

        // Expressions of a decoded predicate, and their parts, are gated the same way.
        let ternary = try #require(second.subpredicates[1] as? NSComparisonPredicate).leftExpression
        #expect(ternary.expressionValue(with: object, context: nil) == nil)
        #expect(ternary.trueExpression.expressionValue(with: object, context: nil) == nil)
        #expect(throws: PredicateEvaluationError(.evaluationNotAllowed)) { try ternary.predicate.evaluate(validating: object) }
        ternary.trueExpression.allowEvaluation()
        #expect(ternary.trueExpression.expressionValue(with: object, context: nil) as? String == "y")
        #expect(ternary.expressionValue(with: object, context: nil) == nil)

        // A predicate made from a refused one is refused too, and allowing it does not allow the original.
        let substituted = second.withSubstitutionVariables([:])
        #expect(throws: PredicateEvaluationError(.evaluationNotAllowed)) { try substituted.evaluate(validating: object) }
        substituted.allowEvaluation()
        #expect(try substituted.evaluate(validating: object))
        #expect(throws: PredicateEvaluationError(.evaluationNotAllowed)) { try second.evaluate(validating: object) }

        decoded.allowEvaluation()
        #expect(try decoded.evaluate(validating: object))
        #expect(try second.evaluate(validating: object), "a view made before the whole was allowed")
        #expect(ternary.expressionValue(with: object, context: nil) as? String == "y")
    }

    @Test func blockPredicatesAreNotArchivable() {
        let p = NSPredicate { _, _ in true }
        #expect(throws: PredicateArchivingError.self) { try Self.archive(p) }
        let c = NSCompoundPredicate(andPredicateWithSubpredicates: [NSPredicate(format: "a == 1"), p])
        #expect(throws: PredicateArchivingError.self) { try Self.archive(c) }
    }

    /// An archive with the structure Apple's Foundation writes for `kind ==[cd] "public.folder"` (class
    /// names `NSComparisonPredicate`, `NSKeyPathExpression` with an `NSKeyPathSpecifierExpression`,
    /// `NSEqualityPredicateOperator` …), as XML.
    static let appleArchive = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0"><dict>
    <key>$archiver</key><string>NSKeyedArchiver</string>
    <key>$version</key><integer>100000</integer>
    <key>$top</key><dict><key>root</key><dict><key>CF$UID</key><integer>1</integer></dict></dict>
    <key>$objects</key><array>
    <string>$null</string>
    <dict><key>$class</key><dict><key>CF$UID</key><integer>12</integer></dict>
      <key>NSLeftExpression</key><dict><key>CF$UID</key><integer>2</integer></dict>
      <key>NSRightExpression</key><dict><key>CF$UID</key><integer>9</integer></dict>
      <key>NSPredicateOperator</key><dict><key>CF$UID</key><integer>13</integer></dict></dict>
    <dict><key>$class</key><dict><key>CF$UID</key><integer>8</integer></dict>
      <key>NSExpressionType</key><integer>3</integer>
      <key>NSOperand</key><dict><key>CF$UID</key><integer>3</integer></dict>
      <key>NSSelectorName</key><dict><key>CF$UID</key><integer>5</integer></dict>
      <key>NSArguments</key><dict><key>CF$UID</key><integer>6</integer></dict></dict>
    <dict><key>$class</key><dict><key>CF$UID</key><integer>4</integer></dict><key>NSExpressionType</key><integer>1</integer></dict>
    <dict><key>$classname</key><string>NSSelfExpression</string><key>$classes</key><array><string>NSSelfExpression</string><string>NSExpression</string><string>NSObject</string></array></dict>
    <string>valueForKey:</string>
    <dict><key>$class</key><dict><key>CF$UID</key><integer>15</integer></dict><key>NS.objects</key><array><dict><key>CF$UID</key><integer>7</integer></dict></array></dict>
    <dict><key>$class</key><dict><key>CF$UID</key><integer>16</integer></dict><key>NSExpressionType</key><integer>10</integer><key>NSKeyPath</key><dict><key>CF$UID</key><integer>17</integer></dict></dict>
    <dict><key>$classname</key><string>NSKeyPathExpression</string><key>$classes</key><array><string>NSKeyPathExpression</string><string>NSFunctionExpression</string><string>NSExpression</string><string>NSObject</string></array></dict>
    <dict><key>$class</key><dict><key>CF$UID</key><integer>10</integer></dict><key>NSExpressionType</key><integer>0</integer><key>NSConstantValue</key><dict><key>CF$UID</key><integer>11</integer></dict></dict>
    <dict><key>$classname</key><string>NSConstantValueExpression</string><key>$classes</key><array><string>NSConstantValueExpression</string><string>NSExpression</string><string>NSObject</string></array></dict>
    <string>public.folder</string>
    <dict><key>$classname</key><string>NSComparisonPredicate</string><key>$classes</key><array><string>NSComparisonPredicate</string><string>NSPredicate</string><string>NSObject</string></array></dict>
    <dict><key>$class</key><dict><key>CF$UID</key><integer>14</integer></dict><key>NSOperatorType</key><integer>4</integer><key>NSModifier</key><integer>0</integer><key>NSNegate</key><false/><key>NSOptions</key><integer>3</integer></dict>
    <dict><key>$classname</key><string>NSEqualityPredicateOperator</string><key>$classes</key><array><string>NSEqualityPredicateOperator</string><string>NSPredicateOperator</string><string>NSObject</string></array></dict>
    <dict><key>$classname</key><string>NSMutableArray</string><key>$classes</key><array><string>NSMutableArray</string><string>NSArray</string><string>NSObject</string></array></dict>
    <dict><key>$classname</key><string>NSKeyPathSpecifierExpression</string><key>$classes</key><array><string>NSKeyPathSpecifierExpression</string><string>NSExpression</string><string>NSObject</string></array></dict>
    <string>kind</string>
    </array></dict></plist>
    """

    @Test func archivesOfApplesStructureDecode() throws {
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPredicate.self, from: Data(Self.appleArchive.utf8)))
        #expect(decoded == NSPredicate(format: "kind ==[cd] 'public.folder'"))
        #expect(decoded is NSComparisonPredicate)
        decoded.allowEvaluation()
        #expect(decoded.evaluate(with: ["kind": "Public.Folder"]))
    }

    /// A binary archive whose `$top` dictionary became a set of its key and its reference (what the
    /// 100,000-case fuzz found): Foundation's parser on Linux crashes bridging such a set, so the archive
    /// is refused before it parses. Likewise a dictionary key that is not a string.
    @Test func binaryPropertyListsWithSetsOrNonStringKeysAreRefused() throws {
        let data = try Self.archive(NSPredicate(format: "name == 'x'"))
        var bytes = Array(data)
        #expect(bytes.starts(with: Array("bplist00".utf8)))
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let top = bytes[(trailer + 16)..<(trailer + 24)].reduce(0) { $0 << 8 | Int($1) }
        let table = bytes[(trailer + 24)..<(trailer + 32)].reduce(0) { $0 << 8 | Int($1) }
        let offset = bytes[(table + top * offsetSize)..<(table + (top + 1) * offsetSize)].reduce(0) { $0 << 8 | Int($1) }
        #expect(bytes[offset] >> 4 == 0xD, "the top object is a dictionary")
        let entries = Int(bytes[offset] & 0x0F)
        bytes[offset] = 0xC0 | UInt8(2 * entries)  // the same references, read as a set
        #expect(throws: PredicateArchivingError.self) { try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPredicate.self, from: Data(bytes)) }
        // The same dictionary with its keys and values swapped: references as keys.
        var swapped = Array(data)
        let refSize = Int(swapped[trailer + 7])
        let keys = Array(swapped[(offset + 1)..<(offset + 1 + entries * refSize)])
        let values = Array(swapped[(offset + 1 + entries * refSize)..<(offset + 1 + 2 * entries * refSize)])
        swapped.replaceSubrange((offset + 1)..<(offset + 1 + 2 * entries * refSize), with: values + keys)
        #expect(throws: PredicateArchivingError.self) { try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPredicate.self, from: Data(swapped)) }
        #expect(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPredicate.self, from: data) != nil)
    }

    @Test func hostileArchivesAreErrors() throws {
        let a = Self.appleArchive
        let cases = [
            a.replacingOccurrences(of: "<string>NSComparisonPredicate</string>", with: "<string>NSFileManager</string>"),
            a.replacingOccurrences(of: "<key>CF$UID</key><integer>3</integer>", with: "<key>CF$UID</key><integer>2</integer>"), // cycle
            a.replacingOccurrences(of: "<key>CF$UID</key><integer>11</integer>", with: "<key>CF$UID</key><integer>1</integer>"), // predicate as constant
            a.replacingOccurrences(of: "<integer>100000</integer>", with: "<string>x</string>"),
            a.replacingOccurrences(of: "<key>CF$UID</key><integer>9</integer>", with: "<key>CF$UID</key><integer>99999999</integer>"),
            String(a.prefix(a.count / 2)),
        ]
        for c in cases {
            #expect(throws: (any Error).self) { try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPredicate.self, from: Data(c.utf8)) }
        }
    }

    static let scale = Int(ProcessInfo.processInfo.environment["OCD_RANDOM_SCALE"] ?? "")
    static let cases = scale.map { max(100_000, 10_000 * $0) } ?? 3_000
    static let tokens = ["NSComparisonPredicate", "NSCompoundPredicate", "NSArray", "NSSet", "NSDate", "NSUUID", "NSURL",
                         "NSFileManager", "NSKeyedArchiver", "OpenCoreDataPredicates.NSExpression", "NSTruePredicate", "-1",
                         "4294967295", "99999999999", "0", "1", "2", "3", "10", "13", "20", "", "NSDictionary", "NSNull"]

    /// Mutated archives (bytes of binary and XML forms; XML text with class names, integers and `CF$UID`
    /// references replaced, so cycles, wrong classes and huge counts appear): an error or a predicate,
    /// never a trap.
    @Test func fuzzedArchivesNeverTrap() throws {
        var sources: [[UInt8]] = [Array(Self.appleArchive.utf8)]
        for f in Self.formats {
            let p = NSPredicate(format: f)
            sources.append(Array(try Self.archive(p)))
            // Under Apple's class names (the overload for predicates), as Darwin writes them.
            sources.append(Array(try NSKeyedArchiver.archivedData(withRootObject: p, requiringSecureCoding: true)))
            let archiver = NSKeyedArchiver(requiringSecureCoding: true)
            archiver.outputFormat = .xml
            archiver.encode(p, forKey: NSKeyedArchiveRootObjectKey)
            sources.append(Array(archiver.encodedData))
        }
        var outcomes = (decoded: 0, rejected: 0)
        for i in 0..<Self.cases {
            let seed = 0xA2C4_0000 &+ UInt64(i)
            var rng = SeededRandom(seed: seed)
            var bytes = rng.pick(sources)
            for _ in 0..<rng.int(1...3) {
                if bytes.first == UInt8(ascii: "<"), rng.int(0...1) == 0 {
                    // Structural: replace the content of one <string>/<integer> element by a token.
                    var text = String(decoding: bytes, as: UTF8.self)
                    let ranges = text.ranges(of: /<(string|integer)>[^<]*</)
                    if !ranges.isEmpty {
                        let r = rng.pick(ranges)
                        let tag = text[r].hasPrefix("<string>") ? "<string>" : "<integer>"
                        text.replaceSubrange(r, with: tag + rng.pick(Self.tokens) + "<")
                        bytes = Array(text.utf8)
                    }
                } else if !bytes.isEmpty {
                    let at = rng.int(0...(bytes.count - 1))
                    switch rng.int(0...3) {
                    case 0: bytes[at] = UInt8(truncatingIfNeeded: rng.int(0...255))
                    case 1: bytes.remove(at: at)
                    case 2: bytes.removeSubrange(at...)
                    default: bytes.insert(UInt8(truncatingIfNeeded: rng.int(0...255)), at: at)
                    }
                }
            }
            if ProcessInfo.processInfo.environment["OCD_TRACE_CASES"] != nil {
                FileHandle.standardError.write(Data("case \(i) seed \(seed) bytes \(bytes.map { String(format: "%02x", $0) }.joined())\n".utf8))
            }
            do {
                if let p = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPredicate.self, from: Data(bytes)) {
                    outcomes.decoded += 1
                    #expect(throws: PredicateEvaluationError.self, "seed \(seed)") { try p.evaluate(validating: [:]) }
                    _ = p.predicateFormat
                }
            } catch {
                outcomes.rejected += 1
            }
        }
        #expect(outcomes.rejected > 0)
        print("archive fuzz: \(outcomes.decoded) decoded, \(outcomes.rejected) rejected of \(Self.cases)")
    }
}
