@_spi(StoreDiagnostics) import OpenCoreData
import OpenCoreDataTesting

/// The scale of a run. `rows` sets every size: the fetch figures read about `rows` objects (the fetch
/// store holds twice as many, and `price < 500` selects about half), the batch figures read `10 × rows`,
/// the insert figure writes `rows`, and figure 9 evaluates over `rows` loaded objects, ten passes.
struct Settings {
    /// About how many objects the fetch figures read (default 100k).
    var rows = 100_000
    /// Timed runs per variant, after one warm-up run; the table shows their median.
    var repetitions = 5

    /// Rows in the fetch store.
    var fetchStoreRows: Int { rows * 2 }
    /// Rows in the batch store (default 1M).
    var batchRows: Int { rows * 10 }
    /// Evaluations per timed run of figure 9.
    var evaluations: Int { rows * 10 }
    /// Passes over the format strings per timed run of figure 8.
    var parseRounds: Int { max(rows / 10, 10) }
}

/// A result that differs between the library and a baseline: the comparison would be meaningless.
struct MismatchError: Error, CustomStringConvertible {
    /// What differed.
    let description: String
}

/// Runs the figures on SQLite files in `directory` and collects the table's rows.
final class Figures {
    let settings: Settings
    let directory: URL
    /// The table, in figure order.
    var table: [ResultRow] = []

    /// Figures at `settings`' scale, with their files in `directory`.
    init(settings: Settings, directory: URL) {
        self.settings = settings
        self.directory = directory
    }

    var repetitions: Int { settings.repetitions }

    /// The groups of figures, by the name `--only` takes.
    static let groups = ["fetch", "batch", "insert", "controller", "predicates", "relationships", "managed", "migrate"]

    /// Runs the figures of `groups` (all by default), in table order.
    func run(groups: Set<String> = Set(Figures.groups)) throws {
        if groups.contains("fetch") { try fetchFigures() }
        if groups.contains("batch") { try batchFigures() }
        if groups.contains("insert") { try insertFigure() }
        if groups.contains("controller") { try controllerFigures() }
        if groups.contains("predicates") { try predicateFigures() }
        if groups.contains("relationships") { try relationshipFigures() }
        if groups.contains("managed") { try managedFigures() }
        if groups.contains("migrate") { try migrationFigures() }
    }

    // MARK: - 1-3: fetch

