import Foundation

/// Mirrors `NSPersistentHistoryToken`: a place in one store's persistent history — the transactions up
/// to and including one. Fetch what came after it with ``NSPersistentHistoryChangeRequest/fetchHistory(after:)-(NSPersistentHistoryToken?)``;
/// keep it across launches with `NSKeyedArchiver` (it is `NSSecureCoding`). A token names its store: using
/// it with another store is an error.
open class NSPersistentHistoryToken: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {
    /// The store's UUID (`NSStoreUUID`).
    let storeID: String
    /// The last transaction the token covers (`ATRANSACTION.Z_PK`; 0 before any).
    let transactionNumber: Int64

    package init(storeID: String, transactionNumber: Int64) {
        self.storeID = storeID
        self.transactionNumber = transactionNumber
        super.init()
    }

    /// Mirrors `supportsSecureCoding`: true.
    public static var supportsSecureCoding: Bool { true }

    /// Mirrors `encode(with:)` (`NSCoding`).
    open func encode(with coder: NSCoder) {
        coder.encode(storeID as NSString, forKey: "storeID")
        coder.encode(transactionNumber, forKey: "transactionNumber")
    }

    /// Mirrors `init(coder:)`: a token decoded from an archive; `nil` when the archive holds none.
    public required init?(coder: NSCoder) {
        guard let storeID = coder.decodeObject(of: NSString.self, forKey: "storeID") as String?,
              coder.containsValue(forKey: "transactionNumber") else { return nil }
        self.storeID = storeID
        self.transactionNumber = coder.decodeInt64(forKey: "transactionNumber")
        super.init()
    }

    /// Mirrors `copy(with:)` (`NSCopying`): tokens are values, so the token itself.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// Tokens are equal when they name the same place in the same store.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPersistentHistoryToken else { return false }
        return storeID == other.storeID && transactionNumber == other.transactionNumber
    }

    open override var hash: Int { storeID.hashValue ^ transactionNumber.hashValue }

    open override var description: String { "<NSPersistentHistoryToken: store \(storeID), transaction \(transactionNumber)>" }
}
