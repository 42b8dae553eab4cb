import Foundation
import OpenCoreDataPredicates

/// The keyed unarchiver of Core Data's compiled models: a `.mom` file, or the archive in a store's
/// `Z_MODELCACHE` row (docs/ModelFiles.md, "Compiled models"). An `NSCoder` whose objects are decoded by
/// the classes' own `init?(coder:)`, as `NSKeyedUnarchiver` decodes them on Apple platforms.
///
/// Why not swift-corelibs-foundation's `NSKeyedUnarchiver`: a model is a graph with cycles (an entity's
/// properties, relationships and their inverses, subentities), and that unarchiver caches an object only
/// once its `init?(coder:)` returns, so a reference back to it recurses until the stack overflows; it also
/// traps on classes outside the allowed list. Here:
/// - the archive is read as a property list first (screened, ≤ 16 MiB, ≤ 100,000 objects);
/// - every class is one of an explicit table (``ModelArchiveClasses``): the model's classes, Foundation's
///   values, and a class an app maps with `NSKeyedUnarchiver.setClass(_:forClassName:)`; predicates,
///   expressions and sort descriptors are cut out and decoded by the predicates module's checked
///   unarchiver;
/// - an object being decoded may register itself (``noteDecoding(_:by:)``), as Darwin's unarchiver hands out
///   an object while its `initWithCoder:` runs; any other reference back to an unfinished object is a cycle,
///   an error;
/// - nesting is bounded, every key's value is checked before it is used, and a failure (from here or from an
///   `init?(coder:)` through `failWithError(_:)`) stops decoding with a message naming where it happened
///   ("entity Book, attribute title: …").
final class ModelArchiveDecoder: NSCoder {
    /// How deep objects may nest, collections included (a model nests model → entities → entity →
    /// properties → property → fetch request → entity → …).
    static let maximumDepth = 256

    let objects: [PropertyListTree]
    let rootIndex: Int
    private var finished: [Int: Any] = [:]
    private var registered: [Int: AnyObject] = [:]
    private var unfinished: Set<Int> = []
    private var frames: [(index: Int, object: [String: PropertyListTree])] = []
    private var depth = 0
    private(set) var failure: (context: String, reason: String)?

    /// Reads the keyed archive `data`; throws ``ModelArchiveError`` when it is not one.
    init(archive data: Data) throws(ModelArchiveError) {
        guard data.count <= ArchiveValidator.maximumBytes else {
            throw ModelArchiveError(reason: "the archive is larger than \(ArchiveValidator.maximumBytes) bytes")
        }
        guard data.starts(with: Array("bplist00".utf8)) else {
            throw ModelArchiveError(reason: "not a compiled model: a .mom file and a model cache are binary property lists (bplist00)")
        }
        let tree: PropertyListTree
        do {
            try BinaryPropertyListScreen.check(Array(data))
            tree = try PropertyListTree(data)
        } catch {
            throw ModelArchiveError(reason: "not a readable binary property list (\(error))")
        }
        guard case .string("NSKeyedArchiver")? = tree["$archiver"], case .array(let objects)? = tree["$objects"],
              case .uid(let root)? = tree["$top"]?["root"] else {
            throw ModelArchiveError(reason: "not a keyed archive with a root object ($archiver, $objects, $top.root)")
        }
        guard objects.count <= ArchiveValidator.maximumObjects else {
            throw ModelArchiveError(reason: "the archive holds more than \(ArchiveValidator.maximumObjects) objects")
        }
        guard root > 0, root < objects.count else { throw ModelArchiveError(reason: "the root reference \(root) is out of range") }
        self.objects = objects
        self.rootIndex = root
        super.init()
    }

    /// What the object at `index` is, for an error: its class name, or the kind of value.
    func describeObject(at index: Int) -> String {
        if let name = className(at: index) { return name }
        switch objects[index] {
        case .string: return "a string"
        case .integer, .real, .bool: return "a number"
        case .data: return "data"
        default: return "a value"
        }
    }

    /// The class name the archive gives the object at `index`, if it is an object with a class.
    func className(at index: Int) -> String? {
        guard index > 0, index < objects.count, case .uid(let c)? = objects[index]["$class"], c > 0, c < objects.count,
              case .string(let name)? = objects[c]["$classname"] else { return nil }
        return name
    }

