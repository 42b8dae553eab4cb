import Foundation

/// The controller's cache (`cacheName`): section names, index titles and the objects' store keys, kept in
/// `$XDG_CACHE_HOME/OpenCoreData/FetchedResultsCache` (or `~/.cache/…`, `NSTemporaryDirectory()` as a last
/// resort), one JSON file per cache name, recording entity, model version, predicate, sort descriptors,
/// section key path and store. `performFetch()` writes it; reusing it is not implemented yet.
enum FetchedResultsCache {
    struct File: Codable {
        var entity: String
        var modelVersion: String
        var predicate: String
        var sortDescriptors: [String]
        var sectionNameKeyPath: String
        var store: String
        var sections: [Section]
        struct Section: Codable { var name: String; var indexTitle: String?; var keys: [Int64] }
    }

    static var directory: URL {
        let env = ProcessInfo.processInfo.environment
        let base = env["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0) }
            ?? env["HOME"].map { URL(fileURLWithPath: $0).appendingPathComponent(".cache") }
            ?? URL(fileURLWithPath: NSTemporaryDirectory())
        return base.appendingPathComponent("OpenCoreData/FetchedResultsCache")
    }

    static func url(_ name: String) -> URL {
        let safe = name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        return directory.appendingPathComponent(String(safe) + ".json")
    }

    static func delete(_ name: String?) {
        if let name {
            try? FileManager.default.removeItem(at: url(name))
        } else {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static func signature(_ core: FetchedResultsCore) -> File? {
        guard let plan = core.plan, let store = try? core.context.persistentStoreCoordinator?.store() else { return nil }
        return File(entity: plan.entity.name ?? "", modelVersion: plan.entity.managedObjectModel.versionHash,
                    predicate: core.request.predicate?.predicateFormat ?? "",
                    sortDescriptors: (core.request.sortDescriptors ?? []).map(\.description),
                    sectionNameKeyPath: core.sectionNameKeyPath ?? "", store: store.identifier, sections: [])
    }

    static func write(_ name: String, core: FetchedResultsCore) {
        guard var file = signature(core), let sections = core.sections else { return }
        file.sections = sections.map { s in .init(name: s.name, indexTitle: s.indexTitle, keys: s.entries.compactMap(\.object.objectID.primaryKey)) }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try? JSONEncoder().encode(file).write(to: url(name), options: .atomic)
    }
}
