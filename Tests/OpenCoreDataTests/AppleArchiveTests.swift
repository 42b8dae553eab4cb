import CZlib
import Foundation
@testable import OpenCoreData
import OpenCoreDataPredicates
import Testing
import OpenCoreDataTesting

/// Issue 32 B11, against archives Apple's Foundation wrote: the compiled model Core Data caches in a store's
/// `Z_MODELCACHE` (raw DEFLATE of an `NSKeyedArchiver` archive) holds fetch request predicates, validation
/// predicates, derivation expressions and sort descriptors. Each one, cut out of the model's archive into
/// an archive of its own, decodes here to the predicate it is; and our archive of the same predicate
/// names the same classes, with the same `$classes`, keys and scalar values.
@Suite("Apple's archives of predicates")
struct AppleArchiveTests {
    /// The fixture stores whose model caches hold predicates (the others hold none).
    static let stores = ["coredataplus-samplemodel2-history/SampleModel2_V1.sqlite",
                         "coredataplus-samplemodel2-history/SampleModel2_V2.sqlite"]

    /// What the archived objects are, as this library prints them.
    static let expected: Set<String> = [
        "authorAlias == $FETCH_SOURCE.alias",
        "authorAlias == $FETCH_SOURCE.alias AND comment CONTAINS[c] $FETCHED_PROPERTY.userInfo.search",
        "length >= 3 AND length <= 50",
        "SELF CONTAINS \"title\"",
        "count:(pages)",
        "(rating, ascending, compare:)",
    ]

