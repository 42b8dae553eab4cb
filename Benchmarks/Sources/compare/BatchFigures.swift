import Foundation
import OpenCoreData
import OpenCoreDataTesting

extension Figures {
    /// Figures 4, 5 and 15 on a store of `10 × rows` products.
    func batchFigures() throws {
        let url = directory.appendingPathComponent("batch.sqlite")
        let data = ProductData(count: settings.batchRows, seed: 2)
        progress("writing \(data.count) products to \(url.lastPathComponent)")
        try LibraryStore.create(at: url, with: data)
        let store = try LibraryStore(url: url)
        let raw = try RawDatabase(path: url.path)
        let n = Format.count(data.count)

        // 4: first 20 usable objects of a batched fetch, against the full fetch, in two orders; then sorted
        // again on a store whose model has a fetch index matching the sort.
        for order in BatchOrder.all {
            progress("4. batched fetch, \(order.label)")
            try batchFigure(store: store, raw: raw, rows: data.count, order: order)
        }
        let indexedURL = directory.appendingPathComponent("batch-indexed.sqlite")
        progress("writing \(data.count) products to \(indexedURL.lastPathComponent) (fetch index on name, price)")
        try LibraryStore.create(at: indexedURL, with: data, indexed: true)
        progress("4. batched fetch, sorted, fetch index")
        try batchFigure(store: try LibraryStore(url: indexedURL, indexed: true), raw: try RawDatabase(path: indexedURL.path), rows: data.count,
                        order: BatchOrder.indexed)

        // 4c: the same first screen through a fetched results controller (sorted: a controller needs sort
        // descriptors), without and with the fetch index.
        progress("4c. controller first screen, sorted")
        try controllerFirstScreenFigure(store: store, rows: data.count, label: BatchOrder.all[0].label)
        progress("4c. controller first screen, sorted, fetch index")
        try controllerFirstScreenFigure(store: try LibraryStore(url: indexedURL, indexed: true), rows: data.count, label: BatchOrder.indexed.label)

        // 5: resident memory of the batched result before any fault fires.
        progress("5. memory of a batched fetch")
        // Also noted: the same after handing freed pages back (what the result itself keeps).
        var kept: [Double] = []
        let bytesPerObject = try measure(repetitions: repetitions) {
            let context = store.newContext()
            trimHeap()
            let before = residentBytes()
            let objects = try context.fetch(LibraryStore.allRequest(batchSize: 20, sorted: true))
            let after = residentBytes()
            trimHeap()
            let afterTrim = residentBytes()
            try expect(objects.count, data.count, "objects fetched")
            kept.append(Double(afterTrim - before) / Double(objects.count))
            return withExtendedLifetime(objects) { Double(after - before) / Double(objects.count) }
        }
        table.append(ResultRow(figure: "5. resident memory per object, batched \(n) (sorted), before faulting",
                               ours: String(format: "%.0f B (%.0f B kept)", bytesPerObject, median(Array(kept.dropFirst()))),
                               target: "≤ 64 B", verdict: .check(bytesPerObject <= 64)))

        progress("15. paging through \(n) products in one context")
        try pagingMemoryFigure(store: store, rows: data.count)
    }

    /// One ordering of figure 4: the library's requests and the raw SQL that reads the same rows.
    private struct BatchOrder {
        /// How the table names it.
        let label: String
        /// Sorted by name then price (as figure 1), or in store order (no sort descriptors).
        let sorted: Bool
        /// The raw full fetch.
        let rawSQL: String
        /// The raw keys-only fetch: exactly the library's first query of a batched fetch.
        let keysSQL: String

        static let indexed = BatchOrder(label: "sorted by name, price, fetch index (name, price)", sorted: true,
                                        rawSQL: StoreSQL.fetchAllSorted, keysSQL: StoreSQL.fetchAllKeysSorted)

        static let all = [
            BatchOrder(label: "sorted by name, price", sorted: true, rawSQL: StoreSQL.fetchAllSorted, keysSQL: StoreSQL.fetchAllKeysSorted),
            BatchOrder(label: "store order", sorted: false, rawSQL: StoreSQL.fetchAll, keysSQL: StoreSQL.fetchAllKeys),
        ]
    }

