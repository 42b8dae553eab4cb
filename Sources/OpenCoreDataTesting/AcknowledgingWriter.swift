import Foundation
import OpenCoreData
#if canImport(Glibc)
import Glibc
#endif

/// The chaos trials' writer (Benchmarks `postgres-live --chaos`, `ocd-crash-writer --acked-writer`): saves
/// one `Tick` a save, tags `writer << 32 | 1, 2, …`, forever, and prints `ack <tag>` only after `save()`
/// returned. A save that throws is printed (`failed <tag> <error>`) and its tag is tried again — but only
/// after a fetch shows it is not stored: a save whose `COMMIT` reached the server but whose answer was
/// lost throws though it committed, and saving it again would store it twice (`committed <tag>` then
/// acknowledges it). Stops when its parent process is gone.
public enum AcknowledgingWriter {
    /// Saves as writer `writer` until the parent process is gone, pausing `pause` µs after each save.
    public static func run(_ container: NSPersistentContainer, writer: Int64, pause: useconds_t = 0) -> Never {
        let context = container.newBackgroundContext()
        let parent = getppid()
        var serial: Int64 = 0
        while getppid() == parent {
            serial += 1
            let tag = writer << 32 | serial
            context.performAndWait { saveUntilStored(tag, context) }
            if pause > 0 { usleep(pause) }
        }
        exit(0)
    }

    private static func saveUntilStored(_ tag: Int64, _ context: NSManagedObjectContext) {
        while true {
            do {
                TickModel.insert(tag: tag, into: context)
                try context.save()
                say("ack \(tag)")
                context.reset()
                return
            } catch {
                context.rollback()
                say("failed \(tag) \(String(describing: error).prefix(200).replacingOccurrences(of: "\n", with: " "))")
            }
            // Before saving the tag again: is it there already (the answer to COMMIT lost)?
            while true {
                do {
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Tick")
                    request.predicate = NSPredicate(format: "tag == %lld", tag)
                    if try context.count(for: request) > 0 {
                        say("committed \(tag)")
                        say("ack \(tag)")
                        return
                    }
                    break
                } catch {
                    usleep(50_000)  // the server is away: ask again
                }
            }
        }
    }

    /// One line to standard output, unbuffered (a SIGKILL loses nothing printed).
    private static func say(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBufferPointer { write(1, $0.baseAddress, $0.count) }
    }

    /// The tags acknowledged in what a writer printed (complete lines only), and how many saves threw.
    public static func acknowledged(in output: String) -> (tags: [Int64], failures: Int, committedAnyway: Int) {
        var tags: [Int64] = [], failures = 0, committed = 0
        for line in output.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line.hasPrefix("ack "), let tag = Int64(line.dropFirst(4)) { tags.append(tag) }
            if line.hasPrefix("failed ") { failures += 1 }
            if line.hasPrefix("committed ") { committed += 1 }
        }
        return (tags, failures, committed)
    }
}
