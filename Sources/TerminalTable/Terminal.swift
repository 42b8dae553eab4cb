#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The controlling terminal: keys one at a time without echo, the alternate screen and a hidden cursor
/// while the table runs, and the terminal as it was afterwards (``restore()``, also on SIGINT/SIGTERM and
/// while the program is suspended with Ctrl-Z).
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

    /// Runs on the main queue when the program comes back from a suspend (Ctrl-Z, then `fg`), with the
    /// terminal raw again and the alternate screen cleared: the table draws itself again here.
    public var onResume: () -> Void = {}

    /// Turns off line editing and echo, switches to the alternate screen, and restores the terminal and
    /// exits on SIGINT or SIGTERM; on Ctrl-Z (SIGTSTP) restores it, stops, and takes it over again on `fg`.
    /// Call on the main queue.
    public func enter() {
        takeOver()
        signal(SIGTSTP, SIG_IGN)
        let suspend = DispatchSource.makeSignalSource(signal: SIGTSTP, queue: .main)
        suspend.setEventHandler { [self] in
            restore()
            stop()
            takeOver()
            onResume()
        }
        suspend.resume()
        signalSources.append(suspend)
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

    /// Raw mode (no line editing, echo or flow control; keys one at a time), the alternate screen, no
    /// cursor; the terminal's modes as they are now are kept for ``restore()``.
    private func takeOver() {
        tcgetattr(STDIN_FILENO, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { $0[Int(VMIN)] = 1; $0[Int(VTIME)] = 0 }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        active = true
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
    }

    /// Stops the process as Ctrl-Z would have without the handler (SIGTSTP's default action), and returns
    /// when it is continued (`fg`, SIGCONT). The signal is raised on this thread with it unblocked here
    /// (a queue's thread may block it), so that it is delivered before `raise` returns.
    private func stop() {
        let handler = signal(SIGTSTP, SIG_DFL)
        var tstp = sigset_t(), before = sigset_t()
        sigemptyset(&tstp)
        sigaddset(&tstp, SIGTSTP)
        pthread_sigmask(SIG_UNBLOCK, &tstp, &before)
        raise(SIGTSTP)
        pthread_sigmask(SIG_SETMASK, &before, nil)
        signal(SIGTSTP, handler)
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
