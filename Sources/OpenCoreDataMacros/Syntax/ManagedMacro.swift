import SwiftSyntax
import SwiftSyntaxMacros

// The implementation of `@Managed` (properties) and `@ManagedAccessor` (Xcode's to-many accessor
// functions), the stand-ins for Core Data's `@NSManaged`. The macros only rewrite syntax; everything
// they generate calls into OpenCoreData's `_ManagedMacroSupport` (Objects/Managed.swift says why it is
// public and not SPI; Objects/NSManagedObject+Managed.swift and Model/ManagedClasses.swift do the work).
// docs/ModelClasses.md describes what a model class may declare; Tests/OpenCoreDataMacrosTests checks
// each expansion and each diagnostic.
//
// For `@Managed var name: String?` in a class (or an extension of one) `Animal`:
//
//     var name: String? {
//         get { _ManagedMacroSupport.get(self, Animal.__managed_name, as: (String?).self) }
//         set { _ManagedMacroSupport.set(self, newValue, Animal.__managed_name) }
//     }
//     private static let __managed_name = _ManagedMacroSupport.Property("name")
//     @section("ocd_managed") @used private static let __managedRecord_name: _ManagedMacroSupport.SectionRecord =
//         { _ManagedMacroSupport.record($0, Animal.self, (String?).self, Animal.__managed_name, \Animal.name, \Animal?.?.name) }
//
// The overloads of `get` / `set` pick the attribute, to-one, to-many or transformable form from the
// declared type, and `record` tells the same forms apart when the model loads; the two key paths let
// `NSSortDescriptor(keyPath:)`, `NSExpression(forKeyPath:)` and `#Predicate` name the property (Objects/ManagedKeyPaths.swift). The record sits in the
// `ocd_managed` linker section, where the model finds it when it loads (to check the class against its
// entity, before any object is made).

/// `@Managed` (Core Data's `@NSManaged` on a property) on a stored-looking property: accessors over the
/// object's storage slot, a slot cache and a section record. (The plugin's `ManagedMacro` forwards to it.)
public enum ManagedPropertyExpansion: AccessorMacro, PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        let property = try ManagedPropertySyntax(declaration)
        let owner = try enclosingType(context, macro: "@Managed")
        let cache = "\(owner).__managed_\(property.name)"
        return [
            "get { \(raw: support).get(self, \(raw: cache), as: (\(raw: property.type)).self) }",
            "set { \(raw: support).set(self, newValue, \(raw: cache)) }",
        ]
    }

    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        let property = try ManagedPropertySyntax(declaration)
        let owner = try enclosingType(context, macro: "@Managed")
        let cache = "__managed_\(property.name)"
        // A key path from a qualified type through an optional (`\\A.B?.?.c`) does not parse: such an owner
        // is named by a local type alias.
        let root = owner.contains(".") ? "__OCDOwner" : owner
        let alias = owner.contains(".") ? "typealias __OCDOwner = \(owner); " : ""
        let call = "\(alias)\(support).record($0, \(owner).self, (\(property.type)).self, \(owner).\(cache), "
            + "\\\(root).\(property.name), \\\(root)?.?.\(property.name))"
        return [
            "private static let \(raw: cache) = \(raw: support).Property(\(literal: property.name))",
            sectionRecord(named: "__managedRecord_\(property.name)", call: call),
        ]
    }
}

/// `@ManagedAccessor` (Core Data's `@NSManaged` on an accessor function) on a body-less function with one
/// of Xcode's to-many accessor names: the body, and a section record (so that a function naming a
/// relationship the entity lacks fails when the model loads). (The plugin's `ManagedAccessorMacro`
/// forwards to it.)
public enum ManagedAccessorExpansion: BodyMacro, PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingBodyFor declaration: some DeclSyntaxProtocol & WithOptionalCodeBlockSyntax,
                                 in context: some MacroExpansionContext) throws -> [CodeBlockItemSyntax] {
        let accessor = try ManagedAccessorSyntax(declaration)
        return ["\(raw: accessor.call)"]
    }

    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        let accessor = try ManagedAccessorSyntax(declaration)
        let owner = try enclosingType(context, macro: "@ManagedAccessor")
        // Overloads (addToZoos(_: Zoo), addToZoos(_: NSSet)) need names of their own: the parameter
        // types are part of it (makeUniqueName is unique per function name, not per overload).
        let name = "__managedAccessor_" + accessor.identity
        let call = "\(support).accessorRecord($0, \(owner).self, \(stringLiteral(accessor.signature)), \(stringLiteral(accessor.relationship)), ordered: \(accessor.needsOrdered))"
        return [sectionRecord(named: name, call: call)]
    }
}