    /// Figures 1-3 on one store written by the library, read by all three variants.
    func fetchFigures() throws {
        let url = directory.appendingPathComponent("fetch.sqlite")
        let data = ProductData(count: settings.fetchStoreRows, seed: 1)
        progress("writing \(data.count) products to \(url.lastPathComponent)")
        try LibraryStore.create(at: url, with: data)
        let store = try LibraryStore(url: url)
        let raw = try RawDatabase(path: url.path)
        let grdb = try GRDBDatabase(path: url.path)
        let expected = data.prices.filter { $0 < priceLimit }.count
        let n = Format.count(settings.rows)

        // 1: managed objects.
        let request = LibraryStore.filteredRequest(Products.self)
        try checkSameProducts(store, request, raw: raw, grdb: grdb, expected: expected)
        progress("1. fetch objects")
        let times = try measureInterleaved(repetitions: repetitions, [{
            let context = store.newContext()
            let (objects, t) = try timed { try context.fetch(request) }
            try expect(objects.count, expected, "objects fetched")
            return t
        }, {
            let context = store.newContext()
            var total = 0
            let (objects, t) = try timed {
                let objects = try context.fetch(request)
                for p in objects { total &+= (p.name?.utf8.count ?? 0) &+ Int(p.price) }
                return objects
            }
            try expect(objects.count, expected, "objects fetched")
            blackHole(total)
            return t
        }, {
            let (products, t) = try timed { try raw.fetchProducts(StoreSQL.fetchObjects, limit: priceLimit) }
            try expect(products.count, expected, "raw rows")
            return t
        }, {
            let (products, t) = try timed { try grdb.fetchProducts(StoreSQL.fetchObjects, limit: priceLimit) }
            try expect(products.count, expected, "GRDB rows")
            return t
        }, {
            let (rows, t) = try timed { try raw.fetchProductRows(StoreSQL.fetchObjectsAsLibrary, limit: priceLimit) }
            try expect(rows.count, expected, "raw rows (library's SQL)")
            return t
        }])
        let (ours, oursRead, rawTime, grdbTime, floor) = (times[0], times[1], times[2], times[3], times[4])
        let figure1 = "1. fetch ≈\(n) objects (predicate + 2-key sort)"
        table.append(ResultRow(figure: figure1 + " vs raw", ours: Format.seconds(ours), raw: Format.seconds(rawTime),
                               grdb: Format.seconds(grdbTime), ratio: Format.ratio(ours / rawTime) + " raw",
                               target: "≤ 1.30× raw", verdict: .check(ours / rawTime <= 1.3)))
        table.append(ResultRow(figure: figure1 + " vs GRDB", ours: Format.seconds(ours), raw: Format.seconds(rawTime),
                               grdb: Format.seconds(grdbTime), ratio: Format.ratio(ours / grdbTime) + " GRDB",
                               target: "≤ 1.00× GRDB", verdict: .check(ours <= grdbTime)))
        table.append(ResultRow(figure: "1. floor: raw sqlite3 running the library's SQL (+ Z_PK, Z_ENT, Z_OPT)", ours: Format.seconds(ours),
                               raw: Format.seconds(floor), ratio: Format.ratio(ours / floor) + " floor; floor " + Format.ratio(floor / rawTime) + " raw"))
        table.append(ResultRow(figure: "1. same, then read every name and price", ours: Format.seconds(oursRead),
                               raw: Format.seconds(rawTime), grdb: Format.seconds(grdbTime),
                               ratio: Format.ratio(oursRead / rawTime) + " raw"))

        // 2: dictionaries.
        let dictionaryRequest = LibraryStore.filteredRequest(NSDictionary.self)
        dictionaryRequest.resultType = .dictionaryResultType
        dictionaryRequest.propertiesToFetch = ["name", "price"]
        progress("2. fetch dictionaries")
        let dictionaryTimes = try measureInterleaved(repetitions: repetitions, [{
            let context = store.newContext()
            let (dictionaries, t) = try timed { try context.fetch(dictionaryRequest) }
            try expect(dictionaries.count, expected, "dictionaries fetched")
            return t
        }, {
            let (products, t) = try timed { try raw.fetchProducts(StoreSQL.fetchDictionaries, limit: priceLimit) }
            try expect(products.count, expected, "raw rows")
            return t
        }, {
            let (rows, t) = try timed { try grdb.fetchRows(StoreSQL.fetchDictionaries, limit: priceLimit) }
            try expect(rows.count, expected, "GRDB rows")
            return t
        }])
        let (oursDictionaries, rawDictionaries, grdbRows) = (dictionaryTimes[0], dictionaryTimes[1], dictionaryTimes[2])
        table.append(ResultRow(figure: "2. same into dictionaries (name, price)", ours: Format.seconds(oursDictionaries),
                               raw: Format.seconds(rawDictionaries), grdb: Format.seconds(grdbRows) + " (Row)",
                               ratio: Format.ratio(oursDictionaries / rawDictionaries) + " raw", target: "≤ 1.20× raw",
                               verdict: .check(oursDictionaries / rawDictionaries <= 1.2)))

        // 3: count, ten counts per timed run.
        progress("3. count")
        let counts = 10
        let context = store.newContext()
        let countTimes = try measureInterleaved(repetitions: repetitions, [{
            try time { for _ in 0..<counts { try expect(try context.count(for: request), expected, "count") } } / Double(counts)
        }, {
            try time { for _ in 0..<counts { try expect(try raw.count(StoreSQL.count, limit: priceLimit), expected, "raw count") } } / Double(counts)
        }, {
            try time { for _ in 0..<counts { try expect(try grdb.count(StoreSQL.count, limit: priceLimit), expected, "GRDB count") } } / Double(counts)
        }])
        let (oursCount, rawCount, grdbCount) = (countTimes[0], countTimes[1], countTimes[2])
        table.append(ResultRow(figure: "3. count(for:) over \(Format.count(data.count)) rows", ours: Format.seconds(oursCount),
                               raw: Format.seconds(rawCount), grdb: Format.seconds(grdbCount),
                               ratio: Format.ratio(oursCount / rawCount) + " raw", target: "≤ 1.10× raw",
                               verdict: .check(oursCount / rawCount <= 1.1)))
    }

