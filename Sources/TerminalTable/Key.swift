import Foundation

/// A key the terminal table reacts to, decoded from the bytes a terminal sends.
public enum Key: Equatable, Sendable {
    case up, down, left, right, pageUp, pageDown, home, end, delete
    /// A printable character (a Cyrillic index title included), Return as "\r", Escape as "\u{1B}".
    case character(Character)
    /// An escape sequence the table has no meaning for, kept whole (so that none of its bytes is read as a
    /// key of its own).
    case unknown(String)

    /// The keys in `bytes`: UTF-8 text and the escape sequences xterm, VT220 and rxvt terminals (tmux
    /// included) send for the cursor, paging and editing keys (``escapeSequences``).
    public static func decode(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = [], i = 0
        while i < bytes.count {
            if bytes[i] == 0x1B, let (key, length) = escapeSequence(bytes, at: i) {
                keys.append(key)
                i += length
                continue
            }
            let length = bytes[i] >= 0xF0 ? 4 : bytes[i] >= 0xE0 ? 3 : bytes[i] >= 0xC0 ? 2 : 1
            let end = min(i + length, bytes.count)
            if let text = String(bytes: bytes[i..<end], encoding: .utf8), let character = text.first { keys.append(.character(character)) }
            i = end
        }
        return keys
    }

    /// The keys of CSI sequences (`ESC [` parameters, then a final byte) by final byte, or, for `~`, by the
    /// first parameter; and of SS3 sequences (`ESC O` and a letter). Modifiers (`ESC [1;5A`) do not change
    /// the key.
    static let escapeSequences: (final: [UInt8: Key], tilde: [String: Key], ss3: [UInt8: Key]) = (
        final: [UInt8(ascii: "A"): .up, UInt8(ascii: "B"): .down, UInt8(ascii: "C"): .right, UInt8(ascii: "D"): .left,
                UInt8(ascii: "H"): .home, UInt8(ascii: "F"): .end],
        tilde: ["1": .home, "7": .home, "4": .end, "8": .end, "5": .pageUp, "6": .pageDown, "3": .delete],
        ss3: [UInt8(ascii: "A"): .up, UInt8(ascii: "B"): .down, UInt8(ascii: "C"): .right, UInt8(ascii: "D"): .left,
              UInt8(ascii: "H"): .home, UInt8(ascii: "F"): .end])

    /// The key of the escape sequence at `start` and its length; `nil` for a lone Escape (or Escape before
    /// another key), which is then read as the character Escape.
    static func escapeSequence(_ bytes: [UInt8], at start: Int) -> (Key, Int)? {
        guard start + 1 < bytes.count else { return nil }
        let text = { (end: Int) in String(decoding: bytes[start..<end], as: UTF8.self) }
        switch bytes[start + 1] {
        case UInt8(ascii: "O"):
            guard start + 2 < bytes.count else { return (.unknown(text(start + 2)), 2) }
            return (escapeSequences.ss3[bytes[start + 2]] ?? .unknown(text(start + 3)), 3)
        case UInt8(ascii: "["):
            var end = start + 2
            while end < bytes.count, (0x20...0x3F).contains(bytes[end]) { end += 1 }
            guard end < bytes.count, (0x40...0x7E).contains(bytes[end]) else { return (.unknown(text(end)), end - start) }
            let parameters = String(decoding: bytes[(start + 2)..<end], as: UTF8.self)
            let key = bytes[end] == UInt8(ascii: "~")
                ? parameters.split(separator: ";").first.flatMap { escapeSequences.tilde[String($0)] }
                : escapeSequences.final[bytes[end]]
            return (key ?? .unknown(text(end + 1)), end + 1 - start)
        default:
            return nil
        }
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