/// The namespace of OpenCoreData that the expansions call (not API: Objects/Managed.swift in OpenCoreData).
let support = "_ManagedMacroSupport"

/// A `static let` in the `ocd_managed` section whose value is a C function that reports the record to
/// OpenCoreData (a constant expression, as `@section` requires; the work happens when it is called).
func sectionRecord(named name: String, call: String) -> DeclSyntax {
    """
    #if canImport(Darwin)
    @section("__DATA,ocd_managed") @used private static let \(raw: name): \(raw: support).SectionRecord = { \(raw: call) }
    #else
    @section("ocd_managed") @used private static let \(raw: name): \(raw: support).SectionRecord = { \(raw: call) }
    #endif
    """
}

func stringLiteral(_ text: String) -> String {
    var literal = "\""
    for c in text {
        if c == "\\" || c == "\"" { literal.append("\\") }
        literal.append(c)
    }
    return literal + "\""
}

/// The class the declaration belongs to, as code in it spells it: the class's name (with the names of
/// the types it is nested in), or the type an extension extends.
func enclosingType(_ context: some MacroExpansionContext, macro: String) throws -> String {
    var names: [String] = []
    for scope in context.lexicalContext {
        if let c = scope.as(ClassDeclSyntax.self) {
            if c.genericParameterClause != nil {
                throw MacroExpansionErrorMessage("\(macro) cannot be used in a generic class (Core Data model classes are not generic)")
            }
            names.insert(c.name.text, at: 0)
        } else if let e = scope.as(ExtensionDeclSyntax.self) {
            names.insert(e.extendedType.trimmedDescription, at: 0)
            break
        } else if let s = scope.as(StructDeclSyntax.self) {
            guard !names.isEmpty else { throw notInClass(macro, "struct \(s.name.text)") }
            names.insert(s.name.text, at: 0)
        } else if let e = scope.as(EnumDeclSyntax.self) {
            guard !names.isEmpty else { throw notInClass(macro, "enum \(e.name.text)") }
            names.insert(e.name.text, at: 0)
        } else if scope.is(ActorDeclSyntax.self) || scope.is(ProtocolDeclSyntax.self) {
            throw notInClass(macro, "this type")
        } else {
            break
        }
    }
    guard !names.isEmpty else {
        throw MacroExpansionErrorMessage("\(macro) applies to members of an NSManagedObject subclass or of an extension of one")
    }
    return names.joined(separator: ".")
}

private func notInClass(_ macro: String, _ what: String) -> MacroExpansionErrorMessage {
    MacroExpansionErrorMessage("\(macro) applies to members of an NSManagedObject subclass, not of \(what)")
}

/// A name without the backticks that let it be a keyword (`` `order` ``).
func plainName(_ token: TokenSyntax) -> String {
    var text = token.text
    if text.hasPrefix("`"), text.hasSuffix("`"), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
    return text
}

/// The one instance property `declaration` declares, with its binding and name: what `@Managed` and
/// `@KeyValue` both need (`check` adds a macro's own rule before the shared ones).
func singleInstanceProperty(_ declaration: some DeclSyntaxProtocol, macro: String, notAProperty: String,
                            check: (VariableDeclSyntax) throws -> Void = { _ in }) throws
    -> (VariableDeclSyntax, PatternBindingSyntax, IdentifierPatternSyntax) {
    guard let variable = declaration.as(VariableDeclSyntax.self) else { throw MacroExpansionErrorMessage(notAProperty) }
    try check(variable)
    if variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }) {
        throw MacroExpansionErrorMessage("\(macro) applies to instance properties, not static or class ones")
    }
    guard variable.bindings.count == 1, let binding = variable.bindings.first,
          let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
        throw MacroExpansionErrorMessage("\(macro) applies to one property at a time: declare each on its own line")
    }
    return (variable, binding, identifier)
}

/// What `@Managed` needs of a property: `var name: Type`, one binding, no initial value, no accessors.
private struct ManagedPropertySyntax {
    let name: String
    let type: String