    /// Checks once, untimed, that the library, raw SQLite and GRDB read the same products in the same order.
    private func checkSameProducts(_ store: LibraryStore, _ request: NSFetchRequest<Products>, raw: RawDatabase,
                                   grdb: GRDBDatabase, expected: Int) throws {
        let ours = try store.newContext().fetch(request).map { "\($0.name ?? "nil")|\($0.price)" }
        let rawRows = try raw.fetchProducts(StoreSQL.fetchObjects, limit: priceLimit).map { "\($0.name)|\($0.price)" }
        let grdbRows = try grdb.fetchProducts(StoreSQL.fetchObjects, limit: priceLimit).map { "\($0.name)|\($0.price)" }
        try expect(ours.count, expected, "objects fetched")
        guard ours == rawRows, ours == grdbRows else {
            throw MismatchError(description: "the library, raw SQLite and GRDB read different products or orders")
        }
    }

    // MARK: - 6: insert and save

    /// Figure 6: each variant writes `rows` products into a new file per run.
    func insertFigure() throws {
        let data = ProductData(count: settings.rows, seed: 3)
        var run = 0
        func newFile() -> URL {
            run += 1
            return directory.appendingPathComponent("insert-\(run).sqlite")
        }
        progress("6. insert and save")
        // Our run is also timed in its two parts (making the objects, then `save()`), to show where the
        // time goes; the parts are not interleaved variants of their own.
        var making: [Double] = []
        let times = try measureInterleaved(repetitions: repetitions, [{
            let url = newFile()
            defer { removeDatabase(at: url) }
            let store = try LibraryStore(url: url)
            let context = store.newContext()
            return try time {
                let start = monotonicSeconds()  // not `time`, which would switch the profiler off inside
                try store.insert(data, range: 0..<data.count, into: context)
                making.append(monotonicSeconds() - start)
                try context.save()
            }
        }, {
            let url = newFile()
            defer { removeDatabase(at: url) }
            let raw = try RawDatabase(path: url.path)
            try raw.createProductsSchema()
            return try time { try raw.insert(data) }
        }, {
            let url = newFile()
            defer { removeDatabase(at: url) }
            let grdb = try GRDBDatabase(path: url.path)
            try grdb.createProductsSchema()
            return try time { try grdb.insert(data) }
        }, {
            // The same rows through NSBatchInsertRequest: no objects, no context (the dictionaries are the
            // app's data, made before the clock starts as raw's arrays are).
            let url = newFile()
            defer { removeDatabase(at: url) }
            let store = try LibraryStore(url: url)
            let context = store.newContext()
            let objects = (0..<data.count).map { ["name": data.names[$0], "price": data.prices[$0]] as [String: Any] }
            return try time { _ = try context.execute(NSBatchInsertRequest(entityName: "Products", objects: objects)) }
        }, {
            // Ours again, its coordinator posting the save's notifications without their sets
            // (`postsChangeSets` off): what the sets every observer gets cost this save.
            let url = newFile()
            defer { removeDatabase(at: url) }
            let store = try LibraryStore(url: url)
            store.container.persistentStoreCoordinator.postsChangeSets = false
            let context = store.newContext()
            return try time {
                try store.insert(data, range: 0..<data.count, into: context)
                try context.save()
            }
        }])
        let (ours, rawTime, grdbTime, batchTime, withoutSets) = (times[0], times[1], times[2], times[3], times[4])
        let perSecond = { (seconds: Double) in Format.rate(Double(data.count) / seconds, unit: " rows/s") }
        table.append(ResultRow(figure: "6. insert + save \(Format.count(data.count)) objects", ours: perSecond(ours),
                               raw: perSecond(rawTime), grdb: perSecond(grdbTime),
                               ratio: Format.ratio(rawTime / ours) + " raw", target: "≥ 0.70× raw throughput",
                               verdict: .check(rawTime / ours >= 0.7)))
        table.append(ResultRow(figure: "6. the same, `postsChangeSets` off (DidSave without its sets)", ours: perSecond(withoutSets),
                               raw: perSecond(rawTime), grdb: perSecond(grdbTime),
                               ratio: Format.ratio(rawTime / withoutSets) + " raw; with the sets " + Format.ratio(ours / withoutSets) + " the time"))
        table.append(ResultRow(figure: "6. the same rows by NSBatchInsertRequest (no context)", ours: perSecond(batchTime),
                               raw: perSecond(rawTime), grdb: perSecond(grdbTime), ratio: Format.ratio(rawTime / batchTime) + " raw",
                               target: "≥ 0.70× raw throughput", verdict: .check(rawTime / batchTime >= 0.7)))
        let made = median(Array(making.dropFirst()))
        table.append(ResultRow(figure: "6. of which making the objects (`Products(context:)`, two setters)", ours: Format.seconds(made),
                               raw: Format.seconds(rawTime), ratio: Format.ratio(made / rawTime) + " raw's whole insert; save ≈ "
                                   + Format.ratio((ours - made) / rawTime)))
        // The floor of Core Data's contract: the objects must be made and their rows written (raw's whole
        // insert). `DidSave` also carries a set of the inserted objects and one of their IDs, which every
        // save builds unless its coordinator's `postsChangeSets` is off (their cost is shown beside the floor).
        let sets = try contractSets(data)
        let floor = made + rawTime
        table.append(ResultRow(figure: "6. floor: making the objects + raw's insert", ours: Format.seconds(floor),
                               raw: Format.seconds(rawTime), ratio: Format.ratio(rawTime / floor) + " raw (+ the two sets `DidSave` carries: "
                                   + Format.seconds(sets) + ", " + Format.ratio(rawTime / (floor + sets)) + ")"))
    }