    /// Decodes the root object into `object` (already made, such as the model of
    /// `NSManagedObjectModel(contentsOf:)`), with `body` reading its keys as its `init?(coder:)` would.
    func decodeRoot(into object: AnyObject, _ body: () -> Bool) throws(ModelArchiveError) {
        guard case .dictionary(let dict) = objects[rootIndex] else { throw ModelArchiveError(reason: "the root is not an object") }
        unfinished.insert(rootIndex)
        registered[rootIndex] = object
        frames.append((rootIndex, dict))
        let ok = body()
        frames.removeLast()
        unfinished.remove(rootIndex)
        try check(ok)
        finished[rootIndex] = object
    }

    /// Decodes the root object, which must be of `cls`.
    func decodeRoot<T>(as cls: T.Type) throws(ModelArchiveError) -> T {
        let object = reference(rootIndex, allowed: [ModelArchiveClasses.anyClass])
        try check(object != nil)
        guard let typed = object as? T else {
            throw ModelArchiveError(reason: "the archive holds \(describeObject(at: rootIndex)), not an object of class \(T.self)")
        }
        return typed
    }

    private func check(_ ok: Bool) throws(ModelArchiveError) {
        if let failure { throw ModelArchiveError(context: failure.context, reason: failure.reason) }
        guard ok else { throw ModelArchiveError(reason: "the archive could not be decoded") }
    }

    // MARK: The objects being decoded

    /// Mirrors what Darwin's unarchiver does when it allocates an object before its `initWithCoder:`: from
    /// here on, references to the object being decoded by `coder` return `object`. Called by the model
    /// classes' `init?(coder:)` right after `super.init()`; no effect for another coder.
    static func noteDecoding(_ object: AnyObject, by coder: NSCoder) {
        guard let decoder = coder as? ModelArchiveDecoder, let frame = decoder.frames.last else { return }
        decoder.registered[frame.index] = object
    }

    /// Records a failure on `coder` (the first one wins) and returns `false`, for the `init?(coder:)` of the
    /// model classes.
    /// Another coder whose policy is to raise is not told (Foundation on Linux would trap): the `nil` from
    /// `init?(coder:)` is its error then.
    @discardableResult
    static func failed(_ coder: NSCoder, _ reason: String) -> Bool {
        guard coder is ModelArchiveDecoder || coder.decodingFailurePolicy == .setErrorAndReturn else { return false }
        coder.failWithError(NSError(domain: NSCocoaErrorDomain, code: CocoaError.coderReadCorrupt.rawValue,
                                    userInfo: [NSDebugDescriptionErrorKey: reason]))
        return false
    }

    /// The same, returning `nil`.
    static func fail<T>(_ coder: NSCoder, _ reason: String) -> T? {
        failed(coder, reason)
        return nil
    }

    /// Where decoding is: the entities, properties and other named objects on the way to the current one.
    var context: String {
        frames.compactMap { frame in ModelArchiveClasses.describe(frame.object, className: className(at: frame.index), objects: objects) }
            .joined(separator: ", ")
    }

    func record(_ reason: String) {
        if failure == nil { failure = (context, reason) }
    }

    /// The value stored under `key` in the object being decoded.
    func value(forKey key: String) -> PropertyListTree? {
        guard key != "$class" else { return nil }
        return frames.last?.object[key]
    }

    // MARK: Objects

    /// The object at `index`, which must be of one of `allowed`; `nil` (with a failure recorded) otherwise.
    func reference(_ index: Int, allowed: [AnyClass]) -> Any? {
        guard failure == nil else { return nil }
        guard index >= 0, index < objects.count else { record("reference \(index) is out of range"); return nil }
        if index == 0 { return nil }  // $null
        if let done = finished[index] { return ModelArchiveClasses.check(done, allowed: allowed, in: self) }
        if unfinished.contains(index) {
            guard let object = registered[index] else {
                record("a reference cycle through object \(index) (\(className(at: index) ?? "a value"))")
                return nil
            }
            return ModelArchiveClasses.check(object, allowed: allowed, in: self)
        }
        guard depth < Self.maximumDepth else { record("objects nest more than \(Self.maximumDepth) levels deep"); return nil }
        depth += 1
        unfinished.insert(index)
        defer { unfinished.remove(index); registered[index] = nil; depth -= 1 }
        guard let object = ModelArchiveClasses.decode(index, allowed: allowed, in: self) else {
            if failure == nil { record("object \(index) (\(className(at: index) ?? "a value")) could not be decoded") }
            return nil
        }
        finished[index] = object
        return object
    }

