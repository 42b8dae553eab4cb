import Foundation

// NSCopying: predicates, expressions and sort descriptors are immutable, so a copy is the object itself,
// as Foundation returns for its immutable classes.

extension NSPredicate: NSCopying {
    /// Mirrors `copy(with:)`: the predicate itself (predicates are immutable).
    public func copy(with zone: NSZone? = nil) -> Any { self }
}

extension NSExpression: NSCopying {
    /// Mirrors `copy(with:)`: the expression itself (expressions are immutable).
    public func copy(with zone: NSZone? = nil) -> Any { self }
}

extension NSSortDescriptor: NSCopying {
    /// Mirrors `copy(with:)`: the sort descriptor itself (sort descriptors are immutable).
    public func copy(with zone: NSZone? = nil) -> Any { self }
}

// NSSecureCoding: the initializers and `encode(with:)` are in the class bodies, the keys in
// Archiving/PredicateCoding.swift.

extension NSPredicate: NSSecureCoding {}
extension NSExpression: NSSecureCoding {}
extension NSSortDescriptor: NSSecureCoding {}
