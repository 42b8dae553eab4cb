import OpenCoreData

/// A model class with `@Managed` properties (docs/ModelClasses.md), for figure 13.
final class BenchReading: NSManagedObject {
    @Managed var label: String?
    @Managed var count: Int32
}

extension Figures {
    /// 13: reading a `@Managed` property of fetched objects (its storage slot, found once) against the
    /// same read through `value(forKey:)` (a key lookup and an `NSNumber` each time), on `rows` fetched
    /// objects whose values are loaded. The fetch is not timed.
    func managedFigures() throws {
        let n = settings.rows
        let model = NSManagedObjectModel(entities: [NSEntityDescription(
            name: "Reading", managedObjectClassName: NSStringFromClass(BenchReading.self),
            properties: [NSAttributeDescription(name: "label", type: .stringAttributeType),
                         NSAttributeDescription(name: "count", type: .integer32AttributeType)])])
        let container = NSPersistentContainer(name: "Readings", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: directory.appendingPathComponent("readings.sqlite"))]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        progress("13. writing \(n) readings")
        let writer = container.newBackgroundContext()
        try writer.performAndWait {
            for i in 0..<n {
                let r = BenchReading(context: writer)
                r.count = Int32(i % 1000)
                r.label = "r\(i)"
            }
            try writer.save()
        }
        let context = container.newBackgroundContext()
        let objects = try context.performAndWait {
            let request = NSFetchRequest<BenchReading>(entityName: "Reading")
            request.returnsObjectsAsFaults = false
            return try context.fetch(request)
        }
        try expect(objects.count, n, "readings fetched")
        let expected = (0..<n).reduce(0) { $0 + $1 % 1000 }
        progress("13. @Managed read vs value(forKey:)")
        let times = try measureInterleaved(repetitions: repetitions, [{
            var total = 0
            let t = context.performAndWait { time { for o in objects { total &+= Int(o.count) } } }
            try expect(total, expected, "sum of typed reads")
            return t
        }, {
            var total = 0
            let t = context.performAndWait { time { for o in objects { total &+= Int(o.value(forKey: "count") as? Int32 ?? 0) } } }
            try expect(total, expected, "sum of value(forKey:) reads")
            return t
        }])
        let (typed, keyed) = (times[0], times[1])
        let perRead = { (s: Double) in Format.significant(s / Double(n) * 1e9) + " ns/read" }
        table.append(ResultRow(figure: "13. read an Int32 @Managed property of \(Format.count(n)) fetched objects vs value(forKey:) as? Int32",
                               ours: Format.seconds(typed) + " (" + perRead(typed) + ")",
                               raw: "value(forKey:) " + Format.seconds(keyed) + " (" + perRead(keyed) + ")",
                               ratio: Format.ratio(typed / keyed) + " value(forKey:)"))
        withExtendedLifetime(objects) {}
    }
}