    /// Runs the `init?(coder:)` of `cls` on the object at `index`.
    func instantiate(_ cls: NSCoding.Type, at index: Int, _ dict: [String: PropertyListTree]) -> Any? {
        frames.append((index, dict))
        defer { frames.removeLast() }
        let object = cls.init(coder: self)
        return failure == nil ? object : nil
    }

    /// A keyed archive of the object at `index` and what it refers to alone, for the predicates module's
    /// checked unarchiver (``ArchiveValidator``).
    func standaloneArchive(of index: Int) -> Data {
        var order = [0], number = [0: 0], pending = [index]
        while let next = pending.popLast() {
            guard number[next] == nil, next < objects.count else { continue }
            number[next] = order.count
            order.append(next)
            Self.references(in: objects[next], into: &pending)
        }
        func renumber(_ value: PropertyListTree) -> PropertyListTree {
            switch value {
            case .uid(let i): return .uid(number[i] ?? 0)
            case .array(let items): return .array(items.map(renumber))
            case .dictionary(let d): return .dictionary(d.mapValues(renumber))
            default: return value
            }
        }
        return PropertyListTree.dictionary([
            "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
            "$top": .dictionary(["root": .uid(number[index]!)]), "$objects": .array(order.map { renumber(objects[$0]) }),
        ]).binaryData()
    }

    private static func references(in value: PropertyListTree, into list: inout [Int]) {
        switch value {
        case .uid(let i): list.append(i)
        case .array(let items): for item in items { references(in: item, into: &list) }
        case .dictionary(let d): for v in d.values { references(in: v, into: &list) }
        default: break
        }
    }

    // MARK: NSCoder

    override var allowsKeyedCoding: Bool { true }
    override var requiresSecureCoding: Bool { true }
    override var systemVersion: UInt32 { 1000 }
    override var allowedClasses: [AnyClass]? { nil }
    override var error: Error? {
        failure.map { NSError(domain: NSCocoaErrorDomain, code: CocoaError.coderReadCorrupt.rawValue,
                              userInfo: [NSDebugDescriptionErrorKey: ModelArchiveError(context: $0.context, reason: $0.reason).description]) }
    }

    override func failWithError(_ error: Error) {
        let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
        record(reason)
    }

    override func containsValue(forKey key: String) -> Bool { value(forKey: key) != nil }

    override func decodeObject(forKey key: String) -> Any? {
        decodeObject(of: [ModelArchiveClasses.anyClass], forKey: key)
    }

    override func decodeObject(of classes: [AnyClass]?, forKey key: String) -> Any? {
        guard let value = value(forKey: key) else { return nil }
        guard case .uid(let index) = value else { record("\(key) is not an object reference"); return nil }
        return reference(index, allowed: classes ?? [ModelArchiveClasses.anyClass])
    }

    override func decodeBool(forKey key: String) -> Bool {
        switch value(forKey: key) {
        case nil: return false
        case .bool(let b)?: return b
        case .integer(let i)?: return i != 0
        default: record("\(key) is not a Boolean"); return false
        }
    }

    override func decodeInt64(forKey key: String) -> Int64 {
        switch value(forKey: key) {
        case nil: return 0
        case .integer(let i)?: return i
        case .bool(let b)?: return b ? 1 : 0
        case .real(let d)? where d.isFinite && d >= -0x1p63 && d < 0x1p63: return Int64(d)
        default: record("\(key) is not an integer"); return 0
        }
    }

    override func decodeInteger(forKey key: String) -> Int { Int(decodeInt64(forKey: key)) }

    override func decodeInt32(forKey key: String) -> Int32 {
        let value = decodeInt64(forKey: key)
        guard let narrow = Int32(exactly: value) else { record("\(key) (\(value)) does not fit in 32 bits"); return 0 }
        return narrow
    }

    override func decodeCInt(forKey key: String) -> Int32 { decodeInt32(forKey: key) }

    override func decodeDouble(forKey key: String) -> Double {
        switch value(forKey: key) {
        case nil: return 0
        case .real(let d)?: return d
        case .integer(let i)?: return Double(i)
        case .bool(let b)?: return b ? 1 : 0
        default: record("\(key) is not a number"); return 0
        }
    }

    override func decodeFloat(forKey key: String) -> Float { Float(decodeDouble(forKey: key)) }
}

/// Why a compiled model (a `.mom` file, or a store's model cache) could not be read: where in the model
/// (`entity Book, attribute title`) and why.
struct ModelArchiveError: Error, CustomStringConvertible {
    var context: String = ""
    let reason: String

    var description: String { context.isEmpty ? reason : "\(context): \(reason)" }
}
