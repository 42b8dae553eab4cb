import OpenCoreData
import OpenCoreDataTesting

extension Figures {
    /// 13: reading a `@Managed` property of fetched objects (its storage slot, found once) against the
    /// same read through `value(forKey:)` (a key lookup and an `NSNumber` each time), on `rows` fetched
    /// objects whose values are loaded: `Products.price`, an `Int32`, of seed 000's model class
    /// (OpenCoreDataTesting). The fetch is not timed.
    func managedFigures() throws {
        let data = ProductData(count: settings.rows, seed: 13)
        let n = data.count
        let url = directory.appendingPathComponent("managed.sqlite")
        progress("13. writing \(data.count) products")
        try LibraryStore.create(at: url, with: data)
        let store = try LibraryStore(url: url)
        let context = store.container.newBackgroundContext()
        let objects = try context.performAndWait {
            let request = NSFetchRequest<Products>(entityName: "Products")
            request.returnsObjectsAsFaults = false
            return try context.fetch(request)
        }
        try expect(objects.count, data.count, "products fetched")
        let expected = data.prices.reduce(0) { $0 + Int($1) }
        progress("13. @Managed read vs value(forKey:)")
        let times = try measureInterleaved(repetitions: repetitions, [{
            var total = 0
            let t = context.performAndWait { time { for o in objects { total &+= Int(o.price) } } }
            try expect(total, expected, "sum of typed reads")
            return t
        }, {
            var total = 0
            let t = context.performAndWait { time { for o in objects { total &+= Int(o.value(forKey: "price") as? Int32 ?? 0) } } }
            try expect(total, expected, "sum of value(forKey:) reads")
            return t
        }])
        let (typed, keyed) = (times[0], times[1])
        let perRead = { (s: Double) in Format.significant(s / Double(n) * 1e9) + " ns/read" }
        table.append(ResultRow(figure: "13. read an Int32 @Managed property of \(Format.count(n)) fetched objects vs value(forKey:) as? Int32",
                               ours: Format.seconds(typed) + " (" + perRead(typed) + ")",
                               raw: "value(forKey:) " + Format.seconds(keyed) + " (" + perRead(keyed) + ")",
                               ratio: Format.ratio(typed / keyed) + " value(forKey:)"))
        withExtendedLifetime((objects, store)) {}
    }
}
