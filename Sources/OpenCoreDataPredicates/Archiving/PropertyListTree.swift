import Foundation

/// A property list as a tree of values, a keyed archive's references (`CF$UID`) being values of their own:
/// what `AppleClassTable` reads and writes. Foundation on Linux parses such references into its internal
/// `_NSKeyedArchiverUID`, which no public API makes, so the tree is written by ``binaryData()``, a writer
/// of Apple's binary format (`bplist00`, as `CFBinaryPList.c` describes it).
package indirect enum PropertyListTree: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    case date(Date)
    case data(Data)
    case uid(Int)
    case array([PropertyListTree])
    case dictionary([String: PropertyListTree])

    /// Parses `data` (binary or XML) with Foundation's parser.
    package init(_ data: Data) throws {
        self = try Self.converting(PropertyListSerialization.propertyList(from: data, options: [], format: nil))
    }

    private static func converting(_ value: Any) throws -> PropertyListTree {
        if type(of: value) == Bool.self { return .bool(value as! Bool) }
        switch value {
        case let s as String: return .string(s)
        case let n as NSNumber:
            switch String(cString: n.objCType) {
            case "c", "B": return .bool(n.boolValue)
            case "f", "d": return .real(n.doubleValue)
            default: return .integer(n.int64Value)
            }
        case let d as Date: return .date(d)
        case let d as Data: return .data(d)
        case let a as [Any]: return .array(try a.map(converting))
        case let d as [String: Any]: return .dictionary(try d.mapValues(converting))
        default:
            guard let uid = ArchiveValidator.uid(value) else {
                throw PredicateArchivingError("the archive holds a \(type(of: value)), which is not a property list value")
            }
            return .uid(uid)
        }
    }

    package subscript(key: String) -> PropertyListTree? {
        if case .dictionary(let d) = self { return d[key] }
        return nil
    }

    /// The binary form. Every value is an object of its own (none shared), dictionary keys in order.
    package func binaryData() -> Data {
        var writer = BinaryWriter()
        _ = writer.add(self)
        return writer.finish()
    }
}

/// Lays out the objects of a binary property list: collections refer to their elements by index.
private struct BinaryWriter {
    var values: [PropertyListTree] = []
    var references: [[Int]] = []

    mutating func add(_ value: PropertyListTree) -> Int {
        let index = values.count
        values.append(value)
        references.append([])
        switch value {
        case .array(let items):
            references[index] = items.map { add($0) }
        case .dictionary(let d):
            let keys = d.keys.sorted()
            references[index] = keys.map { add(.string($0)) } + keys.map { add(d[$0]!) }
        default: break
        }
        return index
    }

    func finish() -> Data {
        // CoreFoundation's reader wants the object count itself to fit the references' size.
        let refSize = Self.byteCount(UInt64(values.count))
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for (value, refs) in zip(values, references) {
            offsets.append(out.count)
            Self.write(value, refs, refSize, into: &out)
        }
        let tableOffset = out.count
        let offsetSize = Self.byteCount(UInt64(tableOffset))
        for offset in offsets { Self.append(UInt64(offset), size: offsetSize, to: &out) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        Self.append(UInt64(values.count), size: 8, to: &out)
        Self.append(0, size: 8, to: &out)  // the top object
        Self.append(UInt64(tableOffset), size: 8, to: &out)
        return Data(out)
    }

    /// The smallest of 1, 2, 4, 8 bytes that holds `value`.
    static func byteCount(_ value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }

    static func append(_ value: UInt64, size: Int, to out: inout [UInt8]) {
        for i in stride(from: size - 1, through: 0, by: -1) { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    /// A marker byte whose low nibble is the count, or 15 followed by the count as an integer object.
    static func marker(_ type: UInt8, count: Int, to out: inout [UInt8]) {
        if count < 15 { out.append(type << 4 | UInt8(count)); return }
        out.append(type << 4 | 0x0F)
        integer(Int64(count), to: &out)
    }

    static func integer(_ value: Int64, to out: inout [UInt8]) {
        // Negative integers take eight bytes, as CoreFoundation writes them.
        let size = value < 0 ? 8 : byteCount(UInt64(value))
        out.append(0x10 | UInt8(size.trailingZeroBitCount))
        append(UInt64(bitPattern: value), size: size, to: &out)
    }

    static func write(_ value: PropertyListTree, _ refs: [Int], _ refSize: Int, into out: inout [UInt8]) {
        switch value {
        case .bool(let b): out.append(b ? 0x09 : 0x08)
        case .integer(let i): integer(i, to: &out)
        case .real(let d):
            out.append(0x23)
            append(d.bitPattern, size: 8, to: &out)
        case .date(let d):
            out.append(0x33)
            append(d.timeIntervalSinceReferenceDate.bitPattern, size: 8, to: &out)
        case .data(let d):
            marker(0x4, count: d.count, to: &out)
            out += d
        case .string(let s):
            if s.utf8.allSatisfy({ $0 < 0x80 }) {
                marker(0x5, count: s.utf8.count, to: &out)
                out += s.utf8
            } else {
                marker(0x6, count: s.utf16.count, to: &out)
                for unit in s.utf16 { append(UInt64(unit), size: 2, to: &out) }
            }
        case .uid(let u):
            let size = byteCount(UInt64(u))
            out.append(0x80 | UInt8(size - 1))
            append(UInt64(u), size: size, to: &out)
        case .array:
            marker(0xA, count: refs.count, to: &out)
            for r in refs { append(UInt64(r), size: refSize, to: &out) }
        case .dictionary:
            marker(0xD, count: refs.count / 2, to: &out)
            for r in refs { append(UInt64(r), size: refSize, to: &out) }
        }
    }
}
