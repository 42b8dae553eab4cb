import Foundation
import OpenCoreData
import OpenCoreDataTesting

/// The `sql` target: bytes → a random predicate (``FuzzPredicateGenerator``) → fetched through SQL from
/// an in-memory SQLite store holding ``rows``, and evaluated in memory on the same objects. The two
/// answers must be the same set of objects, and the typed `filtered(using:)` must answer as
/// `evaluate(validating:)` does. A predicate that memory refuses (throws) may do anything in SQL, as in
/// `DifferentialTests` (e.g. arithmetic on a string); a predicate memory accepts must not fail in SQL.
/// The store stays open across inputs, so each input costs one query.
final class SQLFuzzing: @unchecked Sendable {
    static let shared = SQLFuzzing()
    /// Inputs compared in SQL and memory, and inputs skipped (memory refused, or a left-out construct).
    let counts = Locked((compared: 0, skipped: 0))

    let container: NSPersistentContainer
    let context: NSManagedObjectContext
    let all: [NSManagedObject]

    /// The entity: `SampleModel`, as `DifferentialTests` uses it.
    static func makeModel() -> NSManagedObjectModel { SampleModel.make() }

    /// A fixed set of awkward rows: nils in every column, the empty string, accents (composed and
    /// decomposed), Cyrillic, Greek, emoji, wildcard characters, negative numbers,
    /// negative zero, dates before the reference date.
    static var rows: [[String: Any?]] {
        let strings: [String?] = [nil, "", "a", "A", "abc", "café", "Cafe\u{301}", "CAFÉ", "Колбаса «Молочная»", "колбаса",
                                  "straße", "STRASSE", "ß", "a*c", "a?c", "%", "_", "file10", "file2", "Ёлка", "Σίσυφος",
                                  "😀", "x y", "it's", "\\", "a\u{0}b", "\u{0}"]
        let ints: [Int?] = [nil, 0, -1, 1, -50, 49, 7, -7, 60, 2]
        let smalls: [Int?] = [nil, 0, -5, 5, 1, -1, 3]
        let doubles: [Double?] = [nil, 0, -0.0, -0.5, 2.25, -12.75, 49.75, 0.25, -50]
        let bools: [Bool?] = [nil, true, false]
        let dates: [Double?] = [nil, 0, -2000, 100, 1900, -100]
        return (0..<40).map { r in [
            "s": strings[r % strings.count],
            "t": strings[(r * 7 + 3) % strings.count],
            "i": ints[r % ints.count],
            "j": smalls[(r * 3 + 1) % smalls.count],
            "d": doubles[(r * 5 + 2) % doubles.count],
            "b": bools[r % bools.count],
            "dt": dates[(r * 11 + 4) % dates.count].map { Date(timeIntervalSinceReferenceDate: $0) },
        ] }
    }

    private init() {
        container = NSPersistentContainer(name: "Fuzz", managedObjectModel: Self.makeModel())
        let description = NSPersistentStoreDescription()
        description.type = NSInMemoryStoreType
        container.persistentStoreDescriptions = [description]
        container.loadPersistentStores { _, error in
            if let error { fuzzFailure("sql", "cannot open the in-memory store: \(error)") }
        }
        context = container.newBackgroundContext()
        let context = self.context
        all = context.performAndWait {
            for row in Self.rows {
                let object = NSEntityDescription.insertNewObject(forEntityName: "Sample", into: context)
                for (key, value) in row { object.setValue(value ?? nil, forKey: key) }
            }
            do {
                try context.save()
                context.reset()
                return try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Sample"))
            } catch {
                fuzzFailure("sql", "cannot fill the store: \(error)")
            }
        }
    }

    static func run(_ bytes: [UInt8]) {
        var generator = FuzzPredicateGenerator(rng: FuzzBytes(bytes))
        var args: [Any] = []
        let format = generator.predicate(depth: 0, &args)
        let predicate: NSPredicate
        do {
            predicate = try NSPredicate(validatingFormat: format, argumentArray: args)
        } catch {
            fuzzFailure("sql", "the generator made a format that does not parse: \(format) \(args): \(error)")
        }
        shared.check(predicate)
    }

    func check(_ predicate: NSPredicate) {
        context.performAndWait {
            let memory: Set<NSManagedObjectID>
            do {
                memory = Set(try all.filter { try predicate.evaluate(validating: $0) }.map(\.objectID))
            } catch {
                counts.withLock { $0.skipped += 1 }
                return  // memory refuses it (e.g. arithmetic on a string): not a semantics question
            }
            counts.withLock { $0.compared += 1 }
            let typed = Set(all.filtered(using: predicate).map(\.objectID))
            if typed != memory {
                fuzzFailure("sql", "\(predicate.predicateFormat): filtered(using:) \(typed.count) rows, evaluate(validating:) \(memory.count) rows")
            }
            let request = NSFetchRequest<NSManagedObjectID>(entityName: "Sample")
            request.resultType = .managedObjectIDResultType
            request.predicate = predicate
            let sql: Set<NSManagedObjectID>
            do {
                sql = Set(try context.fetch(request))
            } catch {
                fuzzFailure("sql", "\(predicate.predicateFormat): memory answers, SQL throws: \(error)")
            }
            if sql != memory {
                let describe = { (ids: Set<NSManagedObjectID>) in
                    self.all.filter { ids.contains($0.objectID) }.map { object in
                        "{" + ["s", "t", "i", "j", "d", "b", "dt"].map { "\($0)=\(object.value(forKey: $0).map { String(reflecting: $0) } ?? "nil")" }.joined(separator: " ") + "}"
                    }.joined(separator: ", ")
                }
                fuzzFailure("sql", "\(predicate.predicateFormat): SQL \(sql.count) rows, memory \(memory.count) rows\n  only SQL: \(describe(sql.subtracting(memory)))\n  only memory: \(describe(memory.subtracting(sql)))")
            }
        }
    }
}
