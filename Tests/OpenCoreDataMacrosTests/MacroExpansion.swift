import OpenCoreDataMacroSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The macros' expansions under the macros' names in OpenCoreData (Objects/Managed.swift).
let managedMacros: [String: MacroSpec] = [
    "Managed": MacroSpec(type: ManagedPropertyExpansion.self),
    "ManagedAccessor": MacroSpec(type: ManagedAccessorExpansion.self),
    "KeyValue": MacroSpec(type: KeyValuePropertyExpansion.self),
]

/// swift-syntax's `assertMacroExpansion` (its generic form, without XCTest), its failures recorded as
/// Swift Testing issues at the caller's line.
func expectExpansion(of source: String, _ expanded: String, diagnostics: [DiagnosticSpec] = [],
                     sourceLocation: SourceLocation = #_sourceLocation) {
    assertMacroExpansion(source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: managedMacros,
                         indentationWidth: .spaces(4)) { failure in
        Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
    }
}

/// The diagnostics of a declaration the macro refuses: `message` at the attribute (line and column of
/// its `@`), once for each role of the macro that expands the declaration.
func refusal(_ message: String, line: Int = 2, column: Int = 5, roles: Int = 2) -> [DiagnosticSpec] {
    Array(repeating: DiagnosticSpec(message: message, line: line, column: column), count: roles)
}
