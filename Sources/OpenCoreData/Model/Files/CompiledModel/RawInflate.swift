import Foundation

/// Decompresses raw DEFLATE data (RFC 1951, no zlib or gzip header): the form Core Data stores its
/// compiled model in, in a SQLite store's `Z_MODELCACHE` table. Written here so that the library needs no
/// zlib: the data is small (a few kilobytes) and read once.
///
/// Every read is checked against the input, every back reference against the output so far, and the
/// output is bounded: a truncated or corrupt stream, or one that would grow past `limit`, throws
/// ``RawInflate/Failure``; nothing traps.
enum RawInflate {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The decompressed bytes of `data`, at most `limit` of them.
    static func inflate(_ data: Data, limit: Int = 64 << 20) throws -> Data {
        var state = State(input: [UInt8](data), limit: limit)
        var last = false
        while !last {
            last = try state.bits(1) == 1
            switch try state.bits(2) {
            case 0: try state.storedBlock()
            case 1: try state.codedBlock(lengths: Fixed.lengths, distances: Fixed.distances)
            case 2:
                let (lengths, distances) = try state.dynamicTables()
                try state.codedBlock(lengths: lengths, distances: distances)
            default: throw Failure(description: "a block of the reserved type 3")
            }
        }
        return Data(state.output)
    }

    /// A canonical Huffman code: how many codes have each length (1…15), and the symbols in code order.
    struct Huffman {
        var counts = [Int](repeating: 0, count: 16)
        var symbols: [Int] = []
        /// Bit patterns no code uses (0 for a complete code), or `nil` when the lengths over-subscribe.
        var unused: Int?

        /// Whether a code may leave bit patterns unused.
        enum Completeness { case required, singleSymbolMayBeIncomplete, mayBeIncomplete }

        /// The code of `lengths` (one per symbol, 0…15, 0 for unused), as given.
        init(lengths: [Int]) {
            for length in lengths { counts[length] += 1 }
            var left: Int? = 1
            for length in 1..<16 {
                left = left.map { $0 * 2 - counts[length] }
                if let l = left, l < 0 { left = nil }
            }
            unused = left
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
            symbols = [Int](repeating: 0, count: lengths.count)
            for (symbol, length) in lengths.enumerated() where length != 0 {
                symbols[offsets[length]] = symbol
                offsets[length] += 1
            }
        }

        /// The code of `lengths` read from the data: an over-subscribed set of lengths, or an incomplete
        /// one that `completeness` does not allow, throws.
        static func checked(_ lengths: [Int], _ completeness: Completeness = .singleSymbolMayBeIncomplete) throws -> Huffman {
            let code = Huffman(lengths: lengths)
            guard let unused = code.unused else { throw Failure(description: "an over-subscribed Huffman code") }
            let used = lengths.count - code.counts[0]
            guard unused == 0 || completeness == .mayBeIncomplete || (completeness == .singleSymbolMayBeIncomplete && used <= 1) else {
                throw Failure(description: "an incomplete Huffman code")
            }
            return code
        }
    }

    /// The fixed codes of block type 1.
    enum Fixed {
        static let lengths = Huffman(lengths: [Int](repeating: 8, count: 144) + [Int](repeating: 9, count: 112)
                                     + [Int](repeating: 7, count: 24) + [Int](repeating: 8, count: 8))
        static let distances = Huffman(lengths: [Int](repeating: 5, count: 30))
    }

