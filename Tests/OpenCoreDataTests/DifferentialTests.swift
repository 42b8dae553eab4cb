import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// SQL and memory must agree (radar 16838159 is Core Data disagreeing): random predicates × random rows,
/// the store's answer (SQL) equals `evaluate(with:)` on the same objects. A failure prints its seed.
@Suite("SQL and in-memory evaluation agree")
struct DifferentialTests {
    static let strings = ["", "a", "A", "abc", "ABC", "café", "CAFÉ", "cafe", "Cafe\u{301}", "Колбаса «Молочная»",
                          "колбаса", "КОЛБАСА", "straße", "STRASSE", "it's", "a*c", "a?c", "%", "_", "file10", "file2",
                          "ёлка", "Ёлка", "елка", "x y", "zz", "ß", "Σίσυφος"]
    static let patterns = ["*", "a*", "*c", "?b?", "колб*", "*«*", "caf?", "a\\*c", "", "*SS*"]
    static let regexes = ["a.*", ".*e", "[a-c]+", "колбаса.*", ".*", "caf(e|é)"]

    /// The entity `Sample` with the attributes the generator reads, and any `extra` ones.
    static func makeModel(adding extra: [NSAttributeDescription] = []) -> NSManagedObjectModel {
        SampleModel.make(adding: extra)
    }

    struct Generator {
        var rng: SeededRandom
        /// Also draws what came after PredicateTranslationGoldenTests recorded its SQL (a non-BMP string,
        /// Foundation keys of strings such as `s.length`); that test keeps the old stream with `false`.
        var extended = true

        /// The strings drawn: non-BMP text (two UTF-16 units a character) too when extended.
        var strings: [String] { extended ? DifferentialTests.strings + ["😀a"] : DifferentialTests.strings }

        mutating func value(for key: String) -> Any? {
            if rng.chance(0.15) { return nil }
            switch key {
            case "s", "t": return rng.pick(strings)
            case "i": return rng.int(-50...50)
            case "j": return rng.int(-5...5)
            case "d": return Double(rng.int(-200...200)) / 4
            case "b": return rng.chance(0.5)
            default: return Date(timeIntervalSinceReferenceDate: Double(rng.int(0...20)) * 100)
            }
        }

        mutating func constant(for key: String) -> String {
            // Mostly the key's own kind, sometimes another kind (which must compare as memory does).
            let kind = rng.chance(0.85) ? key : rng.pick(["s", "i", "d", "b", "dt"])
            switch kind {
            case "s", "t": return "%@"
            default: return "%@"
            }
        }

        mutating func argument(for key: String) -> Any {
            // Sometimes a collection or an arbitrary object, which equals no attribute value (issue 11).
            let kind = rng.chance(0.85) ? key : rng.pick(["s", "i", "d", "b", "dt", "nil", "array", "set", "object"])
            switch kind {
            case "nil": return NSNull()
            case "array": return [value(for: key) ?? 1, value(for: key) ?? 2] as [Any]
            case "set": return Set([DifferentialTests.strings[rng.int(0...3)]])
            case "object": return OpaqueArgument(tag: rng.int(0...3))
            default: break
            }
            return value(for: kind) ?? NSNull()
        }

