import Foundation

/// A key the terminal table reacts to, decoded from the bytes a terminal sends.
public enum Key: Equatable, Sendable {
    case up, down, pageUp, pageDown, home, end
    /// A printable character (a Cyrillic index title included), Return as "\r", Escape as "\u{1B}".
    case character(Character)

    /// The keys in `bytes` (UTF-8 text and the escape sequences of the cursor and paging keys).
    public static func decode(_ bytes: [UInt8]) -> [Key] {
        let sequences: [[UInt8]: Key] = [
            Array("\u{1B}[A".utf8): .up, Array("\u{1B}[B".utf8): .down, Array("\u{1B}[5~".utf8): .pageUp,
            Array("\u{1B}[6~".utf8): .pageDown, Array("\u{1B}[H".utf8): .home, Array("\u{1B}[F".utf8): .end,
            Array("\u{1B}OA".utf8): .up, Array("\u{1B}OB".utf8): .down,
        ]
        var keys: [Key] = [], i = 0
        while i < bytes.count {
            if let (sequence, key) = sequences.first(where: { bytes[i...].starts(with: $0.key) }) {
                keys.append(key)
                i += sequence.count
                continue
            }
            let length = bytes[i] >= 0xF0 ? 4 : bytes[i] >= 0xE0 ? 3 : bytes[i] >= 0xC0 ? 2 : 1
            let end = min(i + length, bytes.count)
            if let text = String(bytes: bytes[i..<end], encoding: .utf8), let character = text.first { keys.append(.character(character)) }
            i = end
        }
        return keys
    }
}

/// Reads standard input on a thread of its own and hands the keys to the main queue.
public enum KeyReader {
    /// Starts reading; `handler` runs on the main queue with the keys of each read.
    public static func start(_ handler: @escaping @MainActor @Sendable ([Key]) -> Void) {
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 64)
            while true {
                let n = read(STDIN_FILENO, &buffer, buffer.count)
                if n <= 0 { return }
                let keys = Key.decode(Array(buffer[0..<n]))
                DispatchQueue.main.async { MainActor.assumeIsolated { handler(keys) } }
            }
        }
        thread.start()
    }
}
