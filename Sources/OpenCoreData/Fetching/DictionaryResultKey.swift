import Foundation

/// A key of the dictionaries a `.dictionaryResultType` fetch returns: one object per property of the
/// fetch, shared by every row's `NSDictionary`, as the keys of Core Data's own dictionary results are
/// shared by all the rows of a fetch.
///
/// It is an `NSString` (so `allKeys`, `as? String`, `isEqual`, archiving and JSON see a string) whose
/// hash is computed once: swift-corelibs-foundation's `NSDictionary(objects:forKeys:count:)` hashes each
/// key of each row it builds, and an `NSString`'s hash costs about as much as the rest of a two-key
/// dictionary (Benchmarks/README.md, figure 2). The hash is the one a plain `NSString` of the same text
/// has, so `dictionary["name"]` finds the entry; equality is by UTF-16 code units, as `NSString`'s is.
/// Copying returns the key itself (it is immutable), so the dictionaries hold these very objects.
final class DictionaryResultKey: NSString {
    private let text: String
    private let units: [unichar]
    private let precomputedHash: Int

    init(key: String) {
        text = key
        units = Array(key.utf16)
        precomputedHash = NSString(string: key).hash
        super.init(characters: [], length: 0)
    }

    required init(string aString: String) { fatalError("DictionaryResultKey is made with init(key:)") }
    required init(stringLiteral value: StaticString) { fatalError("DictionaryResultKey is made with init(key:)") }
    required init(extendedGraphemeClusterLiteral value: StaticString) { fatalError("DictionaryResultKey is made with init(key:)") }
    required init(unicodeScalarLiteral value: StaticString) { fatalError("DictionaryResultKey is made with init(key:)") }
    required init?(coder aDecoder: NSCoder) { fatalError("DictionaryResultKey is archived as an NSString") }

    override var length: Int { units.count }
    override func character(at index: Int) -> unichar { units[index] }
    override var hash: Int { precomputedHash }
    override var description: String { text }
    override func copy(with zone: NSZone? = nil) -> Any { self }
    override var classForCoder: AnyClass { NSString.self }

    override func isEqual(_ object: Any?) -> Bool {
        if let other = object as? DictionaryResultKey { return other === self || other.units == units }
        if let other = object as? NSString { return (other as String).utf16.elementsEqual(units) }
        if let other = object as? String { return other.utf16.elementsEqual(units) }
        return false
    }
}
