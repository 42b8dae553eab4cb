import Foundation

/// A controller's results while the rest loads (`fetchBatchSize` without `fetchLimit`/`fetchOffset`):
/// its sections with their names, index titles and sizes, and its first batch of objects, from the
/// store's counts and first batch (``ProgressiveRows``). Everything else the controller does (an object
/// past the first batch, `fetchedObjects`, a change of the context) first settles it into the whole
/// results (``settle(_:)``): the store's other rows, read meanwhile in the same read transaction, become
/// batch faults placed by their sort values as read, so that tracking is exact.
final class FetchedFirstScreen {
    let rows: ProgressiveRows
    /// The plan as routed to the store (the key root the rows are of).
    let plan: FetchPlan
    /// The sections, as far as they are known before the rest loads.
    let sections: [FirstScreenSection]
    /// The first batch's entries, in order across sections.
    let first: [FetchedEntry]
    /// Whether the section names are the first sort values (else there is one section, named `""`).
    let grouped: Bool

    /// The first screen of `rows`, or `nil` when the groups do not make sections in order (a name met
    /// again after another: the whole fetch then reports the error Core Data gives).
    init?(_ rows: ProgressiveRows, objects: [NSManagedObject], plan: FetchPlan, grouped: Bool, core: FetchedResultsCore) {
        var sections: [FirstScreenSection] = []
        for group in rows.groups {
            let name = grouped ? Self.sectionName(group.value) : ""
            if sections.last?.name == name {
                sections[sections.count - 1].numberOfObjects += group.count
                continue
            }
            guard !sections.contains(where: { $0.name == name }) else {
                rows.abandon()
                return nil
            }
            sections.append(FirstScreenSection(name: name, indexTitle: core.title(for: name), numberOfObjects: group.count, core: core, index: sections.count))
        }
        self.rows = rows
        self.plan = plan
        self.sections = sections
        self.grouped = grouped
        first = objects.map(core.entry(for:))
    }

    deinit { rows.abandon() }

    /// A section's name for a first sort value, as the controller names the section of an object whose
    /// value it is (plain text; `""` for nil).
    static func sectionName(_ value: Value) -> String {
        switch value {
        case .string(let name): return name
        case .null: return ""
        default: return PredicatePrinter.plainText(value)
        }
    }

    /// The object at `indexPath` when it is one of the first batch's.
    func object(at indexPath: IndexPath) -> NSManagedObject? {
        guard indexPath.count == 2, sections.indices.contains(indexPath.section) else { return nil }
        var position = indexPath.row
        for s in sections[..<indexPath.section] { position += s.numberOfObjects }
        return indexPath.row < sections[indexPath.section].numberOfObjects && first.indices.contains(position) ? first[position].object : nil
    }

    /// The index path of `object` when it is one of the first batch's.
    func indexPath(of object: NSManagedObject) -> IndexPath? {
        guard var position = first.firstIndex(where: { $0.object === object }) else { return nil }
        for (s, section) in sections.enumerated() {
            if position < section.numberOfObjects { return IndexPath(row: position, section: s) }
            position -= section.numberOfObjects
        }
        return nil
    }

    /// The whole results: the store's rows once read (waiting for them), the first batch's entries kept
    /// (the same objects), the other objects made or found in `core`'s context. Throws the store's error,
    /// or when the rows do not match the counts read with them.
    func settle(_ core: FetchedResultsCore) throws -> FetchedResultsState {
        let all = try rows.wait()
        let total = sections.reduce(0) { $0 + $1.numberOfObjects }
        guard all.count == total, zip(first, all).allSatisfy({ $0.tiebreak == $1.pk }) else {
            throw CoreDataError(NSCoreDataError, "The store read \(all.count) rows of a fetched results controller's \(total) matches.")
        }
        let objects = try core.context.firstScreenObjects(all, plan: plan)
        var entries: [FetchedEntry] = first
        entries.reserveCapacity(all.count)
        for i in first.count..<all.count {
            let row = all[i]
            entries.append(FetchedEntry(object: objects[i], section: grouped ? Self.sectionName(row.values[0]) : "", keys: row.values, tiebreak: row.pk))
        }
        return FetchedResultsState(try core.makeSections(entries), order: core.order)
    }
}

/// A section of a controller's first screen (``FetchedFirstScreen``): its name, index title and size
/// known; its objects ask the controller, which settles its results.
struct FirstScreenSection: NSFetchedResultsSectionInfo {
    let name: String
    let indexTitle: String?
    var numberOfObjects: Int
    weak var core: FetchedResultsCore?
    let index: Int

    var objects: [Any]? {
        guard let sections = core?.sections, sections.indices.contains(index) else { return nil }
        return sections[index].objects
    }
}
