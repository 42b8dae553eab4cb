import Foundation
import Testing
@testable import OpenCoreDataPredicates
import class OpenCoreDataPredicates.NSSortDescriptor

/// A value with fixed keys whose lookup of any other key throws, as a managed object's does.
struct StrictRecord: KeyValueCoding {
    var name: String
    func value(forKey key: String) -> Any? { try? validatedValue(forKey: key) }
    func validatedValue(forKey key: String) throws -> Any? {
        guard key == "name" else {
            throw PredicateEvaluationError(.notKeyValueCodingCompliant(type: "StrictRecord", key: key))
        }
        return name
    }
}

/// `[NSSortDescriptor]` sorting with a key the elements do not have: Foundation's KVC raises
/// `valueForUndefinedKey:`; we trap (or throw, in the validating form) instead of keeping the order.
@Suite("Sorting by an unknown key")
struct SortUnknownKeyTests {
    @Test func sortingByAKeyWhoseLookupThrowsTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = [StrictRecord(name: "b"), StrictRecord(name: "a")].sorted(using: [NSSortDescriptor(key: "nmae", ascending: true)])
        }
        let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(text.contains("StrictRecord"))
        #expect(text.contains("nmae"))
    }

    @Test func theValidatingFormThrows() throws {
        let records = [StrictRecord(name: "b"), StrictRecord(name: "a")]
        #expect(throws: PredicateEvaluationError.self) {
            try records.sorted(validatingUsing: [NSSortDescriptor(key: "nmae", ascending: true)])
        }
        #expect(try records.sorted(validatingUsing: [NSSortDescriptor(key: "name", ascending: true)]).map(\.name) == ["a", "b"])
    }

    @Test func aDictionaryWithoutTheKeySortsItAsNil() throws {
        let rows: [[String: Any]] = [["name": "b"], [:], ["name": "a"]]
        let sorted = rows.sorted(using: [NSSortDescriptor(key: "name", ascending: true)])
        #expect(sorted.map { $0["name"] as? String } == [nil, "a", "b"])
        let validated = try rows.sorted(validatingUsing: [NSSortDescriptor(key: "name", ascending: false)])
        #expect(validated.map { $0["name"] as? String } == ["b", "a", nil])
    }
}
