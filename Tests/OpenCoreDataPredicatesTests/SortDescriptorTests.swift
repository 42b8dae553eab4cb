import Foundation
import Testing
@testable import OpenCoreDataPredicates
import class OpenCoreDataPredicates.NSPredicate
import class OpenCoreDataPredicates.NSComparisonPredicate
import class OpenCoreDataPredicates.NSCompoundPredicate
import class OpenCoreDataPredicates.NSExpression
import class OpenCoreDataPredicates.NSSortDescriptor

@Suite("NSSortDescriptor")
struct SortDescriptorTests {
    @Test func seed000SortByNameThenPrice() {
        let rows: [[String: Any]] = [
            ["name": "Сыр", "price": 5], ["name": "Колбаса", "price": 9], ["name": "Сыр", "price": 1],
            ["name": "Колбаса", "price": 2], ["name": "Молоко", "price": 3],
        ]
        let sorted = rows.sorted(using: [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: false)])
        #expect(sorted.map { "\($0["name"]!) \($0["price"]!)" } == ["Колбаса 9", "Колбаса 2", "Молоко 3", "Сыр 5", "Сыр 1"])
    }

    @Test func propertiesAndReverse() throws {
        let d = NSSortDescriptor(key: "name", ascending: true, selector: Selector("localizedStandardCompare:"))
        #expect(d.key == "name")
        #expect(d.ascending)
        #expect(d.selector == "localizedStandardCompare:")
        let r = try #require(d.reversedSortDescriptor as? NSSortDescriptor)
        #expect(!r.ascending)
        #expect(r.selector?.name == "localizedStandardCompare:")
        #expect(NSSortDescriptor(key: "a", ascending: true) == NSSortDescriptor(key: "a", ascending: true, selector: "compare:"))
        #expect(NSStringFromSelector(NSSelectorFromString("compare:")) == "compare:")
    }

    @Test func selectors() {
        func order(_ selector: Selector, _ words: [String]) -> [String] {
            words.map { ["w": $0] }.sorted(using: [NSSortDescriptor(key: "w", ascending: true, selector: selector)]).map { $0["w"]! }
        }
        #expect(order("compare:", ["b", "B", "a", "A"]) == ["A", "B", "a", "b"])
        #expect(order("caseInsensitiveCompare:", ["b", "B", "a", "A"]) == ["a", "A", "b", "B"])  // stable within equal
        #expect(order("localizedCompare:", ["b", "B", "á", "a", "A"]) == ["a", "A", "á", "b", "B"])
        #expect(order("localizedCaseInsensitiveCompare:", ["é", "e", "f", "E"]) == ["e", "E", "é", "f"])
        #expect(order("localizedStandardCompare:", ["file10", "File2", "file1"]) == ["file1", "File2", "file10"])
        #expect(order("compare:", ["file10", "file2"]) == ["file10", "file2"])
    }

    @Test func compareToFollowsDirectionAndNilFirst() {
        let asc = NSSortDescriptor(key: "p", ascending: true)
        let desc = NSSortDescriptor(key: "p", ascending: false)
        #expect(asc.compare(["p": 1], to: ["p": 2]) == .orderedAscending)
        #expect(desc.compare(["p": 1], to: ["p": 2]) == .orderedDescending)
        #expect(asc.compare(["p": 1], to: ["p": 1.0]) == .orderedSame)
        #expect(asc.compare([String: Any](), to: ["p": 0]) == .orderedAscending)
        #expect(desc.compare([String: Any](), to: ["p": 0]) == .orderedDescending)
        #expect(NSSortDescriptor(key: nil, ascending: true).compare(1, to: 2) == .orderedAscending)
    }
}
