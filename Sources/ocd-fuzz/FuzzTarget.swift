/// The two fuzz targets, named as on the command line.
enum FuzzTarget: String, CaseIterable {
    /// ``ParserFuzzing``: format text → parse → print → parse.
    case parser
    /// ``SQLFuzzing``: a predicate tree → SQL fetch versus in-memory evaluation.
    case sql

    func run(_ bytes: [UInt8]) {
        switch self {
        case .parser: ParserFuzzing.run(bytes)
        case .sql: SQLFuzzing.run(bytes)
        }
    }
}
