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

    open override var description: String {
        "NSPropertyMapping(\(name ?? "nil") <- \(valueExpression.map { "\($0)" } ?? "default"))"
    }
}
