import Foundation

/// Mirrors SwiftData's `EditingState`: which context a store request comes from, and its author.
public struct EditingState: Hashable, Sendable {
    /// Mirrors `id`: the context's identity.
    public let id: UUID
    /// Mirrors `author`: the context's ``ModelContext/author``.
    public let author: String?
}

extension ModelContext {
    /// Mirrors `editingState`: this context's identity and author.
    public var editingState: EditingState { EditingState(id: identity, author: author) }
}
