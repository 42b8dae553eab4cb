import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Every way a caller reads the results of a `.dictionaryResultType` fetch: subscripts and key-value
/// coding, casts to Swift dictionaries (one result, and the whole array; from `NSDictionary` and from
/// `NSFetchRequestResult`), keys, iteration (seed 000 prints each key and value), description,
/// equality, copies, JSON and archiving.
@Suite("Dictionary results: every way a caller reads them")
struct DictionaryResultTests {
    static let rows: [(name: String, price: Int32)] = [("Кефир", 417), ("Колбаса «Докторская»", 12), ("Сыр", 999)]

    /// The three products sorted by name, as dictionaries of `name` and `price`.
    func fetched<T>(_ type: T.Type, _ body: ([T]) throws -> Void) throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().viewContext
        for row in Self.rows {
            let product = Products(context: context)
            product.name = row.name
            product.price = row.price
        }
        try context.save()
        let request = NSFetchRequest<T>(entityName: "Products")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["name", "price"]
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        try body(try context.fetch(request))
    }

    @Test func subscriptsAndKeyValueCoding() throws {
        try fetched(NSDictionary.self) { results in
            #expect(results.count == 3)
            #expect(results.map { $0["name"] as? String } == Self.rows.map(\.name))
            #expect(results.map { $0["price"] as? Int } == Self.rows.map { Int($0.price) })
            #expect(results.map { ($0.value(forKey: "price") as? NSNumber)?.int32Value } == Self.rows.map(\.price))
            #expect(results[0].object(forKey: "name") as? String == "Кефир")
            #expect(results[0].object(forKey: NSString(string: "name")) as? String == "Кефир")
            #expect(results[0]["nothing"] == nil)
            #expect(results.allSatisfy { $0.count == 2 })
        }
    }

    @Test func castsToSwiftDictionaries() throws {
        try fetched(NSDictionary.self) { results in
            let first = results[0]
            let swift = first as? [String: Any]
            #expect(swift?.count == 2)
            #expect(swift?["name"] as? String == "Кефир")
            #expect(swift?["price"] as? Int == 417)
            let forced = first as! [String: AnyObject]
            #expect(forced["price"] as? NSNumber == NSNumber(value: 417))
            let all = results as! [[String: Any]]
            #expect(all.map { $0["name"] as? String } == Self.rows.map(\.name))
            #expect(all.map { $0["price"] as? Int32 } == Self.rows.map(\.price))
            let hashable = (results as [Any]) as? [[AnyHashable: Any]]
            #expect(hashable?.map(\.count) == [2, 2, 2])
            let viaAny: Any = first
            #expect((viaAny as? [String: Any])?["name"] as? String == "Кефир")
            let strings = results.compactMap { $0 as? [String: NSObject] }
            #expect(strings.count == 3)
        }
    }

    @Test func fetchRequestResultForm() throws {
        try fetched(NSFetchRequestResult.self) { results in
            let dictionaries = results as! [[String: Any]]
            #expect(dictionaries.map { $0["name"] as? String } == Self.rows.map(\.name))
            #expect(dictionaries.map { $0["price"] as? Int } == Self.rows.map { Int($0.price) })
            let objects = results as! [NSDictionary]
            #expect(objects.map { $0["price"] as? Int32 } == Self.rows.map(\.price))
            #expect((results.first as? NSDictionary)?["name"] as? String == "Кефир")
            #expect(((results.first as Any?) as? [String: Any])?["name"] as? String == "Кефир")
        }
    }

    @Test func keysIterationAndDescription() throws {
        try fetched(NSDictionary.self) { results in
            let first = results[0]
            #expect((first.allKeys as? [String])?.sorted() == ["name", "price"])
            #expect(first.allValues.count == 2)
            var printed: [String] = []
            for (key, value) in first { printed.append("\(key): \(value)") }
            #expect(printed.sorted() == ["name: Кефир", "price: 417"])
            var enumerated: [String] = []
            let keys = first.keyEnumerator()
            while let key = keys.nextObject() { enumerated.append(key as! String) }
            #expect(enumerated.sorted() == ["name", "price"])
            #expect(first.description.contains("name = Кефир;"))
            #expect("\(first)".contains("price = 417;"))
        }
    }

    @Test func equalityCopiesJSONAndArchiving() throws {
        try fetched(NSDictionary.self) { results in
            let first = results[0]
            let literal = NSDictionary(dictionary: ["name": "Кефир", "price": 417])
            #expect(first == literal)
            #expect(literal == first)
            #expect(first.isEqual(to: ["name": "Кефир", "price": 417]))
            #expect(first.hash == literal.hash)
            #expect(first != results[1])
            #expect((first.copy() as? NSDictionary) == literal)
            let mutable = first.mutableCopy() as! NSMutableDictionary
            mutable["price"] = 418
            #expect(mutable["name"] as? String == "Кефир" && mutable["price"] as? Int == 418)
            #expect(first["price"] as? Int == 417)
            let json = try JSONSerialization.data(withJSONObject: results, options: [.sortedKeys])
            #expect(String(decoding: json, as: UTF8.self)
                    == #"[{"name":"Кефир","price":417},{"name":"Колбаса «Докторская»","price":12},{"name":"Сыр","price":999}]"#)
            let archive = try NSKeyedArchiver.archivedData(withRootObject: first, requiringSecureCoding: false)
            let unarchived = try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(archive) as? NSDictionary
            #expect(unarchived == literal)
            #expect(unarchived.map { type(of: $0.allKeys[0] as AnyObject) == NSString.self } == true)
        }
    }

    /// The invariant the fast path keeps: results are plain `NSDictionary` instances. swift-corelibs-
    /// foundation bridges an `NSDictionary` *subclass* to an empty Swift dictionary (Benchmarks/README.md,
    /// "corelibs bridging defect"), so a faster subclass here would make `as? [String: Any]` lose data.
    @Test func resultsArePlainDictionaries() throws {
        try fetched(NSDictionary.self) { results in
            #expect(results.allSatisfy { type(of: $0) == NSDictionary.self })
            // Keys are shared by the rows and hash as plain strings do.
            let keys = results.map { $0.allKeys.map { $0 as AnyObject } }
            for row in keys.dropFirst() { #expect(Set(row.map(ObjectIdentifier.init)) == Set(keys[0].map(ObjectIdentifier.init))) }
            for key in keys[0] { #expect((key as! NSString).hash == NSString(string: key as! String).hash) }
        }
    }

    @Test func nilValuesAreLeftOut() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try RelationshipFetchTests.zoo(store)
        let request = NSFetchRequest<NSDictionary>(entityName: "Animal")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["commonName", "classification.family"]
        request.predicate = NSPredicate(format: "commonName == %@", "Dodo")
        let dodo = try #require(try context.fetch(request).first)
        #expect(dodo.count == 1)
        #expect(dodo.allKeys as? [String] == ["commonName"])
        #expect((dodo as? [String: Any])?.keys.sorted() == ["commonName"])
    }
}
