import Foundation

/// What `ocd-store` does, apart from reading its command line: the report of a store (and its model), or
/// the rows a fetch finds. docs/Inspector.md describes the output and the exit statuses.
package enum StoreInspector {
    /// What to print and the exit status.
    package struct Output: Equatable {
        package let text: String
        package let exitCode: Int32
    }

    /// The report of the store at `storePath` (compared with the model at `modelPath`, if given), or with
    /// `fetch` the rows it asks for, as a table or as JSON. The report's status is 1 when it lists problems.
    package static func run(store storePath: String, model modelPath: String? = nil, fetch: FetchOptions? = nil,
                            json: Bool = false) throws(InspectorError) -> Output {
        let store = try StoreSummary(path: storePath)
        let comparison = try modelPath.map { path throws(InspectorError) in try ModelComparison(store: store, modelPath: path) }
        guard let fetch else {
            return Output(text: SummaryReport.text(store, comparison), exitCode: store.problems.isEmpty ? 0 : 1)
        }
        guard let comparison else { throw .request("--fetch needs --model: the model that wrote the store") }
        let rows = try FetchedRows(store: store, comparison: comparison, options: fetch)
        return Output(text: json ? RowOutput.json(rows) : RowOutput.table(rows), exitCode: 0)
    }
}
