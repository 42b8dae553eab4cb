import Foundation
import OpenCoreData
#if canImport(Glibc)
import Glibc
#endif

/// The model of the live PostgreSQL figures and the chaos trials (Benchmarks/README.md, "PostgreSQL"):
/// one entity, `Tick`, one row per save. `tag` is the row's unique id (`writer << 32 | serial`), with no
/// uniqueness constraint, so that a row saved twice shows as two rows; `sentAt` is when the writer made
/// it (`CLOCK_REALTIME`, microseconds: one clock for every process of the machine).
public enum TickModel {
    /// The model: `Tick` with `tag`, `writer` and `sentAt`, all 64-bit integers.
    public static func make() -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [
            NSEntityDescription(name: "Tick", properties: [
                NSAttributeDescription(name: "tag", type: .integer64AttributeType, optional: false),
                NSAttributeDescription(name: "writer", type: .integer64AttributeType, optional: false),
                NSAttributeDescription(name: "sentAt", type: .integer64AttributeType, optional: false),
            ]),
        ])
    }

    /// A container on the store at `url` recording history (`NSPersistentHistoryTrackingKey`), posting
    /// `NSPersistentStoreRemoteChange` when `watching`.
    public static func container(_ url: URL, watching: Bool) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Ticks", managedObjectModel: make())
        let description = NSPersistentStoreDescription(url: url)
        description.setOption(NSNumber(value: true), forKey: NSPersistentHistoryTrackingKey)
        if watching { description.setOption(NSNumber(value: true), forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey) }
        container.persistentStoreDescriptions = [description]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        return container
    }

    /// Inserts one tick into `context` (not saved).
    @discardableResult
    public static func insert(tag: Int64, into context: NSManagedObjectContext) -> NSManagedObject {
        let tick = NSEntityDescription.insertNewObject(forEntityName: "Tick", into: context)
        tick.setValue(tag, forKey: "tag")
        tick.setValue(tag >> 32, forKey: "writer")
        tick.setValue(realtimeMicroseconds(), forKey: "sentAt")
        return tick
    }

    /// Every tick's tag in the store, read by a fresh context (one value a row: a tag saved twice is
    /// there twice), in tag order.
    public static func storedTags(_ coordinator: NSPersistentStoreCoordinator) throws -> [Int64] {
        let context = NSManagedObjectContext(.privateQueue)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            let request = NSFetchRequest<NSDictionary>(entityName: "Tick")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["tag"]
            request.sortDescriptors = [NSSortDescriptor(key: "tag", ascending: true)]
            return try context.fetch(request).map { ($0["tag"] as? NSNumber)?.int64Value ?? -1 }
        }
    }

    /// What is wrong with the store after a trial: a tag stored more than once, an acknowledged tag not
    /// stored. Empty when nothing is.
    public static func problems(stored: [Int64], acknowledged: Set<Int64>) -> [String] {
        var counts: [Int64: Int] = [:]
        for tag in stored { counts[tag, default: 0] += 1 }
        let twice = counts.filter { $0.value > 1 }.keys.sorted()
        let lost = acknowledged.filter { counts[$0] == nil }.sorted()
        var problems: [String] = []
        if !twice.isEmpty { problems.append("\(twice.count) tags stored more than once: \(twice.prefix(5).map(describe))") }
        if !lost.isEmpty { problems.append("\(lost.count) acknowledged tags lost: \(lost.prefix(5).map(describe))") }
        return problems
    }

    /// A tag as `writer:serial`.
    public static func describe(_ tag: Int64) -> String { "\(tag >> 32):\(tag & 0xFFFF_FFFF)" }
}

/// `CLOCK_REALTIME` in microseconds: comparable across the processes of one machine.
public func realtimeMicroseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
}
