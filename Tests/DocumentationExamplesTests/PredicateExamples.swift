import Foundation
import class OpenCoreDataPredicates.NSPredicate
import class OpenCoreDataPredicates.NSComparisonPredicate
import class OpenCoreDataPredicates.NSCompoundPredicate
import class OpenCoreDataPredicates.NSExpression
import class OpenCoreDataPredicates.NSSortDescriptor
import OpenCoreDataPredicates
import Testing

/// The examples of the OpenCoreDataPredicates catalog's Predicates.md: the module alone, beside
/// Foundation (whose own NSPredicate the scoped imports above hide).
@Suite("Documentation: Predicates")
struct PredicateExamples {
    @Test func formatEvaluateAndPrint() throws {
        // doc: predicates-format
        let cheap = NSPredicate(format: "name CONTAINS[cd] %@ AND price < %d", "cafe", 500)
        let format = cheap.predicateFormat                  // name CONTAINS[cd] "cafe" AND price < 500
        let matches = cheap.evaluate(with: ["name": "Café Noir", "price": 345])   // true
        let isCompound = cheap is NSCompoundPredicate       // true: NSPredicate(format:) returns Apple's classes
        // end-doc
        #expect(format == #"name CONTAINS[cd] "cafe" AND price < 500"#)
        #expect(matches)
        #expect(isCompound)
    }

    @Test func untrustedInputThrows() {
        // doc: predicates-validating
        do {
            _ = try NSPredicate(validatingFormat: "name == == 1")
        } catch {
            print(error)
            // Unable to parse the format string "name == == 1": expected an expression, found "==" at offset 8
            // name == == 1
            //         ^
        }
        // end-doc
        #expect { try NSPredicate(validatingFormat: "name == == 1") } throws: {
            "\($0)".contains(#"expected an expression, found "==" at offset 8"#)
        }
    }

    @Test func unknownKeysThrowWhereDarwinRaises() {
        let predicate = NSPredicate(format: "price < 5")
        // doc: predicates-evaluate-validating
        let row: [String: Any] = ["name": "Tea"]
        let answer = try? predicate.evaluate(validating: row)    // false: a missing key reads nil
        let people = [Person(name: "Ada", age: 36), Person(name: "Alan", age: 41)]
        let adults = people.filter { NSPredicate(format: "age >= 40").evaluate(with: $0) }
        // end-doc
        #expect(answer == false)
        #expect(adults.map(\.name) == ["Alan"])
    }

    @Test func sortingAndFiltering() {
        // doc: predicates-arrays
        let rows: [[String: Any]] = [["name": "b", "rank": 2], ["name": "a", "rank": 1], ["name": "c", "rank": 3]]
        let sorted = rows.sorted(using: [NSSortDescriptor(key: "name", ascending: false)])
        let top = rows.filtered(using: NSPredicate(format: "rank <= 2"))
        // end-doc
        #expect(sorted.map { $0["name"] as? String } == ["c", "b", "a"])
        #expect(top.count == 2)
    }

    @Test func archivingRoundTrip() throws {
        let predicate = NSPredicate(format: "name BEGINSWITH %@", "A")
        // doc: predicates-archiving
        let data = try NSKeyedArchiver.archivedData(withRootObject: predicate, requiringSecureCoding: true)
        let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPredicate.self, from: data)
        decoded?.allowEvaluation()          // a decoded predicate refuses to evaluate until allowed
        // end-doc
        #expect(decoded == predicate)
        #expect(decoded?.evaluate(with: ["name": "Ada"]) == true)
    }
}

// doc: predicates-own-types
struct Person: KeyValueCoding {
    var name: String
    var age: Int

    func value(forKey key: String) -> Any? {
        switch key {
        case "name": name
        case "age": age
        default: nil
        }
    }
}
// end-doc
