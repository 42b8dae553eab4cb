/// Whom a store read is for, handed to every read of ``StoreBackend`` (and of the coordinator's
/// row functions) as an argument: the query generation it reads and the context reading. A context makes
/// it once per operation (``NSManagedObjectContext/storeReadScope()``); background work that reads for a
/// context (an asynchronous fetch's store step) carries the context's scope with it.
///
/// The common scope, ``latest``, has both fields `nil`: reading it costs nothing more than reading
/// without one.
package struct StoreReadScope: Sendable {
    /// The query generation to read (a pinned context's), `nil` for the store's current state. A store
    /// reads in it when it is one of its own generations, and ignores it otherwise; the coordinator's
    /// row cache is not used for it.
    package let snapshot: (any StoreSnapshot)?
    /// The context reading, handed to an ``NSIncrementalStore``'s methods; set by a context only when its
    /// coordinator has an incremental store. Held for the read only: a scope is not kept.
    package let context: NSManagedObjectContext?

    /// A scope reading `snapshot` for `context`.
    package init(snapshot: (any StoreSnapshot)? = nil, context: NSManagedObjectContext? = nil) {
        self.snapshot = snapshot
        self.context = context
    }

    /// The store's current state, for no context in particular.
    package static var latest: StoreReadScope { StoreReadScope() }
}
