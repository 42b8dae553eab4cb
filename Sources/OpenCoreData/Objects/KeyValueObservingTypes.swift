import Foundation

/// Mirrors Foundation's `NSKeyValueSetMutationKind` (which swift-corelibs-foundation lacks): how a to-many
/// relationship changes, for ``NSManagedObject/willChangeValue(forKey:withSetMutation:using:)``. The
/// cases mean what `NSMutableSet`'s `union`, `minus`, `intersect` and `setSet` do; the raw values are
/// Apple's.
public enum NSKeyValueSetMutationKind: UInt, Sendable {
    /// Mirrors `union`: the objects are added.
    case union = 1
    /// Mirrors `minus`: the objects are removed.
    case minus = 2
    /// Mirrors `intersect`: only the objects that are also in the given set stay.
    case intersect = 3
    /// Mirrors `set`: the relationship holds exactly the given objects.
    case set = 4
}

/// Mirrors the standard library's `AutoreleasingUnsafeMutablePointer`, which exists only where there is an
/// Objective-C runtime: the pointer type of ``NSManagedObject/validateValue(_:forKey:)-(AutoreleasingUnsafeMutablePointer<AnyObject?>,_)``, so that an
/// override written for Apple's platforms compiles here. Linux has no autorelease pools: this is a plain
/// mutable pointer. Swift converts `&value` only to its own pointer types, so a call site writes
/// `try object.validateValue(&value, forKey: "name")` through the `inout` form of `validateValue`, or
/// wraps a pointer: `AutoreleasingUnsafeMutablePointer(pointer)`.
@frozen
public struct AutoreleasingUnsafeMutablePointer<Pointee>: Equatable, Hashable {
    /// The pointer it wraps.
    @usableFromInline let pointer: UnsafeMutablePointer<Pointee>

    /// Mirrors `init(_:)` from an `UnsafeMutablePointer`.
    @inlinable public init(_ from: UnsafeMutablePointer<Pointee>) { pointer = from }

    /// Mirrors `init?(_:)` from an optional `UnsafeMutablePointer`: `nil` for `nil`.
    @inlinable public init?(_ from: UnsafeMutablePointer<Pointee>?) {
        guard let from else { return nil }
        pointer = from
    }

    /// Mirrors `pointee`: the value pointed to, read and written in place.
    @inlinable public var pointee: Pointee {
        get { pointer.pointee }
        nonmutating set { pointer.pointee = newValue }
    }
}
