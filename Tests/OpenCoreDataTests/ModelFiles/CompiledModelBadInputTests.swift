import CZlib
import Foundation
import Testing
@testable import OpenCoreData
@testable import OpenCoreDataPredicates
import OpenCoreDataTesting

/// Compiled models that are truncated, not archives, or hostile: each is a clear error saying where and
/// why, never a trap; and the raw DEFLATE reader of store model caches against zlib.
@Suite("Compiled models: bad input")
struct CompiledModelBadInputTests {
    typealias Archive = CompiledModelCodingTests.Archive

    static func decode(_ data: Data) throws -> NSManagedObjectModel {
        try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSManagedObjectModel.self, from: data))
    }

    /// The debug description of the error decoding `data` gives.
    static func failure(_ data: Data) -> String? {
        do {
            _ = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSManagedObjectModel.self, from: data)
            return nil
        } catch {
            let nsError = error as NSError
            #expect(nsError.domain == NSCocoaErrorDomain && nsError.code == CocoaError.coderReadCorrupt.rawValue)
            return nsError.userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
        }
    }

    static func contentful() throws -> Archive {
        try Archive(try #require(try CompiledModelFixtures.archive(VersionHashTests.fixtures.appendingPathComponent("contentful-test/Test.sqlite"))))
    }

    /// Cut anywhere, an archive is an error (as a file: `nil` from `init?(contentsOf:)`, a `ModelFileError`
    /// naming the file from `init(validatingContentsOf:)`).
    @Test func truncatedArchives() throws {
        let data = try Self.contentful().data
        for length in stride(from: 0, to: data.count, by: 41) {
            #expect(Self.failure(data.prefix(length)) != nil, "cut at \(length)")
        }
        let folder = TemporaryStore()
        defer { folder.cleanUp() }
        let url = folder.directory.appendingPathComponent("Cut.mom")
        try data.prefix(data.count / 2).write(to: url)
        #expect(NSManagedObjectModel(contentsOf: url) == nil)
        let error = try #require(throws: ModelFileError.self) { try NSManagedObjectModel(validatingContentsOf: url) }
        #expect(error.file == url.standardizedFileURL && error.reason.hasPrefix("not a readable binary property list"))
    }

    /// Text, an XML property list, JSON, a keyed archive of a string: not a compiled model.
    @Test func notArchives() throws {
        #expect(Self.failure(Data("<model/>".utf8)) == "not a compiled model: a .mom file and a model cache are binary property lists (bplist00)")
        let plist = try PropertyListSerialization.data(fromPropertyList: ["a": 1], format: .binary, options: 0)
        #expect(Self.failure(plist) == "not a keyed archive with a root object ($archiver, $objects, $top.root)")
        let string = try NSKeyedArchiver.archivedData(withRootObject: NSString(string: "x"), requiringSecureCoding: true)
        #expect(Self.failure(string) == "the archive holds a string, not an object of class NSManagedObjectModel")
        let folder = TemporaryStore()
        defer { folder.cleanUp() }
        let url = folder.directory.appendingPathComponent("Text.mom")
        try Data("hello".utf8).write(to: url)
        let error = try #require(throws: ModelFileError.self) { try NSManagedObjectModel(validatingContentsOf: url) }
        #expect(error.description.hasSuffix("Text.mom: not a compiled model: a .mom file and a model cache are binary property lists (bplist00)"))
    }

    /// A class the table does not hold, where a model's object or a default value's is: an error naming the
    /// class and where it is; an app names its own class with `NSKeyedUnarchiver.setClass(_:forClassName:)`.
    @Test func unknownClasses() throws {
        var archive = try Self.contentful()
        let attributeClass = try #require(archive.objects.indices.first { archive.objects[$0]["$classname"] == .string("NSAttributeDescription") })
        archive.objects[attributeClass] = .dictionary(["$classname": .string("Nowhere.Attribute"), "$classes": .array([.string("Nowhere.Attribute")])])
        let message = try #require(Self.failure(archive.data))
        #expect(message.hasPrefix("entity ") && message.contains("the archive names the class Nowhere.Attribute, which is not one a compiled model holds"))

        var sample = try Archive.sampleModel2()
        let coverClass = try #require(sample.objects.indices.first { sample.objects[$0]["$classname"] == .string("CoreDataPlus_Tests.Cover") })
        sample.objects[coverClass] = .dictionary(["$classname": .string("Nowhere.Cover"), "$classes": .array([.string("Nowhere.Cover")])])
        let cover = try #require(Self.failure(sample.data))
        #expect(cover.hasSuffix("attribute cover: the archive names the class Nowhere.Cover, which is not one a compiled model holds (an app's own class is decoded once NSKeyedUnarchiver.setClass(_:forClassName:) names it)"))
    }

    /// Graphs no compiler writes: a collection holding itself, superentities in a cycle, a property of two
    /// entities, a relationship to a missing entity, references out of range, keys of the wrong type.
    @Test func hostileGraphs() throws {
        let base = try Archive.sampleModel2()
        func failure(_ change: (inout Archive) throws -> Void) throws -> String {
            var archive = base
            try change(&archive)
            return try #require(Self.failure(archive.data))
        }
        func entity(_ archive: Archive, _ name: String) throws -> Int { try archive.index(of: "NSEntityDescription", "NSEntityName", name) }
        func set(_ archive: inout Archive, _ index: Int, _ key: String, _ value: PropertyListTree) {
            guard case .dictionary(var object) = archive.objects[index] else { return }
            object[key] = value
            archive.objects[index] = .dictionary(object)
        }

        let cycle = try failure { archive in
            let book = try entity(archive, "Book")
            guard case .uid(let properties)? = archive.objects[book]["NSProperties"], case .array(var values)? = archive.objects[properties]["NS.objects"] else { return }
            values[0] = .uid(properties)
            set(&archive, properties, "NS.objects", .array(values))
        }
        #expect(cycle.contains("a reference cycle through object"), "\(cycle)")

        let inheritance = try failure { archive in
            let writer = try entity(archive, "Writer"), author = try entity(archive, "Author")
            guard case .uid(let subentities)? = archive.objects[writer]["NSSubentities"] else { return }
            set(&archive, author, "NSSubentities", .uid(subentities))  // Author's subentities: {Author}
        }
        #expect(inheritance.contains("Author"), "\(inheritance)")

        let shared = try failure { archive in
            let page = try entity(archive, "Page"), book = try entity(archive, "Book")
            set(&archive, page, "NSProperties", archive.objects[book]["NSProperties"]!)
        }
        #expect(shared.contains("belongs to entity"), "\(shared)")

        let missing = try failure { archive in
            let pages = try archive.index(of: "NSRelationshipDescription", "NSPropertyName", "pages", entity: "Book")
            archive.objects.append(.string("Nowhere"))
            set(&archive, pages, "_NSDestinationEntityName", .uid(archive.objects.count - 1))
        }
        #expect(missing == "entity Book, relationship pages: the destination entity Nowhere is not in the model", "\(missing)")

        let range = try failure { archive in set(&archive, try entity(archive, "Book"), "NSProperties", .uid(1_000_000)) }
        #expect(range.contains("reference 1000000 is out of range"), "\(range)")

        let name = try failure { archive in set(&archive, try entity(archive, "Book"), "NSEntityName", .integer(7)) }
        #expect(name == "entity ?: NSEntityName is not an object reference", "\(name)")

        let type = try failure { archive in
            set(&archive, try archive.index(of: "NSAttributeDescription", "NSPropertyName", "title", entity: "Book"), "NSAttributeType", .integer(12_345))
        }
        #expect(type == "entity Book, attribute title: unknown attribute type 12345", "\(type)")

        let rule = try failure { archive in
            set(&archive, try archive.index(of: "NSRelationshipDescription", "NSPropertyName", "pages", entity: "Book"), "NSDeleteRule", .integer(9))
        }
        #expect(rule == "entity Book, relationship pages: unknown delete rule 9", "\(rule)")

        let wrongClass = try failure { archive in
            let title = try archive.index(of: "NSAttributeDescription", "NSPropertyName", "title", entity: "Book")
            set(&archive, try entity(archive, "Page"), "NSSubentities", archive.objects[title]["NSValidationPredicates"]!)
        }
        #expect(wrongClass.contains("where NSDictionary"), "\(wrongClass)")
    }

    /// Nesting beyond the limit (a user info value of arrays in arrays) is an error, not a deep recursion.
    @Test func deepNesting() throws {
        var archive = try Self.contentful()
        var inner = 0
        for _ in 0..<5_000 {
            archive.objects.append(.dictionary(["NS.objects": .array(inner == 0 ? [] : [.uid(inner)]), "$class": .uid(try #require(archive.objects.indices.first { archive.objects[$0]["$classname"] == .string("NSArray") }))]))
            inner = archive.objects.count - 1
        }
        let author = try archive.index(of: "NSEntityDescription", "NSEntityName", "Author")
        guard case .dictionary(var object) = archive.objects[author] else { return }
        archive.objects.append(.string("deep"))
        archive.objects.append(.dictionary(["NS.keys": .array([.uid(archive.objects.count - 1)]), "NS.objects": .array([.uid(inner)]),
                                            "$class": .uid(try #require(archive.objects.indices.first { archive.objects[$0]["$classname"] == .string("NSDictionary") }))]))
        object["NSUserInfo"] = .uid(archive.objects.count - 1)
        archive.objects[author] = .dictionary(object)
        let message = try #require(Self.failure(archive.data))
        #expect(message == "entity Author: objects nest more than 256 levels deep", "\(message)")
    }

    /// Random damage to an archive: references pointed elsewhere, values replaced, bytes flipped. Each case
    /// is a model (whose hashes and summary compute) or an error; nothing traps or recurses without end.
    @Test func randomDamage() throws {
        let base = try Archive.sampleModel2()
        var rng = SeededRandom(seed: 0xC0DE_0A12)
        var models = 0, errors = 0
        for _ in 0..<(600 * ModelFileRoundTripTests.scale) {
            var archive = base
            for _ in 0..<rng.int(1...3) {
                let index = rng.int(1...(archive.objects.count - 1))
                guard case .dictionary(var object) = archive.objects[index], let key = object.keys.sorted().randomElement(using: &rng) else { continue }
                switch rng.int(0...3) {
                case 0: object[key] = .uid(rng.int(0...(archive.objects.count + 2)))
                case 1: object[key] = .integer(Int64(rng.int(-3...2_200)))
                case 2: object[key] = .string("x")
                default: object[key] = nil
                }
                archive.objects[index] = .dictionary(object)
            }
            var data = archive.data
            if rng.chance(0.2) { data[rng.int(8...(data.count - 1))] ^= UInt8(rng.int(1...255)) }
            if let model = try? NSKeyedUnarchiver.unarchivedObject(ofClass: NSManagedObjectModel.self, from: data) {
                _ = model.entityVersionHashesByName
                _ = CompiledModelFixtures.summary(model, full: true)
                models += 1
            } else {
                errors += 1
            }
        }
        #expect(models > 0 && errors > 0, "\(models) models, \(errors) errors")
    }

    // MARK: Raw DEFLATE

    /// Every fixture store's model cache inflates to what zlib gives.
    @Test func inflateAgreesWithZlibOnEveryModelCache() throws {
        var checked = 0
        for fixture in try FileManager.default.contentsOfDirectory(atPath: VersionHashTests.fixtures.path) where !fixture.hasSuffix(".md") {
            let folder = VersionHashTests.fixtures.appendingPathComponent(fixture)
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".sqlite") || name.hasSuffix(".moody") {
                guard let compressed = try CompiledModelFixtures.compressedCache(folder.appendingPathComponent(name)) else { continue }
                #expect(try RawInflate.inflate(compressed) == (try CompiledModelFixtures.zlibInflate(compressed)), "\(fixture)/\(name)")
                checked += 1
            }
        }
        #expect(checked == 24)
    }

    /// Stored, fixed-code and dynamic-code blocks (zlib's levels and strategies), empty and large inputs.
    @Test func inflateReadsEveryBlockType() throws {
        var rng = SeededRandom(seed: 7)
        for size in [0, 1, 100, 70_000, 300_000] {
            let text = Data((0..<size).map { _ in UInt8(rng.chance(0.7) ? rng.int(97...100) : rng.int(0...255)) })
            for (level, strategy) in [(Int32(0), Z_DEFAULT_STRATEGY), (6, Z_FIXED), (9, Z_DEFAULT_STRATEGY), (1, Z_HUFFMAN_ONLY), (6, Z_RLE)] {
                let compressed = try Self.zlibDeflate(text, level: level, strategy: strategy)
                #expect(try RawInflate.inflate(compressed) == text, "size \(size) level \(level) strategy \(strategy)")
            }
        }
    }

    /// Truncated or damaged streams are errors (or, for some damage, other bytes), never a trap; output is
    /// bounded.
    @Test func inflateRefusesBadStreams() throws {
        let text = Data(String(repeating: "compiled model ", count: 400).utf8)
        let compressed = try Self.zlibDeflate(text, level: 9, strategy: Z_DEFAULT_STRATEGY)
        for length in 0..<compressed.count {
            #expect(throws: RawInflate.Failure.self) { try RawInflate.inflate(compressed.prefix(length)) }
        }
        var rng = SeededRandom(seed: 11)
        for _ in 0..<500 {
            var damaged = compressed
            damaged[rng.int(0...(damaged.count - 1))] ^= UInt8(rng.int(1...255))
            _ = try? RawInflate.inflate(damaged)
            _ = try? RawInflate.inflate(Data((0..<rng.int(0...64)).map { _ in UInt8(rng.int(0...255)) }))
        }
        #expect(throws: RawInflate.Failure.self) { try RawInflate.inflate(compressed, limit: 100) }
        #expect(throws: RawInflate.Failure.self) { try RawInflate.inflate(Data([0x07])) }  // block type 3
    }

    static func zlibDeflate(_ data: Data, level: Int32, strategy: Int32) throws -> Data {
        var stream = z_stream()
        guard deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, strategy, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw CocoaError(.coderInvalidValue)
        }
        defer { deflateEnd(&stream) }
        var input = [UInt8](data), output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(data.count))) + 64)
        let produced = input.withUnsafeMutableBufferPointer { inputBytes in
            output.withUnsafeMutableBufferPointer { out -> Int in
                stream.next_in = inputBytes.baseAddress
                stream.avail_in = UInt32(inputBytes.count)
                stream.next_out = out.baseAddress
                stream.avail_out = UInt32(out.count)
                guard deflate(&stream, Z_FINISH) == Z_STREAM_END else { return -1 }
                return out.count - Int(stream.avail_out)
            }
        }
        guard produced >= 0 else { throw CocoaError(.coderInvalidValue) }
        return Data(output.prefix(produced))
    }
}
