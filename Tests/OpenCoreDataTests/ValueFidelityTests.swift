import Foundation
import OpenCoreData
import Testing
import OpenCoreDataTesting

/// Values come back from the store exactly as they were saved, and compare the same in SQL and in memory
/// (issue 11: decimals, NUL characters, −0.0, NaN).
@Suite("Values come back as saved")
struct ValueFidelityTests {
    static func model() -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [
            NSEntityDescription(name: "V", properties: [
                NSAttributeDescription(name: "tag", type: .integer64AttributeType, optional: false, defaultValue: 0),
                NSAttributeDescription(name: "dec", type: .decimalAttributeType),
                NSAttributeDescription(name: "d", type: .doubleAttributeType),
                NSAttributeDescription(name: "s", type: .stringAttributeType),
            ]),
        ])
    }

    /// Saves one object per value with `key` set, then reads them back by `tag` in a new coordinator.
    func roundTrip(_ key: String, _ values: [Any]) throws -> [Any?] {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let context = try store.container(Self.model()).viewContext
            for (i, value) in values.enumerated() {
                let object = NSEntityDescription.insertNewObject(forEntityName: "V", into: context)
                object.setValue(i, forKey: "tag")
                object.setValue(value, forKey: key)
            }
            try context.save()
        }
        let request = NSFetchRequest<NSManagedObject>(entityName: "V")
        request.sortDescriptors = [NSSortDescriptor(key: "tag", ascending: true)]
        return try store.container(Self.model()).viewContext.fetch(request).map { $0.value(forKey: key) }
    }

    static let decimals = ["19.99", "1234567.89", "0.01", "-42.5", "1e120", "1e-120", "123456789012345", "0.000000123456789012345", "0"]

    @Test func decimalsOfUpToFifteenDigitsComeBackEqual() throws {
        let values = Self.decimals.map { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX"))! }
        let back = try roundTrip("dec", values)
        for (value, read) in zip(values, back) {
            #expect((read as? NSDecimalNumber)?.decimalValue == value, "\(value) came back as \(String(describing: read))")
        }
    }

    @Test func decimalComparesEqualToItsDoubleLiteralInSQLAndInMemory() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let container = try store.container(Self.model())
        let context = container.viewContext
        let saved = NSEntityDescription.insertNewObject(forEntityName: "V", into: context)
        saved.setValue(Decimal(string: "19.99")!, forKey: "dec")
        try context.save()
        let reader = container.newBackgroundContext()
        for format in ["dec == 19.99", "dec <= 19.99", "dec >= 19.99", "dec == %@", "NOT dec != 19.99"] {
            let predicate = format.contains("%@") ? NSPredicate(format: format, Decimal(string: "19.99")!) : NSPredicate(format: format)
            let request = NSFetchRequest<NSManagedObject>(entityName: "V")
            request.predicate = predicate
            let count = try reader.performAndWait { try reader.count(for: request) }
            #expect(count == 1, "SQL: \(format)")
            #expect(predicate.evaluate(with: saved), "memory: \(format)")
            // A pending (unsaved) object is matched in memory by the same fetch.
            let pending = NSEntityDescription.insertNewObject(forEntityName: "V", into: context)
            pending.setValue(Decimal(string: "19.99")!, forKey: "dec")
            #expect(try context.count(for: request) == 2, "pending + saved: \(format)")
            context.delete(pending)
        }
        // A double assigned to a decimal attribute keeps its shortest digits.
        saved.setValue(19.99, forKey: "dec")
        #expect((saved.value(forKey: "dec") as? NSDecimalNumber)?.decimalValue == Decimal(string: "19.99")!)
    }

    @Test func nanIsRefusedInWordsAndNothingIsWritten() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(Self.model()).viewContext
        for (key, value) in [("d", Double.nan as Any), ("dec", Decimal.nan as Any)] {
            let object = NSEntityDescription.insertNewObject(forEntityName: "V", into: context)
            object.setValue(value, forKey: key)
            let error = try #require(throws: CoreDataError.self) { try context.save() }
            #expect(error.code == NSManagedObjectValidationError)
            #expect(error.message == "V.\(key) is NaN (not a number), which a SQLite store cannot keep (SQLite stores NaN as NULL).")
            #expect(context.insertedObjects.count == 1, "the context keeps its changes")
            context.delete(object)
        }
        #expect(try store.container(Self.model()).viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "V")) == 0)
    }

    /// Doubles keep their bits, except −0.0, which comes back as 0.0: the column is declared `FLOAT` as
    /// Core Data declares it, and SQLite writes a whole number in a REAL column as an integer (Core Data
    /// on Apple platforms reads 0.0 there too; docs/StoreFormat.md).
    @Test func negativeZeroAndOtherDoublesKeepTheirBits() throws {
        let values: [Double] = [-0.0, 0.0, 1.5, -1e300, .infinity, -.infinity, .leastNonzeroMagnitude, 3]
        let back = try roundTrip("d", values)
        for (value, read) in zip(values, back) {
            let expected = value == 0 ? 0.0 : value
            #expect((read as? NSNumber)?.doubleValue.bitPattern == expected.bitPattern, "\(value) came back as \(String(describing: read))")
        }
    }

    @Test func stringsWithNULComeBackWhole() throws {
        let values = ["a\u{0}b\u{0}c", "\u{0}leading", "trailing\u{0}", "\u{0}", "plain"]
        let back = try roundTrip("s", values)
        #expect(back.map { $0 as? String } == values)
    }

    @Test func stringFunctionsSeeNULCharactersInSQLAsInMemory() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(Self.model()).viewContext
        for (i, s) in ["a", "a\u{0}b", "A\u{0}", "x"].enumerated() {
            let object = NSEntityDescription.insertNewObject(forEntityName: "V", into: context)
            object.setValue(i, forKey: "tag")
            object.setValue(s, forKey: "s")
        }
        try context.save()
        let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "V"))
        for format in ["s BEGINSWITH[c] %@", "s ENDSWITH %@", "s CONTAINS[cd] %@", "s ==[c] %@", "s LIKE[c] %@", "uppercase:(s) == %@"] {
            for argument in ["A\u{0}", "\u{0}", "a\u{0}B", "A\u{0}"] {
                let predicate = NSPredicate(format: format, argument)
                let request = NSFetchRequest<NSManagedObjectID>(entityName: "V")
                request.predicate = predicate
                request.resultType = .managedObjectIDResultType
                let sql = Set(try context.fetch(request))
                let memory = Set(all.filter { predicate.evaluate(with: $0) }.map(\.objectID))
                #expect(sql == memory, "\(format) with \(argument.debugDescription)")
            }
        }
    }
}
