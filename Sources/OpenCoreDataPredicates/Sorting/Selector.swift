/// Mirrors the Objective-C `Selector` that Linux lacks, as far as sort descriptors need it:
/// `Selector("localizedStandardCompare:")` and the string-literal form compile as on Darwin.
public struct Selector: ExpressibleByStringLiteral, Hashable, Sendable, CustomStringConvertible {
    /// The selector's name, for example `"caseInsensitiveCompare:"`.
    public let name: String

    /// Mirrors `Selector(_:)` / `NSSelectorFromString`.
    public init(_ name: String) { self.name = name }

    public init(stringLiteral value: String) { self.name = value }

    public var description: String { name }
}

/// Mirrors `NSStringFromSelector(_:)`.
public func NSStringFromSelector(_ aSelector: Selector) -> String { aSelector.name }

/// Mirrors `NSSelectorFromString(_:)`.
public func NSSelectorFromString(_ aSelectorName: String) -> Selector { Selector(aSelectorName) }
