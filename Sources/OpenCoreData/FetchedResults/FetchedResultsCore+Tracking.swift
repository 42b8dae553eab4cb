import Foundation
import Logging

/// Where fetched results controllers report a store error that kept a change from their results.
let controllerLogger = Logger(label: "OpenCoreData.controller")

extension FetchedResultsCore {
    /// What the context tells its controllers (see ``ContextChange``).
    func contextDidChange(_ change: ContextChange) {
        switch change {
        case .objects(let announced): process(announced)
        case .invalidatedAll: refetch()
        case .saved(let inserted): adoptStoreKeys(inserted)
        }
    }

    /// Applies one change of the context's objects to the results and tells the delegate, in three
    /// steps: (a) ``collect(_:plan:windowed:made:)`` finds the change set — the only step that reads the
    /// context or the store; (b) the pure ``FetchedResultsState/applying(_:keepingOldSections:indexTitle:)``
    /// gives the new state and the batch; (c) ``deliver(_:new:)`` tells the delegate. Cost grows with the
    /// number of changed objects (binary searches and array inserts/removals), not with the number of
    /// results; with `fetchLimit`/`fetchOffset` also with the window (see ``processWindowed(_:plan:)``).
    func process(_ announced: AnnouncedChanges) {
        guard state != nil, let plan, isTracking else { return }
        // A step that failed earlier left the results short of a change: this change fetches them again.
        if isStale { return refetch(keepingOnFailure: true) }
        // The rows registered to be evaluated that are not shown are forgotten again (the context had not
        // registered them), whatever happens.
        var made: [NSManagedObject] = []
        defer { if let state { forget(made, unless: state) } }
        let changes: FetchedChangeSet
        do {
            changes = try collect(announced, plan: plan, windowed: window != nil, made: &made)
        } catch {
            return trackingFailed(error)
        }
        if window != nil { return processWindowed(changes, plan: plan) }
        guard !changes.objects.isEmpty else { return }
        // Moved out and back in, never copied: a second reference to the state would make the first
        // change copy every section and the index (copy on write), an O(n) cost per change.
        let keepOld = deliversWholeSections
        let (next, update) = state.take()!.applying(changes.objects, keepingOldSections: keepOld, indexTitle: title(for:))
        deliver(update, new: next)
    }

    /// A change under `fetchLimit`/`fetchOffset`, applied to the known rows (before the window, the
    /// window, the buffer beyond it) by binary search, found by object ID (``FetchedWindow/apply(_:)``,
    /// pure). The store is asked only when the window's last row became unknown: for the rows from the
    /// last known position to the end of the buffer, one query. The window is then the slice
    /// `[offset, offset + limit)`, its rows registered in the context, compared with the old one (cost
    /// grows with the window, not with the results).
    private func processWindowed(_ changes: FetchedChangeSet, plan: FetchPlan) {
        guard !changes.objects.isEmpty || !changes.gone.isEmpty, let old = state?.sections, var window else { return }
        window.apply(changes)
        var registered: [NSManagedObject] = []
        defer { if let state { forget(registered, unless: state) } }
        do {
            if window.needsEdge {
                let asked = window.edgeLimit
                let edge = try request.fetchObjects(in: context, plan: plan.range(offset: window.rows.count, limit: asked))
                window.append(edge: edge.objects.map(entry(for:)), asked: asked)
                registered = edge.registered
            }
            window.trim()
            let next = FetchedResultsState(try windowSections(&window), order: order)
            self.window = window
            let updated = Set(changes.objects.lazy.filter(\.updated).map { ObjectIdentifier($0.object) })
            deliver(FetchedUpdate(oldSections: old, batch: ChangeTracker.changes(from: old, to: next.sections, changed: updated)), new: next)
        } catch {
            trackingFailed(error)
        }
    }

    /// After the context's `reset()` (every object it held is gone), or at the first change after a
    /// failed step (``isStale``): fetches the results again and delivers the difference. Objects whose
    /// sort values or section changed are reported as updated (moved if their order changed); the others
    /// keep their relative order. If the fetch fails (``trackingFailed(_:)``), the results after `reset()`
    /// are empty, as the objects they held are gone; a stale controller keeps its results, still stale.
    private func refetch(keepingOnFailure: Bool = false) {
        guard let plan, let state, isTracking else { return }
        var fresh: (FetchedResultsState, FetchedWindow?)?
        do {
            fresh = try fetchState(plan)
            isStale = false
        } catch {
            trackingFailed(error)
            if keepingOnFailure { return }
        }
        if plan.limit > 0 || plan.offset > 0 {
            window = fresh?.1 ?? FetchedWindow(offset: plan.offset, limit: plan.limit, order: order)
        }
        let new = fresh?.0 ?? FetchedResultsState([], order: order)
        var changed = Set<ObjectIdentifier>()
        for section in new.sections {
            for e in section.entries {
                if let old = state.entry(for: e.object), old.section != e.section || old.keys != e.keys { changed.insert(ObjectIdentifier(e.object)) }
            }
        }
        let batch = ChangeTracker.changes(from: state.sections, to: new.sections, changed: changed)
        deliver(FetchedUpdate(oldSections: state.sections, batch: batch), new: new)
    }

    /// The one policy for a store error while tracking (a related row, a to-many relationship, a
    /// window's edge, the fetch after `reset()`): the error is logged with the controller's request, the
    /// change it kept from the results is not applied (the delegate hears nothing of it; after `reset()`
    /// the results are empty, as the objects they held are gone), and the controller is marked stale:
    /// the context's next change makes it fetch its results again and deliver the difference (the change
    /// included), and its next `performFetch()` fetches from the store, never from the cache file. Never
    /// silently stale, and not stale for longer than until the next change.
    func trackingFailed(_ error: any Error) {
        needsRefetch = true
        isStale = true
        let predicate = request.predicate.map { ", predicate \($0.predicateFormat)" } ?? ""
        let sorts = (request.sortDescriptors ?? []).map(\.description).joined(separator: ", ")
        controllerLogger.error("""
            NSFetchedResultsController of \(request.entityName ?? "?")\(predicate), sorted by \(sorts): a store error kept a \
            change from its results, which miss it until the context's next change fetches them again: \(error)
            """)
    }

    /// Objects inserted here got store keys when saved. Their tiebreak becomes the key; relative order is
    /// unchanged (new keys are above every existing one and follow insertion order), so arrays stay sorted.
    private func adoptStoreKeys(_ inserted: Set<NSManagedObject>) {
        guard state != nil else { return }
        for object in inserted {
            guard let old = state!.entry(for: object), let pk = object.objectKey.primaryKey else { continue }
            state!.replace(old, with: FetchedEntry(object: object, section: old.section, keys: old.keys, tiebreak: pk))
        }
        window?.adoptStoreKeys()
    }
}