        mutating func comparison(_ args: inout [Any]) -> String {
            let keys = ["s", "t", "i", "j", "d", "b", "dt"]
            let key = rng.pick(keys)
            let stringKey = key == "s" || key == "t"
            let options = rng.pick(["", "", "[c]", "[d]", "[cd]", "[n]"])
            switch rng.int(0...11) {
            case 0, 1, 2:
                let op = rng.pick(["==", "!=", "<", "<=", ">", ">="])
                args.append(argument(for: key))
                return rng.chance(0.2) ? "%@ \(op)\(stringKey ? options : "") \(key)" : "\(key) \(op)\(stringKey ? options : "") %@"
            case 3:
                let other = rng.pick(keys)
                return "\(key) \(rng.pick(["==", "!=", "<", ">="]))\(options) \(other)"
            case 4 where stringKey:
                let op = rng.pick(["BEGINSWITH", "ENDSWITH", "CONTAINS"])
                args.append(rng.chance(0.9) ? rng.pick(strings) : (rng.chance(0.5) ? 5 : NSNull()) as Any)
                return "\(key) \(op)\(options) %@"
            case 5 where stringKey:
                args.append(rng.pick(DifferentialTests.patterns))
                return "\(key) LIKE\(options) %@"
            case 6 where stringKey:
                args.append(rng.pick(DifferentialTests.regexes))
                return "\(key) MATCHES\(rng.pick(["", "[c]", "[d]", "[cd]"])) %@"
            case 7:
                let items = (0..<rng.int(0...4)).map { _ in argument(for: key) }
                args.append(items)
                return "\(key) IN\(stringKey ? options : "") %@"
            case 8:
                args.append(argument(for: key))
                args.append(argument(for: key))
                return "\(key) BETWEEN\(stringKey ? options : "") {%@, %@}"
            case 9 where stringKey:
                args.append(rng.pick(strings))
                guard extended else {
                    return rng.chance(0.5) ? "%@ IN\(options) \(key)" : "\(rng.pick(["uppercase:", "lowercase:", "length:"]))(\(key)) \(rng.pick(["==", ">"])) %@"
                }
                switch rng.int(0...3) {
                case 0, 1: return "%@ IN\(options) \(key)"
                case 2: return "\(rng.pick(["uppercase:", "lowercase:", "length:"]))(\(key)) \(rng.pick(["==", ">"])) %@"
                default:
                    // Foundation's keys of a string value (`name.length` counts UTF-16 units).
                    let valueKey = rng.pick(["length", "uppercaseString", "lowercaseString"])
                    if valueKey == "length" { args[args.count - 1] = rng.int(0...8) }
                    return "\(key).\(valueKey) \(rng.pick(["==", ">", "<="]))\(valueKey == "length" ? "" : options) %@"
                }
            case 10 where !stringKey && key != "dt":
                let op = rng.pick(["+", "-", "*", "/"])
                args.append(rng.int(1...5))
                args.append(rng.int(-20...20))
                return "\(key) \(op) %@ \(rng.pick(["<", ">=", "=="])) %@"
            default:
                return rng.pick(["TRUEPREDICATE", "FALSEPREDICATE", "\(key) == nil", "\(key) != nil", "NOT \(key) == nil"])
            }
        }

        mutating func predicate(depth: Int, _ args: inout [Any]) -> String {
            switch depth > 2 ? 0 : rng.int(0...6) {
            case 4: return "(\(predicate(depth: depth + 1, &args)) AND \(predicate(depth: depth + 1, &args)))"
            case 5: return "(\(predicate(depth: depth + 1, &args)) OR \(predicate(depth: depth + 1, &args)))"
            case 6: return "NOT (\(predicate(depth: depth + 1, &args)))"
            default: return comparison(&args)
            }
        }
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func randomPredicatesOverRandomRows(_ chunk: UInt64) throws {
        let file = TemporaryStore()
        defer { file.cleanUp() }
        let context = try file.container(Self.makeModel()).newBackgroundContext()
        #expect(try Self.compareRandomPredicates(in: context, chunk: chunk) > 300)
    }

    /// Saves 250 random rows of chunk `chunk` into `context` (of a store with ``makeModel(adding:)``'s
    /// model), then fetches 400 random predicates through the store and records an issue for each whose
    /// answer differs from `evaluate(with:)` on the same objects. Returns how many were compared.
    static func compareRandomPredicates(in context: NSManagedObjectContext, chunk: UInt64) throws -> Int {
        var rows = Generator(rng: SeededRandom(seed: chunk &* 7919))
        for _ in 0..<250 {
            let object = NSEntityDescription.insertNewObject(forEntityName: "Sample", into: context)
            for key in ["s", "t", "i", "j", "d", "b", "dt"] { object.setValue(rows.value(for: key), forKey: key) }
        }
        try context.save()
        context.reset()
        let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Sample"))
        var compared = 0
        for i in 0..<400 {
            let seed = chunk &* 1_000_003 &+ UInt64(i)
            var generator = Generator(rng: SeededRandom(seed: seed))
            var args: [Any] = []
            let format = generator.predicate(depth: 0, &args)
            let predicate = try NSPredicate(validatingFormat: format, argumentArray: args)
            let memory: Set<NSManagedObjectID>
            do {
                memory = Set(try all.filter { try predicate.evaluate(validating: $0) }.map(\.objectID))
            } catch {
                continue  // e.g. arithmetic on a string: memory refuses; not a semantics question
            }
            // The overloads for statically typed managed objects (`filtered(using:)` uses them) answer as the `Any` form does.
            let typed = Set(all.filtered(using: predicate).map(\.objectID))
            if typed != memory {
                Issue.record("seed \(seed): \(predicate.predicateFormat): evaluate(with: NSManagedObject) differs from evaluate(with: Any)")
            }
            let request = NSFetchRequest<NSManagedObjectID>(entityName: "Sample")
            request.resultType = .managedObjectIDResultType
            request.predicate = predicate
            let sql: Set<NSManagedObjectID>
            do {
                sql = Set(try context.fetch(request))
            } catch {
                Issue.record("seed \(seed): \(predicate.predicateFormat) failed in SQL: \(error)")
                continue
            }
            compared += 1
            if sql != memory {
                Issue.record("seed \(seed): \(predicate.predicateFormat): SQL \(sql.count) rows, memory \(memory.count) rows")
            }
        }
        return compared
    }

