import Foundation

/// Which of a delegate's optional methods that change what the controller does it implements: the
/// snapshot form, the difference form, the section index title.
///
/// Swift cannot ask whether a class implements a protocol requirement or inherits the protocol
/// extension's default: only a call tells. So the controller learns each of these methods the first
/// time it needs it, by the call it makes anyway, with real data: it opens a probe
/// (``FetchedResultsCore/probe``), calls the method, and closes the probe; the default implementations,
/// which do nothing else, report into an open probe (``FetchedResultsCore/reportDefault()``). The answer
/// is kept while that delegate instance stays the delegate (assigning another one starts afresh), so a
/// method is probed once per delegate, one found not implemented is never called again, and the probe
/// is closed outside those first calls (a default implementation called by anyone else does nothing).
/// The delegate is never called with made-up data to find out.
struct DelegateForm {
    enum Answer { case unknown, implemented, defaulted }
    var snapshot = Answer.unknown
    var difference = Answer.unknown
    var sectionIndexTitle = Answer.unknown
}

extension FetchedResultsCore {
    /// Called by the delegate protocol's default implementations of the methods in ``DelegateForm``.
    func reportDefault() {
        if probe != nil { probe = true }
    }

    /// Calls `body` (which calls `method` of `delegate`) unless the method is known not to be
    /// implemented; returns whether it is. The first call for a delegate runs through the probe.
    private func implements(_ method: WritableKeyPath<DelegateForm, DelegateForm.Answer>,
                            of delegate: NSFetchedResultsControllerDelegate, calling body: () -> Void) -> Bool {
        switch form[keyPath: method] {
        case .defaulted: return false
        case .implemented: body(); return true
        case .unknown:
            probe = false
            body()
            let defaulted = probe == true
            probe = nil
            // Unless the delegate was replaced meanwhile (from inside the call).
            if self.delegate === delegate { form[keyPath: method] = defaulted ? .defaulted : .implemented }
            return !defaulted
        }
    }

    /// Whether the delegate may receive every object of the old sections (the difference form, with no
    /// section key path, unless the delegate is known to take the snapshot or to lack the difference).
    var deliversWholeSections: Bool {
        sectionNameKeyPath == nil && form.snapshot != .implemented && form.difference != .defaulted
    }

    /// A section's index title: the delegate's, if it implements the method, else the controller's.
    func title(for name: String) -> String? {
        if let delegate {
            var title: String?
            if implements(\.sectionIndexTitle, of: delegate, calling: { title = delegate.controller(erased, sectionIndexTitleForSectionName: name) }) {
                return title
            }
        }
        return titleProvider?(name) ?? name.first.map { String($0).uppercased() }
    }

    /// Step (c): `next` becomes the controller's state, and the delegate hears `update` in the one form
    /// it implements, with Core Data's precedence: the snapshot; else the difference (no section key
    /// path); else the classic will-change, section and object changes, did-change sequence.
    func deliver(_ update: FetchedUpdate, new next: FetchedResultsState) {
        state = next
        let batch = update.batch
        guard !batch.isEmpty else { return }
        defer { notifyListeners() }
        guard let delegate else { return }
        let new = next.sections
        let old = update.oldSections ?? new
        let view = erased
        let tookSnapshot = implements(\.snapshot, of: delegate) {
            var snapshot = FetchedResultsSnapshot(new).diffableSnapshot
            snapshot.reloadItems(batch.objects.filter { $0.type == .update || $0.type == .move }.map(\.object.objectID))
            delegate.controller(view, didChangeContentWith: NSDiffableDataSourceSnapshotReference(snapshot))
        }
        if tookSnapshot { return }
        if sectionNameKeyPath == nil {
            let tookDifference = implements(\.difference, of: delegate) {
                let oldIDs = old.flatMap { $0.entries.map(\.object.objectID) }
                let newIDs = new.flatMap { $0.entries.map(\.object.objectID) }
                delegate.controller(view, didChangeContentWith: newIDs.difference(from: oldIDs))
            }
            if tookDifference { return }
        }
        delegate.controllerWillChangeContent(view)
        for change in batch.sections {
            let info: NSFetchedResultsSectionInfo = change.type == .delete ? old[change.index] : new[change.index]
            delegate.controller(view, didChange: info, atSectionIndex: change.index, for: change.type)
        }
        for change in batch.objects {
            delegate.controller(view, didChange: change.object, at: change.old, for: change.type, newIndexPath: change.new)
        }
        delegate.controllerDidChangeContent(view)
    }
}
