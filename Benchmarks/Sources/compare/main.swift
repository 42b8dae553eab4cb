import OpenCoreData

// Compares OpenCoreData's fetch stack with the SQLite C API and GRDB on the same SQLite files, in one
// process, and prints a Markdown table of medians against the project's targets.
//
//     swift run -c release --package-path Benchmarks compare [--rows N] [--repetitions R]
//
// --rows         about how many objects the fetch figures read (default 100000); the batch figures
//                read 10 × N, the insert figure writes N
// --repetitions  timed runs per variant after one warm-up run (default 5); the table shows the median
// --only         run some groups of figures only: fetch (1-3), batch (4-5), insert (6), controller (7),
//                predicates (8-9), relationships (10-12), managed (13), migrate (14), comma-separated; for profiling one of them
// --profile      runs the same command under `perf record -g`, sampling the timed parts only, and prints
//                the `perf report` command for the profile (compare.perf.data in the current directory)

var settings = Settings()
var groups = Set(Figures.groups)
var profile = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--rows":
        guard let n = arguments.next().flatMap({ Int($0) }), n >= 100 else {
            progress("--rows takes a number of at least 100")
            exit(2)
        }
        settings.rows = n
    case "--repetitions":
        guard let n = arguments.next().flatMap({ Int($0) }), n >= 1 else {
            progress("--repetitions takes a number of at least 1")
            exit(2)
        }
        settings.repetitions = n
    case "--only":
        let names = (arguments.next() ?? "").split(separator: ",").map(String.init)
        guard !names.isEmpty, names.allSatisfy(Figures.groups.contains) else {
            progress("--only takes a comma-separated list of \(Figures.groups.joined(separator: ", "))")
            exit(2)
        }
        groups = Set(names)
    case "--profile":
        profile = true
    case "--help", "-h":
        print("usage: compare [--rows N] [--repetitions R] [--only \(Figures.groups.joined(separator: ","))] [--profile]")
        exit(0)
    default:
        progress("unknown argument \(argument); try --help")
        exit(2)
    }
}

if profile {
    exit(Profiling.runUnderPerf(arguments: CommandLine.arguments.dropFirst().filter { $0 != "--profile" }))
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("OpenCoreDataBenchmarks-\(UUID().uuidString)")
do {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
} catch {
    progress("cannot create \(directory.path): \(error)")
    exit(1)
}

let start = monotonicSeconds()
let figures = Figures(settings: settings, directory: directory)
var failure: (any Error)?
do {
    try figures.run(groups: groups)
} catch {
    failure = error
}
try? FileManager.default.removeItem(at: directory)
if let failure {
    progress("failed: \(failure)")
    exit(1)
}

print("OpenCoreData benchmarks: rows \(settings.rows) (fetch store \(settings.fetchStoreRows), batch store \(settings.batchRows)), "
    + "median of \(settings.repetitions) after a warm-up, SQLite \(RawDatabase.libraryVersion), \(ProcessInfo.processInfo.activeProcessorCount) cores")
print("")
printTable(figures.table)
print("")
print(String(format: "total %.1f s", monotonicSeconds() - start))
