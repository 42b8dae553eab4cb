import Foundation
import OpenCoreData
import OpenCoreDataTesting

extension Figures {
    /// Figure 15: a long-lived context that pages through every row of the batch store, 10k at a time,
    /// reads each object and keeps none: its peak resident memory against that of one page held.
    func pagingMemoryFigure(store: LibraryStore, rows: Int) throws {
        // At least 1,001 rows a fetch: the coordinator's row cache keeps the rows of fetches of up to 1,000
        // (up to 200k rows in all), which at CI's scale would be the figure instead of the context.
        let pageSize = max(rows / 100, 1_001)
        let onePage = try pagingPeak(store: store, rows: pageSize, pageSize: pageSize, retaining: false)
        let whole = try pagingPeak(store: store, rows: rows, pageSize: pageSize, retaining: false)
        let retained = try pagingPeak(store: store, rows: rows, pageSize: pageSize, retaining: true)
        let ratio = Double(whole) / Double(max(onePage, 1))
        table.append(ResultRow(figure: "15. a context pages through \(Format.count(rows)) products, \(Format.count(pageSize)) a fetch, keeping none: peak resident memory",
                               ours: Format.bytes(whole), raw: "one page held " + Format.bytes(onePage),
                               ratio: Format.ratio(ratio) + " one page", target: "≤ 2× one page", verdict: .check(ratio <= 2)))
        table.append(ResultRow(figure: "15. the same with retainsRegisteredObjects = true (every object kept, as before issue 51)",
                               ours: Format.bytes(retained), raw: "one page held " + Format.bytes(onePage),
                               ratio: Format.ratio(Double(retained) / Double(max(onePage, 1))) + " one page", target: "report", verdict: .report))
    }

    /// The most resident memory above the start while one new context fetches `rows` products in store
    /// order, `pageSize` a fetch (`fetchOffset`, `fetchLimit`), reading each object's name and price and
    /// dropping each page before the next.
    private func pagingPeak(store: LibraryStore, rows: Int, pageSize: Int, retaining: Bool) throws -> Int {
        trimHeap()
        let start = residentBytes()
        var peak = 0
        let context = store.newContext()
        context.retainsRegisteredObjects = retaining
        var read = 0
        for offset in stride(from: 0, to: rows, by: pageSize) {
            let request = NSFetchRequest<Products>(entityName: "Products")
            request.fetchOffset = offset
            request.fetchLimit = pageSize
            let page = try context.fetch(request)
            for product in page { read &+= Int(product.price) &+ (product.name?.utf8.count ?? 0) }
            peak = max(peak, residentBytes() - start)
        }
        blackHole(read)
        withExtendedLifetime(context) {}
        return peak
    }
}