    /// Every sort selector orders the same in SQL (registered collations) as `sorted(using:)` in memory.
    @Test func sortSelectorsAgree() throws {
        let file = TemporaryStore()
        defer { file.cleanUp() }
        try Self.compareSortSelectors(in: file.container(Self.makeModel()).newBackgroundContext())
    }

    /// Saves 200 random rows into `context` and expects every sort selector to order them through the
    /// store as `sorted(using:)` does in memory. Ties keep the order of the objects' primary keys, or
    /// with `storeOrder`, the order the store returns them in without sort descriptors.
    static func compareSortSelectors(in context: NSManagedObjectContext, storeOrder: Bool = false) throws {
        var rng = SeededRandom(seed: 99)
        for _ in 0..<200 {
            let object = NSEntityDescription.insertNewObject(forEntityName: "Sample", into: context)
            object.setValue(rng.chance(0.1) ? nil : rng.pick(Self.strings), forKey: "s")
            object.setValue(rng.int(0...3), forKey: "i")
        }
        try context.save()
        context.reset()
        let unsorted = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Sample"))
        let all = storeOrder ? unsorted : unsorted
            .sorted { $0.objectID.uriRepresentation().lastPathComponent.dropFirst().count < $1.objectID.uriRepresentation().lastPathComponent.dropFirst().count
                || ($0.objectID.uriRepresentation().lastPathComponent.dropFirst().count == $1.objectID.uriRepresentation().lastPathComponent.dropFirst().count
                    && $0.objectID.uriRepresentation().lastPathComponent < $1.objectID.uriRepresentation().lastPathComponent) }
        for selector in ["compare:", "caseInsensitiveCompare:", "localizedCompare:", "localizedCaseInsensitiveCompare:", "localizedStandardCompare:"] {
            for ascending in [true, false] {
                let descriptors = [NSSortDescriptor(key: "s", ascending: ascending, selector: Selector(selector)),
                                   NSSortDescriptor(key: "i", ascending: !ascending)]
                let request = NSFetchRequest<NSManagedObject>(entityName: "Sample")
                request.sortDescriptors = descriptors
                let sql = try context.fetch(request).map { "\($0.value(forKey: "s") ?? "nil")|\($0.value(forKey: "i")!)" }
                let memory = all.sorted(using: descriptors).map { "\($0.value(forKey: "s") ?? "nil")|\($0.value(forKey: "i")!)" }
                #expect(sql == memory, "\(selector) ascending: \(ascending)")
            }
        }
    }

    /// A compiled predicate remembers a key's slot per entity layout. Objects of models loaded one after
    /// another (their layouts freed in between, so addresses may be reused) keep `price` in different
    /// slots; one predicate must read the right one for each.
    @Test func oneCompiledPredicateOverObjectsOfSuccessiveModels() throws {
        let predicate = NSPredicate(format: "price < 5")
        for round in 0..<20 {
            let padding = (0..<(round % 4)).map { NSAttributeDescription(name: "a\($0)", type: .integer64AttributeType) }
            let model = NSManagedObjectModel(entities: [NSEntityDescription(name: "Thing", properties:
                padding + [NSAttributeDescription(name: "price", type: .integer64AttributeType)])])
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            context.performAndWait {
                let thing = NSEntityDescription.insertNewObject(forEntityName: "Thing", into: context)
                for p in padding { thing.setValue(100, forKey: p.name) }
                thing.setValue(round % 2 == 0 ? 1 : 9, forKey: "price")
                #expect(predicate.evaluate(with: thing) == (round % 2 == 0), "round \(round)")
                #expect(predicate.evaluate(with: thing as Any) == (round % 2 == 0), "round \(round), as Any")
            }
        }
    }
}

/// A format argument of the caller's own type (neither a number, a string nor a collection).
struct OpaqueArgument: Hashable { let tag: Int }
