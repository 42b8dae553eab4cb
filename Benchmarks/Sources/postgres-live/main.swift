import Foundation
import OpenCoreDataPostgres
import OpenCoreDataTesting

// The PostgreSQL store with several processes (Benchmarks/README.md, "PostgreSQL"; issue 49 item 6):
//
//     postgres-live --latency [--processes 4] [--rate 200] [--seconds 10]
//         cross-process change delivery: each process saves `rate` times a second and follows all saves
//         with a fetched results controller; p50/p99 from a writer's commit to another process's
//         controller showing the row, and every controller checked against a fresh fetch at the end.
//         The server is OPENCOREDATA_POSTGRES_URL's, else one of Scripts/postgres-server.sh.
//     postgres-live --chaos [--trials 20] [--seed S]
//         writers killed with SIGKILL mid-save, the server restarted (fast, and immediate: a crash) under
//         load, on a durable server of its own; after each trial every acknowledged save is stored exactly
//         once and the observing controller equals a fresh fetch.
//
// Exit status 1 when a check fails. The child processes are this executable with a --…-child flag.

/// The command line's `--name value` pairs after the mode.
nonisolated(unsafe) let options: [String: String] = {
    var options: [String: String] = [:]
    var arguments = CommandLine.arguments.dropFirst(2).makeIterator()
    while let argument = arguments.next() {
        guard argument.hasPrefix("--"), let value = arguments.next() else { usage() }
        options[String(argument.dropFirst(2))] = value
    }
    return options
}()
let mode = CommandLine.arguments.dropFirst().first ?? ""

func usage() -> Never {
    FileHandle.standardError.write(Data("usage: postgres-live --latency [--processes N] [--rate R] [--seconds S] | --chaos [--trials N] [--seed S]\n".utf8))
    exit(2)
}

func option(_ name: String, _ fallback: Int) -> Int {
    guard let text = options[name] else { return fallback }
    guard let value = Int(text), value > 0 else { usage() }
    return value
}

/// This executable's path (for its children).
nonisolated(unsafe) let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]

func progress(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

switch mode {
case "--latency": try Latency.run(processes: option("processes", 4), rate: option("rate", 200), seconds: option("seconds", 10))
case "--latency-child": try Latency.child(options)
case "--chaos": try Chaos.run(trials: option("trials", 20), seed: UInt64(option("seed", Int(UInt32.random(in: 1...UInt32.max)))))
case "--chaos-writer":
    guard let url = options["url"].flatMap(URL.init(string:)), let writer = options["writer"].flatMap(Int64.init) else { usage() }
    AcknowledgingWriter.run(try TickModel.container(url, watching: false), writer: writer, pause: 2_000)
default: usage()
}
