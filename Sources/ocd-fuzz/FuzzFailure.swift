import Foundation

/// Reports a property violation and aborts, which libFuzzer records as a crash (with the input that
/// caused it written to `crash-…`). The message goes to standard error first, unbuffered.
func fuzzFailure(_ target: String, _ message: String) -> Never {
    if let seed = currentSeed.withLock({ $0 }) { FileHandle.standardError.write(Data("ocd-fuzz \(target): random input of seed \(seed)\n".utf8)) }
    FileHandle.standardError.write(Data("ocd-fuzz \(target): \(message)\n".utf8))
    abort()
}