    /// Figure 4 in one order: the first 20 objects of a batched fetch against the full fetch, with the
    /// raw full fetch and the raw keys-only query (the floor of any batched fetch) beside them.
    private func batchFigure(store: LibraryStore, raw: RawDatabase, rows: Int, order: BatchOrder) throws {
        let full = LibraryStore.allRequest(batchSize: 0, sorted: order.sorted)
        let batched = LibraryStore.allRequest(batchSize: 20, sorted: order.sorted)
        // Interleaved: a full fetch of more than `RowCache.largestFetchCached` rows leaves the shared row
        // cache alone, so it cannot help the batched runs.
        let times = try measureInterleaved(repetitions: repetitions, [{
            let context = store.newContext()
            var total = 0
            let (objects, t) = try timed {
                let objects = try context.fetch(batched)
                for p in objects.prefix(20) { total &+= (p.name?.utf8.count ?? 0) &+ Int(p.price) }
                return objects
            }
            try expect(objects.count, rows, "objects fetched")
            blackHole(total)
            return t
        }, {
            try self.timedFullFetch(store, full, rows: rows)
        }, {
            let (products, t) = try timed { try raw.fetchProducts(order.rawSQL, limit: nil) }
            try expect(products.count, rows, "raw rows")
            return t
        }, {
            let (keys, t) = try timed { try raw.fetchKeys(order.keysSQL) }
            try expect(keys.count, rows, "raw keys")
            return t
        }, {
            // What any fetch returning `[Products]` of `rows` objects pays: making them (a bare fault is
            // an object of the entity's class with nothing else, as this one).
            let entity = store.container.managedObjectModel.entitiesByName["Products"]!
            let (objects, t) = timed { (0..<rows).map { _ in Products(entity: entity, insertInto: nil) } }
            try expect(objects.count, rows, "objects made")
            return t
        }, {
            // And knowing how many there are: the count the batched fetch asks first.
            let (keys, t) = try timed { try raw.fetchKeys("SELECT COUNT(*) FROM ZPRODUCTS t0") }
            try expect(Int(keys[0]), rows, "raw count")
            return t
        }, {
            // And finding the first 20: the first batch's keys in the fetch's order (for a sort without a
            // matching index, SQLite's scan of every row keeping the best 20).
            let (keys, t) = try timed { try raw.fetchKeys(order.keysSQL + " LIMIT 20") }
            try expect(keys.count, 20, "raw first batch")
            return t
        }])
        let (firstTwenty, oursFull, rawFull, rawKeys) = (times[0], times[1], times[2], times[3])
        let floor = times[4] + times[5] + times[6]
        let n = Format.count(rows)
        table.append(ResultRow(figure: "4. full fetch of \(n) objects, \(order.label)", ours: Format.seconds(oursFull),
                               raw: Format.seconds(rawFull), ratio: Format.ratio(oursFull / rawFull) + " raw"))
        table.append(ResultRow(figure: "4. fetchBatchSize 20, \(order.label): first 20 usable", ours: Format.seconds(firstTwenty),
                               raw: Format.seconds(rawKeys) + " (keys only)",
                               ratio: Format.percent(firstTwenty / oursFull) + " of full (floor: making the objects, counting them, raw's first 20 \(Format.percent(floor / oursFull)); every key first, raw \(Format.percent(rawKeys / oursFull)))",
                               target: "≤ 5% of full fetch", verdict: .check(firstTwenty / oursFull <= 0.05)))
    }

    /// One timed full fetch of `request` into a new context (figure 4's denominator, and 4c's).
    func timedFullFetch(_ store: LibraryStore, _ request: NSFetchRequest<Products>, rows: Int) throws -> Double {
        let context = store.newContext()
        let (objects, t) = try timed { try context.fetch(request) }
        try expect(objects.count, rows, "objects fetched")
        return t
    }
}
