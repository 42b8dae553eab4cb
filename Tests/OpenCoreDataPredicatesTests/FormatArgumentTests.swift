import Foundation
import Testing
@testable import OpenCoreDataPredicates
import class OpenCoreDataPredicates.NSPredicate
import class OpenCoreDataPredicates.NSComparisonPredicate
import class OpenCoreDataPredicates.NSCompoundPredicate
import class OpenCoreDataPredicates.NSExpression
import class OpenCoreDataPredicates.NSSortDescriptor

@Suite("Format arguments")
struct FormatArgumentTests {
    @Test func seed000Predicates() {
        let milk = "Колбаса «Молочная»"
        let p1 = NSPredicate(format: "name == %@", milk)
        #expect(p1.predicateFormat == "name == \"Колбаса «Молочная»\"")
        #expect(p1.evaluate(with: ["name": milk, "price": 10]))
        let p2 = NSPredicate(format: "name CONTAINS[cd] %@ AND price < %d", "колбаса", 500)
        #expect(p2.predicateFormat == "name CONTAINS[cd] \"колбаса\" AND price < 500")
        #expect(p2.evaluate(with: ["name": milk, "price": 345]))
        #expect(!p2.evaluate(with: ["name": milk, "price": 746]))
        #expect(!p2.evaluate(with: ["name": "Сыр", "price": 100]))
    }

    @Test func everyKindOfObjectArgument() {
        let date = Date(timeIntervalSinceReferenceDate: 100)
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        #expect(NSPredicate(format: "a == %@", "it's \"q\"").predicateFormat == "a == \"it's \\\"q\\\"\"")
        #expect(NSPredicate(format: "a == %@", 5).predicateFormat == "a == 5")
        #expect(NSPredicate(format: "a == %@", 2.5).predicateFormat == "a == 2.5")
        #expect(NSPredicate(format: "a == %@", NSNumber(value: 7)).predicateFormat == "a == 7")
        #expect(NSPredicate(format: "a == %@", true).predicateFormat == "a == TRUE")
        #expect(NSPredicate(format: "a == %@", date).predicateFormat == "a == CAST(100.0, \"NSDate\")")
        #expect(NSPredicate(format: "a == %@", uuid).predicateFormat == "a == CAST(\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\", \"NSUUID\")")
        #expect(NSPredicate(format: "a == %@", Decimal(string: "1.25")!).predicateFormat == "a == CAST(\"1.25\", \"NSDecimalNumber\")")
        #expect(NSPredicate(format: "a == %@", Data([1, 2, 3])).predicateFormat == "a == CAST(\"AQID\", \"NSData\")")
        #expect(NSPredicate(format: "a == %@", URL(string: "https://x.org/a")!).predicateFormat == "a == CAST(\"https://x.org/a\", \"NSURL\")")
        #expect(NSPredicate(format: "a == %@", nil).predicateFormat == "a == nil")
        #expect(NSPredicate(format: "a == %@", NSNull()).predicateFormat == "a == nil")
        let optional: String? = nil
        #expect(NSPredicate(format: "a == %@", optional).predicateFormat == "a == nil")
        #expect(NSPredicate(format: "a IN %@", ["x", "y"]).predicateFormat == "a IN {\"x\", \"y\"}")
        #expect(NSPredicate(format: "a IN %@", Set([3])).predicateFormat == "a IN {3}")
        #expect(NSPredicate(format: "a IN %@", ["x", "y"]).evaluate(with: ["a": "y"]))
        #expect(NSPredicate(format: "a IN %@", [1, 2] as NSArray).evaluate(with: ["a": 2]))
        // Every typed argument parses back to the same value.
        for value in [date as Any, uuid, Decimal(string: "1.25")!, Data([1, 2, 3]), URL(string: "https://x.org/a")!] {
            let p = NSPredicate(format: "a == %@", value)
            #expect(NSPredicate(format: p.predicateFormat) == p, "\(value)")
            #expect(p.evaluate(with: ["a": value]))
        }
    }

    @Test func keyPathArguments() {
        let p = NSPredicate(format: "%K == %@", "owner.name", "Ann")
        #expect(p.predicateFormat == "owner.name == \"Ann\"")
        #expect(p.evaluate(with: ["owner": ["name": "Ann"]]))
        #expect((NSPredicate(format: "%K CONTAINS[c] %@", "name", "x") as? NSComparisonPredicate)?.leftExpression.keyPath == "name")
    }

    @Test func printfNumbers() {
        #expect(NSPredicate(format: "a == %d", 5).predicateFormat == "a == 5")
        #expect(NSPredicate(format: "a == %i", Int32(-5)).predicateFormat == "a == -5")
        #expect(NSPredicate(format: "a == %ld", 5).predicateFormat == "a == 5")
        #expect(NSPredicate(format: "a == %lld", Int64.max).predicateFormat == "a == 9223372036854775807")
        #expect(NSPredicate(format: "a == %u", UInt32(7)).predicateFormat == "a == 7")
        #expect(NSPredicate(format: "a == %hd", Int16(3)).predicateFormat == "a == 3")
        #expect(NSPredicate(format: "a == %qd", 3).predicateFormat == "a == 3")
        #expect(NSPredicate(format: "a == %f", 2.5).predicateFormat == "a == 2.5")
        #expect(NSPredicate(format: "a == %lf", 2.5).predicateFormat == "a == 2.5")
        #expect(NSPredicate(format: "a == %f", Float(0.5)).predicateFormat == "a == 0.5")
        #expect(NSPredicate(format: "a == %f", 3).predicateFormat == "a == 3.0")
        #expect(NSPredicate(format: "a == %g", 1e20).predicateFormat == "a == 1e+20")
        #expect(NSPredicate(format: "a == %x", 255).predicateFormat == "a == 255")
        #expect(NSPredicate(format: "a == %c", "z").predicateFormat == "a == \"z\"")
    }

    @Test func quotedSpecifiersAreLiterals() {
        let p = NSPredicate(format: "a == '%@' AND b == \"%K\"")
        #expect(p.predicateFormat == "a == \"%@\" AND b == \"%K\"")
        #expect(p.evaluate(with: ["a": "%@", "b": "%K"]))
    }

    @Test func argumentArrayForm() {
        let p = NSPredicate(format: "a == %@ AND b < %d", argumentArray: ["x", 3])
        #expect(p.predicateFormat == "a == \"x\" AND b < 3")
        #expect(NSPredicate(format: "TRUEPREDICATE", argumentArray: nil).evaluate(with: nil))
    }
}
