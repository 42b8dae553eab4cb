import Foundation

/// The standard merge policies' arithmetic, as a pure function of three rows: what the object has now,
/// what it read, and what the store has now. ``NSMergePolicy`` applies it; it has its own tests.
enum MergeArithmetic {
    /// The values a conflicting object takes under `type`, slot by slot over `slots` (the persistent
    /// ones; other slots keep the object's values):
    /// - `mergeByPropertyStoreTrump`: the store's value wherever the store changed it or the object did not;
    /// - `mergeByPropertyObjectTrump`: the object's value wherever the object changed it, else the store's;
    /// - `overwrite`: the object's values;
    /// - `rollback`: the store's values;
    /// - `error`: the object's values (the policy throws before using them).
    static func merged(_ type: NSMergePolicyType, object: [Value], read: [Value], store: [Value], slots: [Int]) -> [Value] {
        var result = object
        for slot in slots {
            let mine = object[slot] != read[slot]
            let theirs = store[slot] != read[slot]
            switch type {
            case .mergeByPropertyStoreTrumpMergePolicyType: result[slot] = theirs || !mine ? store[slot] : object[slot]
            case .mergeByPropertyObjectTrumpMergePolicyType: result[slot] = mine ? object[slot] : store[slot]
            case .rollbackMergePolicyType: result[slot] = store[slot]
            case .overwriteMergePolicyType, .errorMergePolicyType: result[slot] = object[slot]
            }
        }
        return result
    }

    /// Whether an object whose row another context deleted is written again (`true`) or follows the store
    /// and is forgotten (`false`).
    static func rewritesDeletedRow(_ type: NSMergePolicyType) -> Bool {
        type == .mergeByPropertyObjectTrumpMergePolicyType || type == .overwriteMergePolicyType
    }

    /// Whether a row deleted here but changed in the store is deleted all the same.
    static func deletesChangedRow(_ type: NSMergePolicyType) -> Bool {
        type != .rollbackMergePolicyType
    }
}
