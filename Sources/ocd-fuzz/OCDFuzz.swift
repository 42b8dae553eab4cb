import Foundation
import OpenCoreData
import OpenCoreDataTesting
#if canImport(Glibc)
import Glibc
#endif

#if OCD_FUZZ
/// libFuzzer's driver (in `libclang_rt.fuzzer`, linked by `-sanitize=fuzzer`). SwiftPM gives an
/// executable's `main` another name on Linux (so tests can link it), which hides libFuzzer's own `main`;
/// our `main` therefore calls the driver itself.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// The target the driver's callback runs (set once, before the driver starts).
let selectedTarget = Locked(FuzzTarget.parser)

/// The libFuzzer entry point, exported under its C name for tools that look for it.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selectedTarget.withLock { $0 }.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
#endif

/// `ocd-fuzz TARGET [arguments]`, TARGET `parser` or `sql` (or the environment's `OCD_FUZZ_TARGET`).
///
/// Built with `-sanitize=fuzzer -DOCD_FUZZ` (Scripts/fuzz.sh), the arguments are libFuzzer's
/// (`-runs=N`, corpus folders, …). In a plain `swift build` it replays instead, through the same
/// functions: every file of the folders or files given, then `--random N` inputs of random bytes from
/// `--seed S` (default 1000 from seed 1); `--text FORMAT` checks one format. A failure aborts with the
/// predicate text, and a random input prints its seed first.
@main
struct OCDFuzz {
    static func main() {
        var arguments = CommandLine.arguments
        var target = ProcessInfo.processInfo.environment["OCD_FUZZ_TARGET"].flatMap(FuzzTarget.init(rawValue:))
        if arguments.count > 1, let named = FuzzTarget(rawValue: arguments[1]) {
            target = named
            arguments.remove(at: 1)
        }
        guard let target else {
            FileHandle.standardError.write(Data("usage: ocd-fuzz parser|sql [arguments]   (or OCD_FUZZ_TARGET=parser|sql)\n".utf8))
            exit(2)
        }
        #if OCD_FUZZ
        // libFuzzer's child processes (-minimize_crash, -fork) get only libFuzzer's arguments.
        setenv("OCD_FUZZ_TARGET", target.rawValue, 1)
        selectedTarget.withLock { $0 = target }
        if target == .sql { _ = SQLFuzzing.shared }  // open the store before the first input is timed
        var argc = CInt(arguments.count)
        var cStrings: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let status = cStrings.withUnsafeMutableBufferPointer { buffer -> CInt in
            var argv = buffer.baseAddress!
            return LLVMFuzzerRunDriver(&argc, &argv, fuzzTestOneInput)
        }
        exit(status)
        #else
        replay(target, Array(arguments.dropFirst()))
        #endif
    }

    /// Runs corpus files and random inputs through `target` without libFuzzer.
    static func replay(_ target: FuzzTarget, _ arguments: [String]) {
        var random = 1000
        var seed: UInt64 = 1
        var paths: [String] = []
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--random" where index + 1 < arguments.count:
                random = Int(arguments[index + 1]) ?? random
                index += 1
            case "--text" where index + 1 < arguments.count:
                // One input given as text: a format for `parser`, a predicate format (no arguments) for `sql`.
                let text = arguments[index + 1]
                if target == .sql {
                    SQLFuzzing.shared.check(NSPredicate(format: text))
                } else {
                    target.run(Array(text.utf8))
                }
                print("ocd-fuzz \(target.rawValue): \(text) agrees")
                exit(0)
            case "--seed" where index + 1 < arguments.count:
                seed = UInt64(arguments[index + 1]) ?? seed
                index += 1
            default:
                paths.append(arguments[index])
            }
            index += 1
        }
        var files = 0
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                FileHandle.standardError.write(Data("ocd-fuzz: no such file or folder \(path)\n".utf8))
                exit(2)
            }
            let urls = isFolder.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { URL(fileURLWithPath: path).appendingPathComponent($0) }
                : [URL(fileURLWithPath: path)]
            for url in urls {
                guard let data = try? Data(contentsOf: url) else { continue }
                target.run(Array(data))
                files += 1
            }
        }
        let start = Date()
        for i in 0..<random {
            var rng = SeededRandom(seed: seed &+ UInt64(i))
            let bytes = (0..<rng.int(0...96)).map { _ in UInt8(rng.int(0...255)) }
            currentSeed.withLock { $0 = seed &+ UInt64(i) }
            target.run(bytes)
        }
        currentSeed.withLock { $0 = nil }
        if target == .parser {
            let counts = ParserFuzzing.counts.withLock { $0 }
            print("ocd-fuzz parser: \(counts.parsed) formats parsed and round-tripped, \(counts.rejected) rejected with a positioned error")
        }
        if target == .sql {
            let counts = SQLFuzzing.shared.counts.withLock { $0 }
            print("ocd-fuzz sql: \(counts.compared) predicates compared, \(counts.skipped) skipped (memory refused or left out)")
        }
        print("ocd-fuzz \(target.rawValue): replayed \(files) files and \(random) random inputs (seeds \(seed)..<\(seed &+ UInt64(random))) in \(String(format: "%.1f", Date().timeIntervalSince(start))) s, no failure")
    }
}

/// The seed of the random input being replayed, printed by ``fuzzFailure(_:_:)``.
let currentSeed = Locked<UInt64?>(nil)