    /// The time to build the two sets a save's `DidSave` notifications carry for `data.count` inserted
    /// objects (`Set<NSManagedObject>`, `Set<NSManagedObjectID>`), on objects laid out as an import
    /// leaves them: the median of `repetitions` builds, after the objects were made and saved.
    func contractSets(_ data: ProductData) throws -> Double {
        let url = directory.appendingPathComponent("insert-sets.sqlite")
        defer { removeDatabase(at: url) }
        let store = try LibraryStore(url: url)
        let context = store.newContext()
        let objects = (0..<data.count).map { i in
            let product = Products(context: context)
            product.name = data.names[i]
            product.price = data.prices[i]
            return product
        }
        try context.save()
        let ids = objects.map(\.objectID)
        return median((0..<max(1, repetitions)).map { _ in
            time {
                blackHole(Set(objects))
                blackHole(Set(ids))
            }
        })
    }

    // MARK: - 7: fetched results controller

    /// Figure 7: a controller over `rows` products in 50 sections (grouped by name, sorted by name and
    /// price) follows a change, against refetching and diffing, GRDB's recommended pattern: with
    /// `CollectionDifference` (Myers, O(n·d): the single change only, at full scale) and with a sectioned
    /// Heckel diff (``HeckelDiff``, O(n): what an app with many changes would pick). All run in the same
    /// context, so the refetch finds its objects already registered.
    func controllerFigures() throws {
        let url = directory.appendingPathComponent("controller.sqlite")
        let container = NSPersistentContainer(name: "Controller", managedObjectModel: SeedModel.make())
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        let context = container.newBackgroundContext()
        let n = settings.rows
        try context.performAndWait {
            var random = SeededRandom(seed: 77)
            for i in 0..<n {
                let p = Products(context: context)
                p.name = "S\(String(format: "%02d", i % 50))"
                p.price = Int32(random.int(0...999))
            }
            try context.save()
            let request = NSFetchRequest<Products>(entityName: "Products")
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: true)]
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "name", cacheName: nil)
            try controller.performFetch()
            let counter = ChangeCounter()
            controller.delegate = counter
            let objects = controller.fetchedObjects!
            try HeckelDiffCheck.run()
            // The refetching app's last snapshot: sections of (object ID, price), as it would show them.
            var snapshot = Self.sectionedSnapshot(try context.fetch(request))
            for (label, fraction) in [("1 object changed", 0.0), ("10% changed", 0.1)] {
                let count = max(1, Int(Double(n) * fraction))
                // `CollectionDifference` (Myers) is O(n·d): with 10% changed at this scale one run takes
                // minutes (131-181 s at 100k), so the 10% row has the Heckel baseline only, above 5,000 rows.
                let withMyers = fraction == 0 || n <= 5_000
                var ours: [Double] = [], myers: [Double] = [], heckel: [Double] = []
                for rep in 0...repetitions {
                    let changed = (0..<count).map { objects[($0 * 7919 + rep * 31) % n] }
                    for p in changed { p.price = Int32(random.int(0...999)) }
                    let t = time { context.processPendingChanges() }
                    if rep > 0 { ours.append(t) }
                    // Interleaved: the baselines take turns going first.
                    var baselines: [() throws -> Void] = [{
                        let old = snapshot
                        let ((diff, new), h) = try timed { () throws -> (ControllerDiff, [ControllerDiff.Section]) in
                            let new = Self.sectionedSnapshot(try context.fetch(request))
                            return (ControllerDiff(old: old, new: new), new)
                        }
                        if rep == 0 { try HeckelDiffCheck.check(diff, old: old, new: new) }
                        snapshot = new
                        if rep > 0 { heckel.append(h) }
                    }]
                    if withMyers {
                        baselines.append {
                            let oldIDs = objects.map(\.objectID)
                            let r = try time {
                                let fresh = try context.fetch(request)
                                blackHole(fresh.map(\.objectID).difference(from: oldIDs))
                            }
                            if rep > 0 { myers.append(r) }
                        }
                    }
                    if rep % 2 == 1 { baselines.reverse() }
                    for baseline in baselines { try baseline() }
                }
                let o = median(ours), h = median(heckel)
                let target = fraction == 0 ? 10_000.0 : 5.0
                let figure = "7. controller: \(label) (\(Format.count(n)) objects, 50 sections)"
                if withMyers {
                    let m = median(myers)
                    table.append(ResultRow(figure: figure, ours: Format.seconds(o), raw: "refetch+Myers " + Format.seconds(m),
                                           ratio: Format.ratio(m / o) + " faster",
                                           target: fraction == 0 ? "≥ 10,000× faster than refetch+Myers" : "report",
                                           verdict: fraction == 0 ? .check(m / o >= target) : .report))
                }
                table.append(ResultRow(figure: figure, ours: Format.seconds(o), raw: "refetch+Heckel " + Format.seconds(h),
                                       ratio: Format.ratio(h / o) + " faster",
                                       target: fraction == 0 ? "report" : "≥ 5× faster than refetch+Heckel",
                                       verdict: fraction == 0 ? .report : .check(h / o >= target)))
            }
            if counter.changes == 0 { throw MismatchError(description: "the controller reported no change") }
            try windowedControllerFigure(context, container.persistentStoreCoordinator, objects)
        }
    }

    /// The sections a refetching app shows for `objects` (sorted by name, then price): per name, the
    /// object IDs with the price each was shown with.
    static func sectionedSnapshot(_ objects: [Products]) -> [ControllerDiff.Section] {
        var sections: [ControllerDiff.Section] = []
        for p in objects {
            let name = p.name ?? ""
            if sections.last?.name != name { sections.append(.init(name: name, items: [])) }
            sections[sections.count - 1].items.append((p.objectID, p.price))
        }
        return sections
    }

    /// Figure 7, windowed: a controller with `fetchLimit` 50 and `fetchOffset` 100 over the same products
    /// follows a change without refetching (issue 12): the time of one change and the store queries it
    /// cost, against refetching the window.
    func windowedControllerFigure(_ context: NSManagedObjectContext, _ coordinator: NSPersistentStoreCoordinator, _ objects: [Products]) throws {
        let request = NSFetchRequest<Products>(entityName: "Products")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true), NSSortDescriptor(key: "price", ascending: true)]
        request.fetchLimit = 50
        request.fetchOffset = 100
        let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
        try controller.performFetch()
        let counter = ChangeCounter()
        controller.delegate = counter
        let store = try coordinator.persistentStores.first.map { $0 }!
        var ours: [Double] = [], refetch: [Double] = [], queries: [Int] = []
        for rep in 0...repetitions {
            // One object of the window moves out of it (a higher price in the last section).
            let window = controller.fetchedObjects!
            let moved = window[(rep * 7) % window.count]
            moved.name = "S99"
            let before = store.queryCount
            let t = time { context.processPendingChanges() }
            if rep > 0 { ours.append(t); queries.append(store.queryCount - before) }
            let r = try time { _ = try context.fetch(request) }
            if rep > 0 { refetch.append(r) }
        }
        if counter.changes == 0 { throw MismatchError(description: "the windowed controller reported no change") }
        let o = median(ours), f = median(refetch)
        table.append(ResultRow(figure: "7. controller, fetchLimit 50 / fetchOffset 100: 1 object leaves the window (\(Format.count(objects.count)) objects)",
                               ours: Format.seconds(o) + ", \(queries.max() ?? 0) queries", raw: "refetch window " + Format.seconds(f),
                               ratio: Format.ratio(f / o) + " faster", target: "no refetch", verdict: .check(queries.max() ?? 1 <= 1)))
    }

    // MARK: - 8-9: predicates

    /// Figures 8 and 9: parsing format strings, and evaluating `price < 500` in memory.
    func predicateFigures() throws {
        // 8: seed-000-sized format strings with arguments.
        let formats: [(String, [Any])] = [
            ("name == %@", ["Колбаса «Молочная»"]),
            ("name CONTAINS[cd] %@ AND price < %d", ["колбаса", 500]),
            ("price < %d", [500]),
            ("price BETWEEN {%d, %d}", [100, 500]),
            ("name BEGINSWITH[c] %@ OR price >= %d", ["йогурт", 900]),
            ("name IN %@ AND NOT (price > %d)", [["Сыр 1", "Масло 2"], 250]),
        ]
        for (format, arguments) in formats { _ = try NSPredicate(validatingFormat: format, argumentArray: arguments) }
        progress("8. predicate parse")
        let rounds = settings.parseRounds
        let parseTime = try measure(repetitions: repetitions) {
            let (parsed, t) = try timed {
                var parsed: [NSPredicate] = []
                parsed.reserveCapacity(formats.count * rounds)
                for _ in 0..<rounds {
                    for (format, arguments) in formats { parsed.append(try NSPredicate(validatingFormat: format, argumentArray: arguments)) }
                }
                return parsed
            }
            blackHole(parsed)
            return t
        }
        table.append(ResultRow(figure: "8. predicate parse (\(formats.count) seed-000 formats with arguments)",
                               ours: Format.rate(Double(formats.count * rounds) / parseTime, unit: " parses/s"),
                               target: "report"))

        // 9: `price < 500` on loaded objects and on dictionaries.
        let url = directory.appendingPathComponent("evaluate.sqlite")
        try LibraryStore.create(at: url, with: ProductData(count: settings.rows, seed: 4))
        let store = try LibraryStore(url: url)
        let context = store.newContext()
        let all = NSFetchRequest<Products>(entityName: "Products")
        let objects = try context.fetch(all)
        for p in objects { blackHole(p.price) }
        let dictionaries: [[String: Any]] = objects.map { ["name": $0.name ?? "", "price": Int($0.price)] }
        let predicate = NSPredicate(format: "price < 500")
        let evaluations = settings.evaluations
        // Each variant calls `evaluate(with:)` as an app would: on `Products`, on `[String: Any]`, and on
        // objects whose static type is `Any` (which needs dynamic casts to find out what they are).
        // Each rate is measured interleaved with its floor (below), so that the ratio between them holds on
        // a shared machine whose speed changes from one second to the next.
        func rates<T>(_ items: [T], _ predicate: @escaping (T) -> Bool, floor: @escaping (T) -> Bool) throws -> (Double, Double) {
            func run(_ evaluate: @escaping (T) -> Bool) -> () throws -> Double {
                {
                    var matches = 0
                    let t = time {
                        var done = 0
                        while done < evaluations {
                            for item in items.prefix(evaluations - done) where evaluate(item) { matches += 1 }
                            done += min(items.count, evaluations - done)
                        }
                    }
                    blackHole(matches)
                    return t
                }
            }
            let seconds = try measureInterleaved(repetitions: repetitions, [run(predicate), run(floor)])
            return (Double(evaluations) / seconds[0], Double(evaluations) / seconds[1])
        }
        progress("9. predicate evaluation")
        // Floors: the same test written by hand in Swift on the same items, no predicate (what an app that
        // gave up `NSPredicate` would run): the typed getter, a dictionary lookup and cast, a cast from `Any`.
        let (onObjects, byHandObjects) = try rates(objects, { (product: Products) in predicate.evaluate(with: product) },
                                                   floor: { (product: Products) in product.price < 500 })
        let (onDictionaries, byHandDictionaries) = try rates(dictionaries, { predicate.evaluate(with: $0) },
                                                             floor: { (($0["price"] as? Int) ?? 0) < 500 })
        let (onAny, byHandAny) = try rates(objects as [Any], { predicate.evaluate(with: $0) },
                                           floor: { (($0 as? Products)?.price ?? 0) < 500 })
        table.append(ResultRow(figure: "9. evaluate price < 500 on loaded objects", ours: Format.rate(onObjects, unit: " evals/s"),
                               target: "≥ 20M/s", verdict: .check(onObjects >= 20e6)))
        table.append(ResultRow(figure: "9. evaluate price < 500 on [String: Any]", ours: Format.rate(onDictionaries, unit: " evals/s"),
                               target: "≥ 20M/s", verdict: .check(onDictionaries >= 20e6)))
        table.append(ResultRow(figure: "9. same on loaded objects passed as Any", ours: Format.rate(onAny, unit: " evals/s"),
                               target: "≥ 20M/s", verdict: .check(onAny >= 20e6)))
        table.append(ResultRow(figure: "9. floor: `product.price < 500` by hand", ours: Format.rate(byHandObjects, unit: " evals/s"),
                               ratio: "predicate " + Format.percent(onObjects / byHandObjects) + " of it", target: "report"))
        table.append(ResultRow(figure: "9. floor: `(dict[\"price\"] as? Int ?? 0) < 500` by hand", ours: Format.rate(byHandDictionaries, unit: " evals/s"),
                               ratio: "predicate " + Format.percent(onDictionaries / byHandDictionaries) + " of it", target: "report"))
        table.append(ResultRow(figure: "9. floor: `(any as? Products)?.price` by hand", ours: Format.rate(byHandAny, unit: " evals/s"),
                               ratio: "predicate " + Format.percent(onAny / byHandAny) + " of it", target: "report"))
    }
}

/// Throws when a variant's result count is not the expected one.
func expect(_ actual: Int, _ expected: Int, _ what: String) throws {
    guard actual == expected else { throw MismatchError(description: "\(what): \(actual), expected \(expected)") }
}

/// Progress goes to standard error, so that standard output holds the table alone.
func progress(_ message: String) {
    FileHandle.standardError.write(Data("compare: \(message)\n".utf8))
}

/// A controller delegate that counts the object changes it is told of (figure 7).
final class ChangeCounter: NSFetchedResultsControllerDelegate {
    var changes = 0
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
                    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?) { changes += 1 }
}
