/// The fuzzer's input read as a stream of decisions, one byte per small choice (as LLVM's
/// `FuzzedDataProvider` does), so that libFuzzer's byte mutations become small changes of the generated
/// predicate. Past the end every read is 0: a short input still makes a whole (simple) predicate.
///
/// It has the shape of `SeededRandom` (`int`, `chance`, `pick`) so that the seeded generators of the
/// tests carry over unchanged.
struct FuzzBytes {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The next byte, or 0 once the input is used up.
    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// An integer in `range` (one byte for ranges up to 256 values, two up to 65 536, else four).
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        let width = UInt64(range.upperBound - range.lowerBound) + 1
        var raw = UInt64(byte())
        if width > 0x100 { raw = raw << 8 | UInt64(byte()) }
        if width > 0x1_0000 { raw = raw << 16 | UInt64(byte()) << 8 | UInt64(byte()) }
        return range.lowerBound + Int(raw % width)
    }

    /// True with probability about `p` for a uniform byte.
    mutating func chance(_ p: Double) -> Bool { Double(byte()) < p * 256 }

    /// An element of a non-empty array.
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
}
