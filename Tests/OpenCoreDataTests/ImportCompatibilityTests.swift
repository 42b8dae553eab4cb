import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Code written against Core Data's Swift API, with `import Foundation` beside `import OpenCoreData`,
/// must see our types in type positions and in calls (ARCHITECTURE.md, "Compatibility rule").
@Suite("Import compatibility")
struct ImportCompatibilityTests {
    var predicate: NSPredicate? = NSPredicate(format: "name == %@", "x")
    var sorts: [NSSortDescriptor] = [NSSortDescriptor(key: "name", ascending: true)]

    @Test func typePositionsAndCallsResolveToOurs() {
        let comparison: NSComparisonPredicate? = predicate?.comparisonPredicate
        let compound: NSCompoundPredicate = NSCompoundPredicate(andPredicateWithSubpredicates: [predicate!])
        let expression: NSExpression = NSExpression(forKeyPath: "name")
        let selector: Selector = "localizedStandardCompare:"
        let sorted = NSSortDescriptor(key: "name", ascending: true, selector: selector)
        #expect(comparison?.leftExpression == expression)
        #expect(compound.predicateFormat == "name == \"x\"")
        #expect(sorted.selector == Selector("localizedStandardCompare:"))
        #expect(sorts.count == 1)
        let names = ["a", "b"]
        #expect(NSPredicate(format: "name IN %@", names).evaluate(with: ["name": "b"]))
        #expect(NSPredicate(format: "date < %@", Date()).evaluate(with: ["date": Date.distantPast]))
    }
}
