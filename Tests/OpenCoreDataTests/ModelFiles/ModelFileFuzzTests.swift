import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Seeded mutation fuzzing of the model file reader: model files (the library fixture, the Zoo resource,
/// random models as written) with bytes deleted, inserted, duplicated, swapped or truncated, and attribute
/// values or element names replaced by tokens that mean something to the reader. Every case either throws
/// a ``ModelFileError`` that has a position (or names a whole-file problem) or reads a model that writes
/// back, reads back equal, and loads into a coordinator or fails with an error — never a trap, never a
/// hang. A few thousand cases per run; at least 100,000 when `OCD_RANDOM_SCALE` is set (the seed of a
/// failing case is printed).
@Suite("Model files: fuzzing the reader")
struct ModelFileFuzzTests {
    static let scale = Int(ProcessInfo.processInfo.environment["OCD_RANDOM_SCALE"] ?? "")
    static let chunks: [UInt64] = Array(0..<4)
    static let casesPerChunk = scale.map { max(25_000, 1_000 * $0) } ?? 1_000

    static let sources: [[UInt8]] = {
        var texts = [ModelFileFixtures.libraryOfPlainObjects, ModelFileFixtures.small()]
        if let url = Bundle.module.url(forResource: "Zoo.xcdatamodeld/Zoo.xcdatamodel/contents", withExtension: nil),
           let zoo = try? String(contentsOf: url, encoding: .utf8) {
            texts.append(zoo)
        }
        for seed in 0..<12 as Range<UInt64> {
            var generator = RandomModelGenerator(seed: 0xF022 &+ seed)
            if let data = try? generator.model().modelFileContents() { texts.append(String(decoding: data, as: UTF8.self)) }
        }
        return texts.map { Array($0.utf8) }
    }()

    /// Tokens the reader gives meaning to.
    static let tokens = [
        "YES", "NO", "", " ", "-1", "0", "1", "40000", "99999999999999999999", "1e308", "nan", "Integer 16", "String",
        "Date", "Binary", "Transformable", "ObjectID", "Undefined", "Composite", "Nullify", "Cascade", "Deny", "No Action",
        "Animal", "Zoo", "Book", "Item", "Person", "E1", "E2", "a1", "r3", "name", "title", "$X", "SELF", "now()",
        "canonical:(title)", "a ==", "Binary", "RTree", "descending", "&amp;", "&#0;", "&#xD800;", "&#x1F992;", "&bogus;",
        "<", ">", "\"", "'", "]]>", "<!--", "-->", "<![CDATA[x]]>", "é", "\u{0}", "entity", "attribute", "relationship",
        "fetchRequest", "configuration", "memberEntity", "userInfo", "entry", "fetchIndex", "fetchIndexElement",
        "uniquenessConstraint", "constraint", "fetchedProperty", "compoundIndex", "elements", "model", "plist",
    ]

    @Test(arguments: chunks)
    func mutatedModelFilesNeverTrap(_ chunk: UInt64) throws {
        var outcomes = (read: 0, rejected: 0, loaded: 0)
        let clock = ContinuousClock()
        for i in 0..<Self.casesPerChunk {
            let seed = 0xFA22_0000 &+ chunk &* 10_000_019 &+ UInt64(i)
            var rng = SeededRandom(seed: seed)
            var bytes = rng.pick(Self.sources)
            for _ in 0..<rng.int(1...4) { Self.mutate(&bytes, &rng) }
            let started = clock.now
            defer {
                let elapsed = clock.now - started
                // A case takes about a millisecond; the limit is loose because the machine may be busy.
                if elapsed > .seconds(10) { Issue.record("seed \(seed): one case took \(elapsed)") }
            }
            let model: NSManagedObjectModel
            do {
                model = try NSManagedObjectModel(modelFileContents: Data(bytes))
            } catch let error as ModelFileError {
                outcomes.rejected += 1
                if error.line == nil && error.element == nil {
                    Issue.record("seed \(seed): an error without a place: \(error)")
                } else if let line = error.line, line < 1 || line > bytes.filter({ $0 == 0x0A }).count + 1 || (error.column ?? 0) < 1 {
                    Issue.record("seed \(seed): the error's place is outside the file: \(error)")
                }
                continue
            } catch {
                Issue.record("seed \(seed): not a ModelFileError: \(type(of: error)) \(error)")
                continue
            }
            outcomes.read += 1
            do {
                let written = try model.modelFileContents()
                let again = try NSManagedObjectModel(modelFileContents: written)
                if let difference = ModelDump.difference(model, again) {
                    Issue.record("seed \(seed): a mutated model that read does not round-trip: \(difference)")
                }
            } catch let error as ModelFileError {
                // A model that reads may still hold what cannot be written back (a predicate format our
                // printer cannot reproduce, say): a clean error is fine, but count it.
                if !error.reason.contains("cannot be written") {
                    Issue.record("seed \(seed): writing back failed: \(error)")
                }
            } catch {
                Issue.record("seed \(seed): writing back threw \(type(of: error)) \(error)")
            }
            do {
                try model.freeze()
                outcomes.loaded += 1
            } catch {
                // An invalid model (names, inverses): an error, not a trap.
            }
        }
        #expect(outcomes.read + outcomes.rejected == Self.casesPerChunk)
        #expect(outcomes.rejected > Self.casesPerChunk / 4, "the mutations reach the reader's checks")
        #expect(outcomes.loaded > 0, "some mutated models still load")
    }

    /// One mutation: byte-level or token-level.
    static func mutate(_ bytes: inout [UInt8], _ rng: inout SeededRandom) {
        guard !bytes.isEmpty else { bytes = Array(rng.pick(tokens).utf8); return }
        let position = rng.int(0...(bytes.count - 1))
        switch rng.int(0...9) {
        case 0:  // delete a range
            let end = min(bytes.count, position + rng.int(1...40))
            bytes.removeSubrange(position..<end)
        case 1:  // insert a token
            bytes.insert(contentsOf: Array(rng.pick(tokens).utf8), at: position)
        case 2:  // insert a random byte (invalid UTF-8 included)
            bytes.insert(UInt8(rng.int(0...255)), at: position)
        case 3:  // duplicate a range
            let end = min(bytes.count, position + rng.int(1...200))
            bytes.insert(contentsOf: bytes[position..<end], at: rng.int(0...bytes.count))
        case 4:  // truncate
            bytes.removeSubrange(position...)
        case 5, 6, 7:  // replace an attribute value
            guard let (start, end) = quotedValue(in: bytes, near: position) else { return }
            bytes.replaceSubrange(start..<end, with: Array(rng.pick(tokens).utf8))
        case 8:  // rename an element
            guard let start = bytes[position...].firstIndex(of: UInt8(ascii: "<")) else { return }
            var end = start + 1
            while end < bytes.count, bytes[end] != 0x20, bytes[end] != UInt8(ascii: ">"), bytes[end] != UInt8(ascii: "/") { end += 1 }
            bytes.replaceSubrange((start + 1)..<end, with: Array(rng.pick(tokens).utf8))
        default:  // swap two ranges of lines
            let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
            guard lines.count > 2 else { return }
            var shuffled = lines
            let a = rng.int(0...(lines.count - 1)), b = rng.int(0...(lines.count - 1))
            shuffled.swapAt(a, b)
            bytes = Array(shuffled.joined(separator: [0x0A]))
        }
    }

    /// The bounds of the contents of the next quoted attribute value at or after `position`.
    static func quotedValue(in bytes: [UInt8], near position: Int) -> (Int, Int)? {
        guard let equals = bytes[position...].firstIndex(of: UInt8(ascii: "=")), equals + 1 < bytes.count,
              bytes[equals + 1] == UInt8(ascii: "\"") else { return nil }
        guard let close = bytes[(equals + 2)...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return (equals + 2, close)
    }
}