    static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
                               2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]
    /// The order in which a dynamic block lists the code lengths of its code-length code.
    static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    struct State {
        let input: [UInt8]
        let limit: Int
        var position = 0
        var bitBuffer = 0
        var bitCount = 0
        var output: [UInt8] = []

        init(input: [UInt8], limit: Int) {
            self.input = input
            self.limit = limit
        }

        /// The next `count` bits (0…16), least significant first.
        mutating func bits(_ count: Int) throws -> Int {
            while bitCount < count {
                guard position < input.count else { throw Failure(description: "the data ends in the middle of a block") }
                bitBuffer |= Int(input[position]) << bitCount
                position += 1
                bitCount += 8
            }
            let value = bitBuffer & ((1 << count) - 1)
            bitBuffer >>= count
            bitCount -= count
            return value
        }

        mutating func append(_ byte: UInt8) throws {
            guard output.count < limit else { throw Failure(description: "the data inflates to more than \(limit) bytes") }
            output.append(byte)
        }

        /// Block type 0: the bytes as they are, after their length and its complement.
        mutating func storedBlock() throws {
            bitBuffer = 0
            bitCount = 0
            guard position + 4 <= input.count else { throw Failure(description: "the data ends in a stored block's header") }
            let length = Int(input[position]) | Int(input[position + 1]) << 8
            let complement = Int(input[position + 2]) | Int(input[position + 3]) << 8
            guard length == ~complement & 0xFFFF else { throw Failure(description: "a stored block's length does not match its complement") }
            position += 4
            guard position + length <= input.count else { throw Failure(description: "the data ends in a stored block") }
            for byte in input[position..<(position + length)] { try append(byte) }
            position += length
        }

        /// One symbol of `code`, read a bit at a time.
        mutating func decode(_ code: Huffman) throws -> Int {
            var value = 0, first = 0, index = 0
            for length in 1..<16 {
                value |= try bits(1)
                let count = code.counts[length]
                if value - first < count { return code.symbols[index + value - first] }
                index += count
                first = (first + count) << 1
                value <<= 1
            }
            throw Failure(description: "an invalid Huffman code in the data")
        }

        /// The literal/length and distance codes of a dynamic block (type 2).
        mutating func dynamicTables() throws -> (Huffman, Huffman) {
            let literalCount = try bits(5) + 257, distanceCount = try bits(5) + 1, codeLengthCount = try bits(4) + 4
            guard literalCount <= 286, distanceCount <= 30 else { throw Failure(description: "too many codes in a dynamic block") }
            var codeLengths = [Int](repeating: 0, count: 19)
            for i in 0..<codeLengthCount { codeLengths[codeLengthOrder[i]] = try bits(3) }
            let codeLengthCode = try Huffman.checked(codeLengths, .required)
            var lengths: [Int] = []
            while lengths.count < literalCount + distanceCount {
                let symbol = try decode(codeLengthCode)
                switch symbol {
                case 0...15: lengths.append(symbol)
                case 16:
                    guard let previous = lengths.last else { throw Failure(description: "a repeated code length with nothing before it") }
                    lengths += [Int](repeating: previous, count: 3 + (try bits(2)))
                case 17: lengths += [Int](repeating: 0, count: 3 + (try bits(3)))
                default: lengths += [Int](repeating: 0, count: 11 + (try bits(7)))
                }
            }
            guard lengths.count == literalCount + distanceCount else { throw Failure(description: "code lengths run past their count") }
            guard lengths[256] != 0 else { throw Failure(description: "a dynamic block without an end-of-block code") }
            return (try Huffman.checked(Array(lengths[..<literalCount])), try Huffman.checked(Array(lengths[literalCount...])))
        }

        /// Literals and back references up to the end-of-block symbol.
        mutating func codedBlock(lengths: Huffman, distances: Huffman) throws {
            while true {
                let symbol = try decode(lengths)
                if symbol < 256 { try append(UInt8(symbol)); continue }
                if symbol == 256 { return }
                let lengthIndex = symbol - 257
                guard lengthIndex < lengthBase.count else { throw Failure(description: "an invalid length symbol \(symbol)") }
                let length = lengthBase[lengthIndex] + (try bits(lengthExtra[lengthIndex]))
                let distanceSymbol = try decode(distances)
                guard distanceSymbol < distanceBase.count else { throw Failure(description: "an invalid distance symbol \(distanceSymbol)") }
                let distance = distanceBase[distanceSymbol] + (try bits(distanceExtra[distanceSymbol]))
                guard distance <= output.count else { throw Failure(description: "a back reference before the start of the data") }
                for _ in 0..<length { try append(output[output.count - distance]) }
            }
        }
    }
}