    /// The keyed archive of a store's compiled model, inflated from its `Z_MODELCACHE` row (read from a
    /// copy of the store: the fixture is never touched).
    static func modelArchive(_ store: String) throws -> PropertyListTree {
        let source = VersionHashTests.fixtures.appendingPathComponent(store)
        let temporary = TemporaryStore()
        defer { temporary.cleanUp() }
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: temporary.url.path + suffix)
        }
        let connection = try SQLiteConnection(path: temporary.url.path)
        var compressed = Data()
        try connection.query("SELECT Z_CONTENT FROM Z_MODELCACHE") { row in
            if case .data(let data) = row.value(0, as: .binaryDataAttributeType) { compressed = data }
        }
        return try PropertyListTree(try inflate(compressed))
    }

    /// Raw DEFLATE (no zlib header), as Core Data writes its model cache.
    static func inflate(_ data: Data) throws -> Data {
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { throw CocoaError(.coderReadCorrupt) }
        defer { inflateEnd(&stream) }
        var input = [UInt8](data), output = Data(), buffer = [UInt8](repeating: 0, count: 1 << 16)
        var status = Z_OK
        try input.withUnsafeMutableBufferPointer { inputBytes in
            stream.next_in = inputBytes.baseAddress
            stream.avail_in = UInt32(inputBytes.count)
            while status == Z_OK {
                try buffer.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    guard status == Z_OK || status == Z_STREAM_END else { throw CocoaError(.coderReadCorrupt) }
                    output.append(out.baseAddress!, count: out.count - Int(stream.avail_out))
                }
            }
        }
        return output
    }

    struct Archive {
        let top: [String: PropertyListTree]
        let objects: [PropertyListTree]

        init(_ tree: PropertyListTree) throws {
            guard case .dictionary(let top) = tree, case .array(let objects)? = top["$objects"] else { throw CocoaError(.coderReadCorrupt) }
            self.top = top
            self.objects = objects
        }

        func className(_ index: Int) -> String? {
            guard case .uid(let c)? = objects[index]["$class"], case .string(let name)? = objects[c]["$classname"] else { return nil }
            return name
        }

        static func isPredicateFamily(_ name: String?) -> Bool {
            guard let name else { return false }
            return name.hasSuffix("Predicate") || name.hasSuffix("Expression") || name == "NSSortDescriptor"
        }

        /// The predicates, expressions and sort descriptors that other objects hold (not their parts).
        var roots: [Int] {
            var found: Set<Int> = []
            for index in objects.indices where !Self.isPredicateFamily(className(index)) {
                guard case .dictionary(let object) = objects[index], !["NSArray", "NSMutableArray"].contains(className(index)) else { continue }
                for value in object.values {
                    guard case .uid(let ref) = value else { continue }
                    if Self.isPredicateFamily(className(ref)) { found.insert(ref) }
                    if ["NSArray", "NSMutableArray"].contains(className(ref)), case .array(let items)? = objects[ref]["NS.objects"] {
                        for case .uid(let item) in items where Self.isPredicateFamily(className(item)) { found.insert(item) }
                    }
                }
            }
            return found.sorted()
        }

        /// A keyed archive of the object at `root` and what it refers to, renumbered (`$null` stays first).
        func standalone(_ root: Int) -> Data {
            var order = [0], number = [0: 0], pending = [root]
            while let index = pending.popLast() {
                guard number[index] == nil else { continue }
                number[index] = order.count
                order.append(index)
                Self.references(objects[index], into: &pending)
            }
            let renumbered = order.map { Self.renumber(objects[$0], number) }
            return PropertyListTree.dictionary([
                "$archiver": top["$archiver"]!, "$version": top["$version"]!,
                "$top": .dictionary(["root": .uid(number[root]!)]), "$objects": .array(renumbered),
            ]).binaryData()
        }

        static func references(_ value: PropertyListTree, into list: inout [Int]) {
            switch value {
            case .uid(let i): list.append(i)
            case .array(let items): for item in items { references(item, into: &list) }
            case .dictionary(let d): for v in d.values { references(v, into: &list) }
            default: break
            }
        }

        static func renumber(_ value: PropertyListTree, _ number: [Int: Int]) -> PropertyListTree {
            switch value {
            case .uid(let i): return .uid(number[i]!)
            case .array(let items): return .array(items.map { renumber($0, number) })
            case .dictionary(let d): return .dictionary(d.mapValues { renumber($0, number) })
            default: return value
            }
        }

        /// Each object as its class, its `$classes`, and its keys with their scalar values (references as
        /// "→"): the class table and the shape of the objects, without their order or sharing.
        var shapes: Set<String> {
            var result: Set<String> = []
            for index in objects.indices {
                guard let name = className(index), case .dictionary(let object) = objects[index],
                      case .uid(let c)? = object["$class"], case .array(let chain)? = objects[c]["$classes"] else { continue }
                let keys = object.keys.filter { $0 != "$class" }.sorted().map { key -> String in
                    switch object[key]! {
                    case .integer(let i): return "\(key)=\(i)"
                    case .bool(let b): return "\(key)=\(b)"
                    case .uid(let r) where objects[r].isString: return "\(key)=\"\(objects[r].stringValue!)\""
                    default: return "\(key)→"
                    }
                }
                let classes = chain.compactMap(\.stringValue).joined(separator: " < ")
                result.insert("\(classes) {\(keys.joined(separator: ", "))}")
            }
            return result
        }
    }

    /// What a decoded object is, printed.
    static func describe(_ data: Data, _ archive: Archive, _ root: Int) throws -> (String, NSObject) {
        switch archive.className(root) {
        case "NSSortDescriptor":
            let s = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSSortDescriptor.self, from: data))
            return ("(\(s.key ?? ""), \(s.ascending ? "ascending" : "descending"), \(s.selector?.name ?? ""))", s)
        case let name? where name.hasSuffix("Expression"):
            let e = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSExpression.self, from: data))
            return (e.description, e)
        default:
            let p = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPredicate.self, from: data))
            return (p.predicateFormat, p)
        }
    }

    @Test(arguments: stores)
    func applesArchivesDecode(_ store: String) throws {
        let archive = try Archive(Self.modelArchive(store))
        var seen: Set<String> = []
        #expect(archive.roots.count >= 6)
        for root in archive.roots {
            let (text, _) = try Self.describe(archive.standalone(root), archive, root)
            #expect(Self.expected.contains(text), "\(store) object \(root): \(text)")
            seen.insert(text)
        }
        #expect(seen == Self.expected)
    }

    @Test func decodedPredicatesEvaluateOnceAllowed() throws {
        let archive = try Archive(Self.modelArchive(Self.stores[0]))
        let lengths = try #require(archive.roots.first { archive.className($0) == "NSCompoundPredicate" && archive.objects[$0]["NSCompoundPredicateType"] == .integer(1) && (try? Self.describe(archive.standalone($0), archive, $0).0) == "length >= 3 AND length <= 50" })
        let p = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPredicate.self, from: archive.standalone(lengths)))
        #expect(throws: PredicateEvaluationError.self) { try p.evaluate(validating: "abcd") }
        p.allowEvaluation()
        #expect(p.evaluate(with: "abcd"))
        #expect(!p.evaluate(with: "ab"))
        let function = try #require(archive.roots.first { archive.className($0) == "NSFunctionExpression" })
        let e = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSExpression.self, from: archive.standalone(function)))
        e.allowEvaluation()
        #expect(e.expressionValue(with: ["pages": [1, 2, 3]], context: nil) as? Int == 3)
    }

    /// Our archive of each predicate names Apple's classes with Apple's `$classes`, keys and scalar values.
    @Test(arguments: stores)
    func ourArchivesHaveApplesClassTable(_ store: String) throws {
        let archive = try Archive(Self.modelArchive(store))
        for root in archive.roots {
            let apples = archive.standalone(root)
            let (text, object) = try Self.describe(apples, archive, root)
            let ours: Data
            switch object {
            case let p as NSPredicate: ours = try NSKeyedArchiver.archivedData(withRootObject: NSPredicate(format: p.predicateFormat), requiringSecureCoding: true)
            case let e as NSExpression: ours = try NSKeyedArchiver.archivedData(withRootObject: NSExpression(format: e.description), requiringSecureCoding: true)
            case let s as NSSortDescriptor: ours = try NSKeyedArchiver.archivedData(withRootObject: NSSortDescriptor(key: s.key, ascending: s.ascending, selector: s.selector), requiringSecureCoding: true)
            default: Issue.record("\(type(of: object))"); continue
            }
            let appleShapes = try Archive(PropertyListTree(apples)).shapes
            let ourShapes = try Archive(PropertyListTree(ours)).shapes
            #expect(appleShapes.contains { $0.hasPrefix(archive.className(root)! + " <") })
            #expect(ourShapes == appleShapes, "\(text)\n  only Apple's: \(appleShapes.subtracting(ourShapes).sorted())\n  only ours: \(ourShapes.subtracting(appleShapes).sorted())")
        }
    }
}

extension PropertyListTree {
    var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    var isString: Bool { stringValue != nil }
}
