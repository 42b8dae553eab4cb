import SwiftSyntax
import SwiftSyntaxMacros

// The implementation of OpenSwiftData's `@Model` and `@_PersistedProperty` (SwiftData's names). The
// expansion has the shape of SwiftData's own, so that code reading it (and the compiler's definite
// initialization) meets the same members. For
//
//     @Model final class Trip {
//         var name: String
//         @Relationship(deleteRule: .cascade) var items: [Item] = []
//     }
//
// `@Model` adds `@_PersistedProperty` to each stored `var` (not `@Transient`), and the members
//
//     @Transient private var _$backingData = OpenSwiftData._SwiftDataBackingHolder<Trip>()  (a placeholder; its object, cached)
//     public var persistentBackingData: any OpenSwiftData.BackingData<Trip> { get/set _$backingData (made when first asked for) }
//     public var _$modelStorage: AnyObject? { the backing data if OpenSwiftData's own, found in the class }
//     public static var _$realizesBackingData: Bool { true }  (a fetched model starts over a stand-in of its object)
//     public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] { [
//         .init(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: nil),
//         .init(name: "items", keypath: \Trip.items, defaultValue: ([] as [Item]),
//               metadata: OpenSwiftData.Schema.Relationship(deleteRule: .cascade)) ] }
//     public required init(backingData: any OpenSwiftData.BackingData<Trip>) { _name = …NoType(); … }
//     @Transient private var _$observationRegistrar = OpenSwiftData._SwiftDataObservation()
//
// (the registrar made when the model is first read under `withObservationTracking`)
//
// and the conformances `PersistentModel` and `Observable`. `@_PersistedProperty var name: String` becomes
// an `init` / `get` / `set` over the backing data (observed) and a peer `_name` of an empty type that the
// `init` accessor initializes, so that an initializer may set the property before anything else, and a
// peer `static let _$slot_name` (the property's slot cache, as `@Managed` keeps one): the accessors hand it
// to `_SwiftDataAccess.get` and the backing data's `_setValue`, so that no key path is looked up per access.

/// `@Model` (SwiftData's macro of that name) on a class.
public enum ModelExpansion: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    public static func expansion(of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
                                 conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard let cls = declaration.as(ClassDeclSyntax.self) else {
            throw MacroExpansionErrorMessage("@Model applies to a class (SwiftData's models are classes)")
        }
        let owner = cls.name.text
        let properties = try cls.memberBlock.members.compactMap { try PersistedPropertySyntax($0.decl) }
        let backing = "any OpenSwiftData.BackingData<\(owner)>"
        let constraints = cls.memberBlock.members.compactMap { $0.decl.as(MacroExpansionDeclSyntax.self) }.enumerated().compactMap { n, macro in
            constraintMetadata(macro, number: n, owner: owner)
        }
        let metadata = (properties.map { $0.metadata(owner: owner) } + constraints).joined(separator: ",\n")
        let noTypes = properties.map { "_\($0.name) = OpenSwiftData._SwiftDataNoType()" }.joined(separator: "\n")
        return [
            "@Transient @exclusivity(unchecked) private var _$backingData = OpenSwiftData._SwiftDataBackingHolder<\(raw: owner)>()",
            "public var persistentBackingData: \(raw: backing) { get { OpenSwiftData._SwiftDataAccess.prepared(&_$backingData) } set { _$backingData = OpenSwiftData._SwiftDataBackingHolder(newValue) } }",
            "public var _$modelStorage: AnyObject? { OpenSwiftData._SwiftDataAccess.modelStorage(&_$backingData) }",
            "public static var _$realizesBackingData: Bool { true }",
            "public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] { [\n\(raw: metadata)\n] }",
            "public required init(backingData: \(raw: backing)) {\n\(raw: noTypes)\nself._$backingData = OpenSwiftData._SwiftDataBackingHolder(backingData)\n}",
            "@Transient @exclusivity(unchecked) private var _$observationRegistrar = OpenSwiftData._SwiftDataObservation()",
        ]
    }

    /// `#Unique<T>(…)` / `#Index<T>(…)` in the class: a metadata entry holding `Schema.Unique<Owner>(…)` /
    /// `Schema.Index<Owner>(…)`, under the identity key path (constraints name no property of their own).
    static func constraintMetadata(_ macro: MacroExpansionDeclSyntax, number: Int, owner: String) -> String? {
        let name = macro.macroName.text
        guard name == "Unique" || name == "Index" else { return nil }
        return "OpenSwiftData.Schema.PropertyMetadata(name: \"_$\(name.lowercased())\(number)\", keypath: \\\(owner).self, "
            + "defaultValue: nil, metadata: OpenSwiftData.Schema.\(name)<\(owner)>(\(macro.arguments.trimmedDescription)))"
    }

    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingAttributesFor member: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AttributeSyntax] {
        guard declaration.is(ClassDeclSyntax.self), (try? PersistedPropertySyntax(DeclSyntax(member))) != nil,
              let variable = member.as(VariableDeclSyntax.self), !variable.hasAttribute("_PersistedProperty") else { return [] }
        return ["@_PersistedProperty"]
    }

    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
                                 in context: some MacroExpansionContext) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self) else { return [] }
        return try protocols.map { try ExtensionDeclSyntax("extension \(type.trimmed): \($0.trimmed) {}") }
    }
}

