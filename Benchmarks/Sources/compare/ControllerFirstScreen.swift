import Foundation
import OpenCoreData
import OpenCoreDataTesting

extension Figures {
    /// Figure 4c: a fetched results controller with `fetchBatchSize` 20 over every product: its
    /// `performFetch()` and the first 20 `object(at:)` (reading `name` and `price`), against the full
    /// fetch of figure 4 in the same order. Every index path is then checked against the full fetch's.
    func controllerFirstScreenFigure(store: LibraryStore, rows: Int, label: String) throws {
        let full = LibraryStore.allRequest(batchSize: 0, sorted: true)
        func controller(_ context: NSManagedObjectContext) -> NSFetchedResultsController<Products> {
            NSFetchedResultsController(fetchRequest: LibraryStore.allRequest(batchSize: 20, sorted: true), managedObjectContext: context,
                                       sectionNameKeyPath: nil, cacheName: nil)
        }
        let times = try measureInterleaved(repetitions: repetitions, [{
            let context = store.newContext()
            let c = controller(context)
            var total = 0
            let t = try timed {
                try c.performFetch()
                for row in 0..<20 {
                    let p = c.object(at: IndexPath(row: row, section: 0))
                    total &+= (p.name?.utf8.count ?? 0) &+ Int(p.price)
                }
            }.seconds
            try expect(c.sections?.first?.numberOfObjects ?? 0, rows, "controller's objects")
            blackHole(total)
            return t
        }, {
            try self.timedFullFetch(store, full, rows: rows)
        }])
        // Every index path the full fetch's (outside the timed part).
        let expected = try store.newContext().fetch(full).map(\.objectID)
        let c = controller(store.newContext())
        try c.performFetch()
        let shown = (0..<rows).map { c.object(at: IndexPath(row: $0, section: 0)).objectID }
        try expect(zip(shown, expected).filter { $0 != $1 }.count + abs(shown.count - expected.count), 0, "index paths unlike the full fetch's")
        let share = times[0] / times[1]
        table.append(ResultRow(figure: "4c. controller, fetchBatchSize 20, \(label): performFetch + first 20 object(at:)",
                               ours: Format.seconds(times[0]), raw: "—",
                               ratio: Format.percent(share) + " of the full fetch (\(Format.seconds(times[1])))",
                               target: "≤ 5% of full fetch", verdict: .check(share <= 0.05)))
    }
}
