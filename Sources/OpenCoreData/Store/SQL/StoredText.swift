import Foundation

/// Strings are stored in canonical composed form (NFC), so that a database's byte comparison (SQLite's, PostgreSQL's `COLLATE "C"`) agrees with
/// Swift's `==` (canonical equivalence) and its order.
enum StoredText {
    static func store(_ s: String) -> String {
        let stable = s.utf8.withContiguousStorageIfAvailable(isStable) ?? s.unicodeScalars.allSatisfy(isStable)
        return stable ? s : s.precomposedStringWithCanonicalMapping
    }

    /// Scalars that NFC leaves alone whatever surrounds them (NFC_Quick_Check = Yes, combining class 0,
    /// never the second part of a composition): Latin-1 and Latin Extended below the combining marks,
    /// Cyrillic letters, CJK ideographs and Hangul syllables. Strings made only of these skip normalization.
    @inline(__always)
    static func isStable(_ scalar: Unicode.Scalar) -> Bool { isStable(scalar: scalar.value) }

    @inline(__always)
    private static func isStable(scalar: UInt32) -> Bool {
        switch scalar {
        case 0..<0x300, 0x400...0x482, 0x48A...0x52F, 0x4E00...0x9FFF, 0xAC00...0xD7A3: return true
        default: return false
        }
    }

    /// Whether every scalar of `utf8` (valid UTF-8, as a Swift string's) is stable, decoded in place.
    static func isStable(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard var p = utf8.baseAddress else { return true }
        let end = p + utf8.count
        // A lead byte is followed by its continuation bytes: `p[1]`, `p[2]` are within the buffer.
        while p < end {
            let lead = UInt32(p[0])
            if lead < 0x80 {
                p += 1
            } else if lead < 0xE0 {
                // Below U+0300 (lead bytes up to 0xCB), and the Cyrillic letters U+0400–U+047F (0xD0, 0xD1).
                guard lead < 0xCC || lead == 0xD0 || lead == 0xD1 || isStable(scalar: (lead & 0x1F) << 6 | UInt32(p[1] & 0x3F)) else {
                    return false
                }
                p += 2
            } else if lead < 0xF0 {
                guard isStable(scalar: (lead & 0x0F) << 12 | UInt32(p[1] & 0x3F) << 6 | UInt32(p[2] & 0x3F)) else { return false }
                p += 3
            } else {
                return false  // beyond the Basic Multilingual Plane: no stable scalar there
            }
        }
        return true
    }
}
