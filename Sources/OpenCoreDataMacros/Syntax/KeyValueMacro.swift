import SwiftSyntax
import SwiftSyntaxMacros

// The implementation of `@KeyValue`, the stand-in for `@objc` on a property that an app reads by name
// (`value(forKey:)`, a controller's `sectionNameKeyPath`, sort descriptors and predicates evaluated in
// memory). The property keeps its own code; the macro only adds a section record that tells OpenCoreData
// how to read it (and write it, when it is settable). For `@KeyValue var firstInitial: String { … }` in
// `Person`:
//
//     @section("ocd_managed") @used private static let __keyValueRecord_firstInitial: _ManagedMacroSupport.SectionRecord =
//         { _ManagedMacroSupport.keyValueRecord($0, Person.self, "firstInitial", get: { $0.firstInitial }) }
//
// A settable property (a stored `var`, or one with a `set` accessor) passes `set: { $0.name = $1 }` too.

/// `@KeyValue` on a property of an `NSManagedObject` subclass. (The plugin's `KeyValueMacro` forwards to it.)
public enum KeyValuePropertyExpansion: PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        let property = try KeyValuePropertySyntax(declaration)
        let owner = try enclosingType(context, macro: "@KeyValue")
        let member = property.spelling
        var call = "\(support).keyValueRecord($0, \(owner).self, \(stringLiteral(property.name)), get: { $0.\(member) }"
        if property.isSettable { call += ", set: { $0.\(member) = $1 }" }
        call += ")"
        return [sectionRecord(named: "__keyValueRecord_\(property.name)", call: call)]
    }
}

/// What `@KeyValue` needs of a property: one instance property, `var` or `let`, stored or computed.
private struct KeyValuePropertySyntax {
    /// The key: the name without backticks.
    let name: String
    /// The name as code spells it (`` `default` ``).
    let spelling: String
    let isSettable: Bool

    init(_ declaration: some DeclSyntaxProtocol) throws {
        let (variable, binding, identifier) = try singleInstanceProperty(
            declaration, macro: "@KeyValue", notAProperty: "@KeyValue applies to properties (the stand-in for @objc on a property read by its name)",
            check: { variable in
                if variable.attributes.contains(where: { $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "Managed" }) {
                    throw MacroExpansionErrorMessage("@Managed properties are reachable by their names already: remove @KeyValue")
                }
            })
        name = plainName(identifier.identifier)
        spelling = identifier.identifier.text
        isSettable = variable.bindingSpecifier.tokenKind == .keyword(.var) && Self.hasSetter(binding.accessorBlock)
    }

    /// Whether a `var` with these accessors can be set: a stored one (no accessors, or only observers),
    /// or a computed one with `set`.
    private static func hasSetter(_ block: AccessorBlockSyntax?) -> Bool {
        guard let block else { return true }
        guard case .accessors(let accessors) = block.accessors else { return false }  // `{ … }`: a getter
        let kinds = accessors.map { $0.accessorSpecifier.tokenKind }
        if kinds.contains(.keyword(.set)) { return true }
        return kinds.allSatisfy { $0 == .keyword(.willSet) || $0 == .keyword(.didSet) }
    }
}
