import Foundation

/// The controller's persistent cache (`cacheName`): section names, index titles, and each object's store
/// key, entity and sort values, one JSON file per cache name in `$XDG_CACHE_HOME/OpenCoreData/FetchedResultsCache`
/// (or `~/.cache/…`, `NSTemporaryDirectory()` as a last resort).
///
/// Core Data checks a cache only against the fetch request, so a cache written before another process (or
/// a launch without the controller) changed the store is reused stale. Ours records the store's state too
/// (`generation`, made from Core Data's bookkeeping: docs/StoreFormat.md): `performFetch()` reuses a cache
/// only when entity, model version, predicate, sort descriptors, section key path, limit/offset, store
/// identifier and store state all match and the
/// context has no unsaved changes; otherwise it deletes the file, fetches, and writes a new one.
enum FetchedResultsCache {
    struct File: Codable, Equatable {
        var entity: String
        var modelVersion: String
        var predicate: String
        var sortDescriptors: [String]
        var sectionNameKeyPath: String
        var limit: Int
        var offset: Int
        var includesSubentities: Bool
        var store: String
        var generation: String
        var sections: [Section] = []
        /// For a request with `fetchLimit`/`fetchOffset`: the rows the controller knows around the window.
        var outside: Outside?
        struct Outside: Codable, Equatable {
            /// The rows before the window and those beyond it, grouped by section name in sort order.
            var before: [Section]
            var beyond: [Section]
            /// Whether no row follows the last one known.
            var complete: Bool
        }
        struct Section: Codable, Equatable {
            var name: String
            var indexTitle: String?
            var keys: [Int64]
            var entities: [Int]
            var sortValues: [[CachedValue]]
        }

        func matches(_ other: File) -> Bool {
            var a = self, b = other
            a.sections = []; b.sections = []
            a.outside = nil; b.outside = nil
            return a == b
        }
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

    /// What a cache for this controller must record, read before the fetch (a save between the two
    /// makes the cache look older than it is, never newer).
    static func signature(_ core: FetchedResultsCore, plan: FetchPlan) throws -> File? {
        guard let coordinator = core.context.persistentStoreCoordinator else { return nil }
        let store = try coordinator.store(root: plan.layout.rootEntityID), generation = try coordinator.generation(root: plan.layout.rootEntityID)
        let request = core.request
        return File(entity: plan.entity.name ?? "", modelVersion: plan.entity.managedObjectModel.versionHash,
                    predicate: request.predicate?.predicateFormat ?? "",
                    sortDescriptors: plan.descriptors.map(\.description),
                    sectionNameKeyPath: core.sectionNameKeyPath ?? "", limit: plan.limit, offset: plan.offset,
                    includesSubentities: request.includesSubentities, store: store.identifier, generation: generation)
    }

    /// The cached sections, if the file exists and matches `signature`; a file that does not match is deleted.
    static func read(_ name: String, matching signature: File) -> File? {
        guard let data = try? Data(contentsOf: url(name)) else { return nil }
        guard let file = try? JSONDecoder().decode(File.self, from: data), file.matches(signature) else {
            delete(name)
            return nil
        }
        return file
    }

    /// Writes the controller's sections under `signature`, and for a windowed request the rows it knows
    /// around the window. Sections holding objects without a store key (unsaved inserts) or sort values a
    /// cache cannot hold are not cached.
    static func write(_ name: String, signature: File, sections: [FetchedSection], outside window: FetchedWindow?) {
        var file = signature
        func cached(_ s: FetchedSection) -> File.Section? {
            var section = File.Section(name: s.name, indexTitle: s.indexTitle, keys: [], entities: [], sortValues: [])
            for e in s.entries {
                guard let pk = e.object.objectKey.primaryKey else { return nil }
                let values = e.keys.compactMap(CachedValue.init)
                guard values.count == e.keys.count else { return nil }
                section.keys.append(pk)
                section.entities.append(e.object.layout.entityID)
                section.sortValues.append(values)
            }
            return section
        }
        /// Rows outside the window, grouped by consecutive section name.
        func grouped(_ rows: ArraySlice<FetchedEntry>) -> [File.Section]? {
            var groups: [FetchedSection] = []
            for e in rows {
                if groups.last?.name == e.section { groups[groups.count - 1].entries.append(e) } else {
                    groups.append(FetchedSection(name: e.section, indexTitle: nil, entries: [e]))
                }
            }
            let sections = groups.compactMap(cached)
            return sections.count == groups.count ? sections : nil
        }
        let all = sections.compactMap(cached)
        guard all.count == sections.count else { delete(name); return }
        file.sections = all
        if let window {
            let (before, beyond) = window.outside
            guard let b = grouped(before), let a = grouped(beyond) else { delete(name); return }
            file.outside = File.Outside(before: b, beyond: a, complete: window.complete)
        }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try? JSONEncoder().encode(file).write(to: url(name), options: .atomic)
    }
}

/// A sort value as the cache file holds it: a kind and its text.
struct CachedValue: Codable, Equatable {
    var kind: String
    var text: String

    init?(_ value: Value) {
        switch value {
        case .null: (kind, text) = ("n", "")
        case .bool(let b): (kind, text) = ("b", b ? "1" : "0")
        case .int(let i): (kind, text) = ("i", String(i))
        case .double(let d): (kind, text) = ("d", String(d))
        case .decimal(let d): (kind, text) = ("m", d.description)
        case .string(let s): (kind, text) = ("s", s)
        case .date(let d): (kind, text) = ("t", String(d.timeIntervalSinceReferenceDate))
        case .data(let d): (kind, text) = ("x", d.base64EncodedString())
        case .uuid(let u): (kind, text) = ("u", u.uuidString)
        case .url(let u): (kind, text) = ("l", u.absoluteString)
        case .array, .set, .object, .collection: return nil
        }
    }

    var value: Value? {
        switch kind {
        case "n": return .null
        case "b": return .bool(text == "1")
        case "i": return Int64(text).map(Value.int)
        case "d": return Double(text).map(Value.double)
        case "m": return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map(Value.decimal)
        case "s": return .string(text)
        case "t": return Double(text).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case "x": return Data(base64Encoded: text).map(Value.data)
        case "u": return UUID(uuidString: text).map(Value.uuid)
        case "l": return URL(string: text).map(Value.url)
        default: return nil
        }
    }
}
