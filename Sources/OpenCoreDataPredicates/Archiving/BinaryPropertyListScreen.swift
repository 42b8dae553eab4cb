import Foundation

/// Screens a binary property list (`bplist00`) before swift-corelibs-foundation's parser reads it.
/// That parser builds what the bytes say and bridges it to Swift; a set, or a dictionary key, holding a
/// keyed-archive reference (`CF$UID`) makes the bridge dereference a bad pointer (found by the archive
/// fuzz at 100,000 cases). A keyed archive never contains a set and its dictionary keys are strings,
/// so anything else is refused here, with every offset, count and reference checked against the data.
///
/// The format (Apple's `CFBinaryPList.c` describes it): the header, objects each starting with a marker
/// byte (type in the high nibble, count or size in the low one, 15 meaning "an integer object follows"),
/// an offset table, and a 32-byte trailer giving the offset and reference sizes, the object count, the
/// top object and the offset table's position.
package enum BinaryPropertyListScreen {
    package struct Refused: Error, CustomStringConvertible {
        package let description: String
    }

    /// Throws ``Refused`` unless `bytes` (a `bplist00` file) is made only of the objects a keyed archive
    /// uses, with dictionary keys that are strings. Other data (XML) passes untouched.
    package static func check(_ bytes: [UInt8]) throws {
        guard bytes.starts(with: Array("bplist00".utf8)) else { return }
        guard bytes.count >= 8 + 32 else { throw Refused(description: "a truncated binary property list") }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6]), refSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(refSize) else { throw Refused(description: "bad sizes in the trailer") }
        let count = try integer(bytes, at: trailer + 8, size: 8, end: bytes.count)
        let tableStart = try integer(bytes, at: trailer + 24, size: 8, end: bytes.count)
        guard count > 0, count <= ArchiveValidator.maximumObjects,
              tableStart >= 8, tableStart <= trailer, count.multipliedReportingOverflow(by: offsetSize).partialValue <= trailer - tableStart,
              try integer(bytes, at: trailer + 16, size: 8, end: bytes.count) < count else {
            throw Refused(description: "a bad object table")
        }
        var offsets = [Int](repeating: 0, count: count)
        for i in 0..<count {
            offsets[i] = try integer(bytes, at: tableStart + i * offsetSize, size: offsetSize, end: tableStart + count * offsetSize)
            guard offsets[i] >= 8, offsets[i] < tableStart else { throw Refused(description: "an object outside the object area") }
        }
        for offset in offsets {
            let marker = bytes[offset]
            switch marker >> 4 {
            case 0x0, 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x8:
                continue  // null/bool/fill, integer, real, date, data, strings, UID: read by the parser itself
            case 0xA, 0xD:
                var at = offset + 1
                let n = try length(bytes, marker: marker, at: &at, end: tableStart)
                let refs = marker >> 4 == 0xD ? 2 * n : n
                guard at + refs * refSize <= tableStart else { throw Refused(description: "a collection beyond the object area") }
                for r in 0..<refs {
                    let ref = try integer(bytes, at: at + r * refSize, size: refSize, end: tableStart)
                    guard ref < count else { throw Refused(description: "a reference out of range") }
                    if marker >> 4 == 0xD, r < n, ![0x5, 0x6].contains(bytes[offsets[ref]] >> 4) {
                        throw Refused(description: "a dictionary key that is not a string")
                    }
                }
            default:
                throw Refused(description: "an object of type 0x\(String(marker >> 4, radix: 16)) (sets and unknown types do not occur in keyed archives)")
            }
        }
    }

    /// The count of a collection: the marker's low nibble, or the integer object after it.
    private static func length(_ bytes: [UInt8], marker: UInt8, at: inout Int, end: Int) throws -> Int {
        let nibble = Int(marker & 0x0F)
        guard nibble == 0x0F else { return nibble }
        guard at < end, bytes[at] >> 4 == 0x1 else { throw Refused(description: "a bad collection count") }
        let size = 1 << Int(bytes[at] & 0x0F)
        guard size <= 8 else { throw Refused(description: "a bad collection count") }
        let n = try integer(bytes, at: at + 1, size: size, end: end)
        guard n <= end else { throw Refused(description: "a collection count beyond the data") }
        at += 1 + size
        return n
    }

    /// A big-endian unsigned integer of `size` bytes at `at`, which must end by `end`; at most `Int.max`.
    private static func integer(_ bytes: [UInt8], at: Int, size: Int, end: Int) throws -> Int {
        guard at >= 0, size <= 8, at <= end - size, end <= bytes.count else { throw Refused(description: "a read beyond the data") }
        var value: UInt64 = 0
        for i in 0..<size { value = value << 8 | UInt64(bytes[at + i]) }
        guard value <= UInt64(Int.max) else { throw Refused(description: "an integer out of range") }
        return Int(value)
    }
}