/// `@_PersistedProperty` (SwiftData's name), which `@Model` puts on each stored property.
public enum PersistedPropertyExpansion: AccessorMacro, PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        guard let property = try PersistedPropertySyntax(DeclSyntax(declaration)) else { return [] }
        let name = property.name
        return [
            """
            @storageRestrictions(accesses: _$backingData, initializes: _\(raw: name))
            init(initialValue) {
                OpenSwiftData._SwiftDataAccess.initialize(&_$backingData, \\.\(raw: name), initialValue, Self._$slot_\(raw: name))
                _\(raw: name) = OpenSwiftData._SwiftDataNoType()
            }
            """,
            """
            get {
                _$observationRegistrar.access(self, \\.\(raw: name))
                return OpenSwiftData._SwiftDataAccess.get(&_$backingData, \\.\(raw: name), Self._$slot_\(raw: name))
            }
            """,
            """
            set {
                _$observationRegistrar.withMutation(of: self, \\.\(raw: name)) {
                    OpenSwiftData._SwiftDataAccess.set(&_$backingData, \\.\(raw: name), newValue, Self._$slot_\(raw: name), of: self)
                }
            }
            """,
        ]
    }

    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard let property = try PersistedPropertySyntax(DeclSyntax(declaration)) else { return [] }
        return ["@Transient private var _\(raw: property.name): OpenSwiftData._SwiftDataNoType",
                "private static let _$slot_\(raw: property.name) = OpenSwiftData._SwiftDataSlot(\(literal: property.name))"]
    }
}

/// `#Unique` and `#Index` (SwiftData's): they declare nothing; `@Model` reads them.
public enum ModelConstraintExpansion: DeclarationMacro {
    public static func expansion(of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext) throws -> [DeclSyntax] { [] }
}

/// `@Attribute`, `@Relationship`, `@Transient`: markers that add nothing; `@Model` reads them.
public enum PropertyMarkerExpansion: PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] { [] }
}

/// A stored instance `var` of a model class, as `@Model` persists it; `nil` for what it leaves alone
/// (computed and static properties, `let`s, `@Transient` and the macro's own members).
struct PersistedPropertySyntax {
    let name: String
    let type: String
    let initializer: String?
    /// `Schema.Attribute(…)` or `Schema.Relationship(…)` from the property's `@Attribute` / `@Relationship`.
    let schemaProperty: String?

    init?(_ decl: DeclSyntax) throws {
        guard let variable = decl.as(VariableDeclSyntax.self), variable.bindingSpecifier.tokenKind == .keyword(.var),
              !variable.modifiers.contains(where: { ["static", "class", "lazy"].contains($0.name.text) }),
              !variable.hasAttribute("Transient") else { return nil }
        guard variable.bindings.count == 1, let binding = variable.bindings.first,
              let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
            throw MacroExpansionErrorMessage("@Model persists one property a declaration: split `\(variable.bindings.trimmedDescription)`")
        }
        if let accessors = binding.accessorBlock {
            guard case .accessors(let list) = accessors.accessors,
                  list.allSatisfy({ ["willSet", "didSet"].contains($0.accessorSpecifier.text) }) else { return nil }
        }
        name = plainName(identifier.identifier)
        guard !name.hasPrefix("_$") else { return nil }
        guard let annotation = binding.typeAnnotation else {
            throw MacroExpansionErrorMessage("@Model needs the type of `\(name)` written out (`var \(name): Type`)")
        }
        type = annotation.type.trimmedDescription
        initializer = binding.initializer?.value.trimmedDescription
        schemaProperty = variable.schemaAttribute()
    }

    func metadata(owner: String) -> String {
        let value = initializer.map { "((\($0)) as \(type))" } ?? "nil"
        return "OpenSwiftData.Schema.PropertyMetadata(name: \(stringLiteral(name)), keypath: \\\(owner).\(name), "
            + "defaultValue: \(value), metadata: \(schemaProperty ?? "nil"))"
    }
}

extension VariableDeclSyntax {
    func hasAttribute(_ name: String) -> Bool {
        attributes.contains { $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == name }
    }

    /// `@Attribute(args)` → `OpenSwiftData.Schema.Attribute(args)`; `@Relationship(args)` likewise.
    func schemaAttribute() -> String? {
        for element in attributes {
            guard let attribute = element.as(AttributeSyntax.self) else { continue }
            let name = attribute.attributeName.trimmedDescription
            guard name == "Attribute" || name == "Relationship" else { continue }
            let arguments = attribute.arguments?.as(LabeledExprListSyntax.self)?.trimmedDescription ?? ""
            return "OpenSwiftData.Schema.\(name)(\(arguments))"
        }
        return nil
    }
}

/// `@ModelActor` (SwiftData's macro of that name) on an actor: its container, executor and initializer.
public enum ModelActorExpansion: MemberMacro, ExtensionMacro {
    public static func expansion(of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
                                 conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else {
            throw MacroExpansionErrorMessage("@ModelActor applies to an actor")
        }
        return [
            "nonisolated let modelExecutor: any OpenSwiftData.ModelExecutor",
            "nonisolated let modelContainer: OpenSwiftData.ModelContainer",
            """
            init(modelContainer: OpenSwiftData.ModelContainer) {
                let modelContext = OpenSwiftData.ModelContext(modelContainer)
                self.modelExecutor = OpenSwiftData.DefaultSerialModelExecutor(modelContext: modelContext)
                self.modelContainer = modelContainer
            }
            """,
        ]
    }

    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
                                 in context: some MacroExpansionContext) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else { return [] }
        return try protocols.map { try ExtensionDeclSyntax("extension \(type.trimmed): \($0.trimmed) {}") }
    }
}