    init(_ declaration: some DeclSyntaxProtocol) throws {
        let (_, binding, identifier) = try singleInstanceProperty(
            declaration, macro: "@Managed", notAProperty: "@Managed applies to properties; on Xcode's accessor functions (addToZoos(_:) …) use @ManagedAccessor",
            check: { variable in
                guard variable.bindingSpecifier.tokenKind == .keyword(.var) else {
                    throw MacroExpansionErrorMessage("@Managed properties are declared with var, as @NSManaged ones are")
                }
            })
        guard let annotation = binding.typeAnnotation else {
            throw MacroExpansionErrorMessage("@Managed needs the property's type written out (var name: String?)")
        }
        if binding.initializer != nil {
            throw MacroExpansionErrorMessage("@Managed properties have no initial value: set a default value on the attribute in the model")
        }
        if binding.accessorBlock != nil {
            throw MacroExpansionErrorMessage("@Managed writes the property's accessors: remove the ones written here")
        }
        name = plainName(identifier.identifier)
        if let iuo = annotation.type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            type = "Optional<\(iuo.wrappedType.trimmedDescription)>"
        } else {
            type = annotation.type.trimmedDescription
        }
    }
}

/// One of Xcode's generated to-many accessors, and the call that implements it:
///
///     addToZoos(_ value: Zoo)                  addToZoos(_ values: NSSet)       (or NSOrderedSet)
///     removeFromZoos(_ value: Zoo)             removeFromZoos(_ values: NSSet)
///     insertIntoZoos(_ value: Zoo, at idx: Int)            insertIntoZoos(_ values: [Zoo], at indexes: NSIndexSet)
///     removeFromZoos(at idx: Int)              removeFromZoos(at indexes: NSIndexSet)
///     replaceZoos(at idx: Int, with value: Zoo)            replaceZoos(at indexes: NSIndexSet, with values: [Zoo])
private struct ManagedAccessorSyntax {
    let functionName: String
    /// The relationship's name as the function spells it (`Zoos`); OpenCoreData finds `zoos`.
    let relationship: String
    let call: String
    let needsOrdered: Bool
    /// `addToZoos(_:)`, for messages.
    let signature: String
    /// The name, labels and parameter types as an identifier (`addToZoos___Zoo`), distinct per overload.
    let identity: String

    init(_ declaration: some DeclSyntaxProtocol) throws {
        guard let function = declaration.as(FunctionDeclSyntax.self) else {
            throw MacroExpansionErrorMessage("@ManagedAccessor applies to Xcode's to-many accessor functions (addToZoos(_:) …); on properties use @Managed")
        }
        if function.body != nil {
            throw MacroExpansionErrorMessage("@ManagedAccessor writes the function's body: declare it without one, as Xcode's generated accessors are")
        }
        let name = plainName(function.name)
        functionName = name
        let parameters = Array(function.signature.parameterClause.parameters)
        let labels = parameters.map { $0.firstName.text }
        signature = name + "(" + labels.map { "\($0):" }.joined() + ")"
        let arguments = parameters.map { plainName($0.secondName ?? $0.firstName) }
        let spelled = ([name] + parameters.map { "\($0.firstName.text)_\($0.type.trimmedDescription)" }).joined(separator: "_")
        identity = String(spelled.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
        let shapes = "addToX(_:), removeFromX(_:), removeFromX(at:), insertIntoX(_:at:), replaceX(at:with:)"
        func relationshipName(after prefix: String) -> String? {
            guard name.hasPrefix(prefix), name.count > prefix.count else { return nil }
            return String(name.dropFirst(prefix.count))
        }
        if let r = relationshipName(after: "addTo"), labels == ["_"] {
            relationship = r
            call = "\(support).add(self, \(arguments[0]), to: \(stringLiteral(r)))"
            needsOrdered = false
        } else if let r = relationshipName(after: "removeFrom"), labels == ["_"] {
            relationship = r
            call = "\(support).remove(self, \(arguments[0]), from: \(stringLiteral(r)))"
            needsOrdered = false
        } else if let r = relationshipName(after: "removeFrom"), labels == ["at"] {
            relationship = r
            call = "\(support).remove(self, at: \(arguments[0]), from: \(stringLiteral(r)))"
            needsOrdered = true
        } else if let r = relationshipName(after: "insertInto"), labels == ["_", "at"] {
            relationship = r
            call = "\(support).insert(self, \(arguments[0]), at: \(arguments[1]), into: \(stringLiteral(r)))"
            needsOrdered = true
        } else if let r = relationshipName(after: "replace"), labels == ["at", "with"] {
            relationship = r
            call = "\(support).replace(self, at: \(arguments[0]), with: \(arguments[1]), in: \(stringLiteral(r)))"
            needsOrdered = true
        } else {
            throw MacroExpansionErrorMessage("@ManagedAccessor does not know \(signature): it writes Xcode's to-many accessors \(shapes), X being the relationship's name capitalized")
        }
    }
}
