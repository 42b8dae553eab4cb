import Foundation

/// Mirrors Core Data's `NSPropertyMapping`: how one property of a destination entity gets its value.
open class NSPropertyMapping: NSObject {
    /// Mirrors `name`: the destination property's name.
    open var name: String?
    /// Mirrors `valueExpression`: what the value is made from, with `$source` the source instance and
    /// `$manager` the migration manager; `nil` leaves the destination's default value.
    open var valueExpression: NSExpression?
    /// Mirrors `userInfo`.
    open var userInfo: [AnyHashable: Any]?

    /// Mirrors `init()`.
    public override init() { super.init() }

    /// Not in Core Data: a mapping of `name` made from `valueExpression`.
    public convenience init(name: String, valueExpression: NSExpression?) {
        self.init()
        self.name = name
        self.valueExpression = valueExpression
    }

    /// Mirrors `isEqual(_:)`: as on Apple platforms, equal when the name, the value expression and the
    /// user info are (two mappings read from one `.xcmappingmodel` are equal).
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPropertyMapping else { return false }
        return other === self || (name == other.name && valueExpression == other.valueExpression
                                  && Self.equalUserInfo(userInfo, other.userInfo))
    }

    /// Mirrors `hash`: of the name (equal mappings have the same).
    open override var hash: Int { name.hashValue }

    /// Whether two mappings' `userInfo` hold the same keys and equal values (a value that is not
    /// `Hashable` is equal only to the same object).
    static func equalUserInfo(_ a: [AnyHashable: Any]?, _ b: [AnyHashable: Any]?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        guard a.count == b.count else { return false }
        return a.allSatisfy { key, value in
            guard let theirs = b[key] else { return false }
            if let x = value as? AnyHashable, let y = theirs as? AnyHashable { return x == y }
            return (value as AnyObject) === (theirs as AnyObject)
        }
    }

    open override var description: String {
        "NSPropertyMapping(\(name ?? "nil") <- \(valueExpression.map { "\($0)" } ?? "default"))"
    }
}
