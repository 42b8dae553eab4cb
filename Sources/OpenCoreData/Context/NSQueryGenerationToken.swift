import Foundation

/// Mirrors Core Data's `NSManagedObjectContextQueryGenerationKey`: the key of a context's query
/// generation in the userInfo of its notifications (`NSManagedObjectContext.NotificationKey.queryGeneration`).
public let NSManagedObjectContextQueryGenerationKey = NSManagedObjectContext.NotificationKey.queryGeneration.rawValue

/// Mirrors Core Data's `NSQueryGenerationToken`: an opaque token for a query generation of a store —
/// the store as it was at one moment — to pin contexts to (`setQueryGenerationFrom(_:)`), or ``current``,
/// the generation a context meets at its next read.
///
/// Tokens of one generation are equal. Encoding (`NSSecureCoding`) keeps the store's identifier and the
/// generation's number: a decoded token is the generation again while it is alive in this process (some
/// context or token still refers to it), and decoding fails (`nil`) once it has ended, since the
/// store's older state is only kept while a reader holds it open.
open class NSQueryGenerationToken: NSObject, NSSecureCoding, @unchecked Sendable {
    /// The generation; `nil` for ``current``.
    let snapshot: (any StoreSnapshot)?

    private static let currentToken = NSQueryGenerationToken(snapshot: nil)

    /// Mirrors `current`: the token that pins a context to the store's most recent generation, taken at
    /// the context's next read (a fetch, or a fault firing).
    open class var current: NSQueryGenerationToken { currentToken }

    init(snapshot: (any StoreSnapshot)?) {
        self.snapshot = snapshot
        super.init()
    }

    /// Mirrors `supportsSecureCoding`: true.
    public static var supportsSecureCoding: Bool { true }

    /// Mirrors `encode(with:)`.
    open func encode(with coder: NSCoder) {
        coder.encode(snapshot == nil, forKey: "current")
        if let snapshot {
            coder.encode(snapshot.storeIdentifier as NSString, forKey: "store")
            coder.encode(snapshot.number, forKey: "generation")
        }
    }

    /// Mirrors `init(coder:)`: `nil` when the archive holds no token, or its generation has ended.
    public required init?(coder: NSCoder) {
        if coder.decodeBool(forKey: "current") {
            snapshot = nil
        } else {
            guard let store = coder.decodeObject(of: NSString.self, forKey: "store") as String?,
                  let found = LiveSnapshots.find(store: store, number: coder.decodeInteger(forKey: "generation")) else { return nil }
            snapshot = found
        }
        super.init()
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSQueryGenerationToken else { return false }
        return other.snapshot === snapshot
    }

    open override var hash: Int { snapshot.map { ObjectIdentifier($0).hashValue } ?? 0 }

    open override var description: String {
        snapshot.map { "<NSQueryGenerationToken: generation \($0.number) of store \($0.storeIdentifier)>" } ?? "<NSQueryGenerationToken: current>"
    }
}
