import OpenCoreData
import OpenCoreDataPredicates

/// The `parser` target: bytes → text → `NSPredicate(validatingFormat:)`. A malformed format must throw a
/// `PredicateFormatError` whose offset lies inside the text; a format that parses must print
/// (`predicateFormat`) to text that parses again to an equal predicate and prints the same; evaluating
/// it on a sample object may throw but never trap. Nothing may crash or hang.
enum ParserFuzzing {
    /// Values for `%@`, `%K`, `%d`… in the fuzzed text: a string (also a key), numbers, nil, a date.
    /// No collection: Found 4 in docs/LongRuns.md (an array argument prints as `{…}`, which reparses
    /// to another node).
    static var arguments: [Any] { ["name", 42, 2.5, NSNull(), Date(timeIntervalSinceReferenceDate: 1000), "price"] }

    /// The object predicates are evaluated against.
    static var sample: [String: Any] { [
        "name": "Колбаса «Молочная»", "price": 420, "weight": 1.5, "flag": true, "nothing": NSNull(),
        "tags": ["red", "green"], "items": [["name": "a", "price": 5] as [String: Any]],
        "owner": ["name": "Ann", "age": 40] as [String: Any], "created": Date(timeIntervalSinceReferenceDate: 1000),
    ] }

    /// Inputs that parsed (and round-tripped) and inputs rejected with a positioned error.
    static let counts = Locked((parsed: 0, rejected: 0))

    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let predicate: NSPredicate
        do {
            predicate = try NSPredicate(validatingFormat: text, argumentArray: arguments)
        } catch let error as PredicateFormatError {
            if error.offset < 0 || error.offset > text.unicodeScalars.count {
                fuzzFailure("parser", "diagnostic offset \(error.offset) outside \(text.debugDescription)")
            }
            counts.withLock { $0.rejected += 1 }
            return
        } catch {
            fuzzFailure("parser", "unexpected error type \(type(of: error)) for \(text.debugDescription)")
        }
        let printed = predicate.predicateFormat
        let again: NSPredicate
        do {
            again = try NSPredicate(validatingFormat: printed, argumentArray: [])
        } catch let error as PredicateFormatError where error.kind == .tooDeep(limit: PredicateParser.maximumDepth) {
            return  // Found 5 in docs/LongRuns.md: the print nests deeper than the parser accepts
        } catch {
            fuzzFailure("parser", "\(text.debugDescription) parsed, but its print \(printed.debugDescription) does not: \(error)")
        }
        if again.node != predicate.node {
            fuzzFailure("parser", "round trip changed \(text.debugDescription): printed \(printed.debugDescription), reprinted \(again.predicateFormat.debugDescription)\n  parsed:   \(predicate.node)\n  reparsed: \(again.node)")
        }
        if again.predicateFormat != printed {
            fuzzFailure("parser", "printing is not stable for \(text.debugDescription): \(printed.debugDescription) then \(again.predicateFormat.debugDescription)")
        }
        counts.withLock { $0.parsed += 1 }
        _ = try? predicate.evaluate(validating: sample, substitutionVariables: ["X": 1, "v1": "a"])
    }
}
