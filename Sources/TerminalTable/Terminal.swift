#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The controlling terminal: keys one at a time without echo, the alternate screen and a hidden cursor
/// while the table runs, and the terminal as it was afterwards (``restore()``, also on SIGINT/SIGTERM).
///
/// Mirrors nothing in Core Data.
public final class Terminal: @unchecked Sendable {
    private var saved = termios()
    private var active = false
    private var signalSources: [DispatchSourceSignal] = []

    public init() {}

    /// The terminal's size in characters (80 × 24 when standard output is not a terminal).
    public static func size() -> (width: Int, height: Int) {
        var size = winsize()
        let status = withUnsafeMutablePointer(to: &size) { ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), $0) }
        return status == 0 && size.ws_col > 0 && size.ws_row > 0 ? (Int(size.ws_col), Int(size.ws_row)) : (80, 24)
    }

    /// Runs after the terminal is restored on SIGINT or SIGTERM, before the program exits (the demos remove
    /// their temporary store here, as they do on quit).
    public var onSignal: () -> Void = {}

    /// Turns off line editing and echo, switches to the alternate screen, and restores the terminal and
    /// exits on SIGINT or SIGTERM. Call on the main queue.
    public func enter() {
        tcgetattr(STDIN_FILENO, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { $0[Int(VMIN)] = 1; $0[Int(VTIME)] = 0 }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        active = true
        write("\u{1B}[?1049h\u{1B}[?25l")
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler { [self] in
                restore()
                onSignal()
                exit(128 + number)
            }
            source.resume()
            signalSources.append(source)
        }
    }

    /// Calls `handler` on the main queue when the terminal changes size (SIGWINCH).
    public func onResize(_ handler: @escaping @Sendable () -> Void) {
        signal(SIGWINCH, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .main)
        source.setEventHandler(handler: handler)
        source.resume()
        signalSources.append(source)
    }

    /// Leaves the alternate screen, shows the cursor and restores the terminal's modes.
    public func restore() {
        guard active else { return }
        active = false
        write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
    }

    /// Writes `text` to standard output at once.
    public func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var done = 0
            while done < bytes.count {
                let n = Foundation.write(STDOUT_FILENO, bytes.baseAddress! + done, bytes.count - done)
                if n <= 0 { return }
                done += n
            }
        }
    }
}
