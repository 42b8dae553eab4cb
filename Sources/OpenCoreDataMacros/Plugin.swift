import OpenCoreDataMacroSyntax
import SwiftCompilerPlugin
import SwiftSyntax
import SwiftSyntaxMacros

// The compiler plugin that serves `@Managed`, `@ManagedAccessor` and `@KeyValue`. The expansions are in the library
// target OpenCoreDataMacroSyntax (Syntax/), which the macro tests use directly: a test target that
// depended on this macro target would make SwiftPM build the package's whole test product for the host,
// under other names (`-tool` modules and resource bundles) than the library the tests exercise. The
// types below only carry the names `#externalMacro(module: "OpenCoreDataMacros", type: …)` looks up.

@main
struct OpenCoreDataMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [ManagedMacro.self, ManagedAccessorMacro.self, KeyValueMacro.self,
                                             ModelMacro.self, PersistedPropertyMacro.self, PropertyMarkerMacro.self,
                                             ModelActorMacro.self, ModelConstraintMacro.self]
}

/// `@Managed`, the stand-in for Core Data's `@NSManaged` on a property: ``ManagedPropertyExpansion``.
public enum ManagedMacro: AccessorMacro, PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        try ManagedPropertyExpansion.expansion(of: node, providingAccessorsOf: declaration, in: context)
    }

    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        try ManagedPropertyExpansion.expansion(of: node, providingPeersOf: declaration, in: context)
    }
}

/// `@ManagedAccessor`, the stand-in for `@NSManaged` on Xcode's to-many accessor functions:
/// ``ManagedAccessorExpansion``.
public enum ManagedAccessorMacro: BodyMacro, PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingBodyFor declaration: some DeclSyntaxProtocol & WithOptionalCodeBlockSyntax,
                                 in context: some MacroExpansionContext) throws -> [CodeBlockItemSyntax] {
        try ManagedAccessorExpansion.expansion(of: node, providingBodyFor: declaration, in: context)
    }

    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        try ManagedAccessorExpansion.expansion(of: node, providingPeersOf: declaration, in: context)
    }
}

/// `@KeyValue`, the stand-in for `@objc` on a property read by its name: ``KeyValuePropertyExpansion``.
public enum KeyValueMacro: PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        try KeyValuePropertyExpansion.expansion(of: node, providingPeersOf: declaration, in: context)
    }
}

/// OpenSwiftData's `@Model` (SwiftData's): ``ModelExpansion``.
public enum ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    public static func expansion(of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
                                 conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        try ModelExpansion.expansion(of: node, providingMembersOf: declaration, conformingTo: protocols, in: context)
    }

    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingAttributesFor member: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AttributeSyntax] {
        try ModelExpansion.expansion(of: node, attachedTo: declaration, providingAttributesFor: member, in: context)
    }

    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
                                 in context: some MacroExpansionContext) throws -> [ExtensionDeclSyntax] {
        try ModelExpansion.expansion(of: node, attachedTo: declaration, providingExtensionsOf: type, conformingTo: protocols, in: context)
    }
}

/// OpenSwiftData's `@_PersistedProperty` (SwiftData's): ``PersistedPropertyExpansion``.
public enum PersistedPropertyMacro: AccessorMacro, PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        try PersistedPropertyExpansion.expansion(of: node, providingAccessorsOf: declaration, in: context)
    }

    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        try PersistedPropertyExpansion.expansion(of: node, providingPeersOf: declaration, in: context)
    }
}

/// OpenSwiftData's `@Attribute`, `@Relationship` and `@Transient`, which `@Model` reads: ``PropertyMarkerExpansion``.
public enum PropertyMarkerMacro: PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        try PropertyMarkerExpansion.expansion(of: node, providingPeersOf: declaration, in: context)
    }
}

/// OpenSwiftData's `@ModelActor` (SwiftData's): ``ModelActorExpansion``.
public enum ModelActorMacro: MemberMacro, ExtensionMacro {
    public static func expansion(of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
                                 conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        try ModelActorExpansion.expansion(of: node, providingMembersOf: declaration, conformingTo: protocols, in: context)
    }

    public static func expansion(of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
                                 providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
                                 in context: some MacroExpansionContext) throws -> [ExtensionDeclSyntax] {
        try ModelActorExpansion.expansion(of: node, attachedTo: declaration, providingExtensionsOf: type, conformingTo: protocols, in: context)
    }
}

/// OpenSwiftData's `#Unique` and `#Index` (SwiftData's), which `@Model` reads: ``ModelConstraintExpansion``.
public enum ModelConstraintMacro: DeclarationMacro {
    public static func expansion(of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        try ModelConstraintExpansion.expansion(of: node, in: context)
    }
}

#if OCD_FUZZ
// Scripts/fuzz.sh builds with `-Xswiftc -sanitize=fuzzer`, and SwiftPM passes -Xswiftc flags to the
// macro plugin too: it is then linked with libFuzzer, which needs this entry point. The plugin's own
// `main` (the @main above) still runs; this is never called.
@_cdecl("LLVMFuzzerTestOneInput")
public func _pluginIsNotAFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt { 0 }
#endif
