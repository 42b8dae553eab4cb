import Testing

/// `@ManagedAccessor` on Xcode's to-many accessor functions: the body and record it writes for each of
/// Xcode's shapes, and each declaration it refuses with the reason.
@Suite struct ManagedAccessorMacroTests {
    /// `@ManagedAccessor` on `function` in an extension of `Animal` writes `body` and a section record
    /// named `record`, reporting `signature` for relationship `Zoos`.
    func expectAccessor(_ function: String, body: String, record: String, signature: String, ordered: Bool,
                        sourceLocation: SourceLocation = #_sourceLocation) {
        let call = "_ManagedMacroSupport.accessorRecord($0, Animal.self, \"\(signature)\", \"Zoos\", ordered: \(ordered))"
        expectExpansion(of: """
            extension Animal {
                @ManagedAccessor public func \(function)
            }
            """, """
            extension Animal {
                public func \(function) {
                    \(body)
                }

                #if canImport(Darwin)
                @section("__DATA,ocd_managed") @used private static let __managedAccessor_\(record): _ManagedMacroSupport.SectionRecord = {
                    \(call)
                }
                #else
                @section("ocd_managed") @used private static let __managedAccessor_\(record): _ManagedMacroSupport.SectionRecord = {
                    \(call)
                }
                #endif
            }
            """, sourceLocation: sourceLocation)
    }

    @Test func addAndRemoveOneObject() {
        expectAccessor("addToZoos(_ value: Zoo)", body: "_ManagedMacroSupport.add(self, value, to: \"Zoos\")",
                       record: "addToZoos___Zoo", signature: "addToZoos(_:)", ordered: false)
        expectAccessor("removeFromZoos(_ value: Zoo)", body: "_ManagedMacroSupport.remove(self, value, from: \"Zoos\")",
                       record: "removeFromZoos___Zoo", signature: "removeFromZoos(_:)", ordered: false)
    }

    @Test func addAndRemoveASetUnderANameOfItsOwnPerOverload() {
        expectAccessor("addToZoos(_ values: NSSet)", body: "_ManagedMacroSupport.add(self, values, to: \"Zoos\")",
                       record: "addToZoos___NSSet", signature: "addToZoos(_:)", ordered: false)
        expectAccessor("removeFromZoos(_ values: NSOrderedSet)", body: "_ManagedMacroSupport.remove(self, values, from: \"Zoos\")",
                       record: "removeFromZoos___NSOrderedSet", signature: "removeFromZoos(_:)", ordered: false)
    }

    @Test func theOrderedAccessorsWithAnIndex() {
        expectAccessor("insertIntoZoos(_ value: Zoo, at idx: Int)", body: "_ManagedMacroSupport.insert(self, value, at: idx, into: \"Zoos\")",
                       record: "insertIntoZoos___Zoo_at_Int", signature: "insertIntoZoos(_:at:)", ordered: true)
        expectAccessor("removeFromZoos(at idx: Int)", body: "_ManagedMacroSupport.remove(self, at: idx, from: \"Zoos\")",
                       record: "removeFromZoos_at_Int", signature: "removeFromZoos(at:)", ordered: true)
        expectAccessor("replaceZoos(at idx: Int, with value: Zoo)", body: "_ManagedMacroSupport.replace(self, at: idx, with: value, in: \"Zoos\")",
                       record: "replaceZoos_at_Int_with_Zoo", signature: "replaceZoos(at:with:)", ordered: true)
    }

    @Test func theOrderedAccessorsWithAnIndexSet() {
        expectAccessor("insertIntoZoos(_ values: [Zoo], at indexes: NSIndexSet)",
                       body: "_ManagedMacroSupport.insert(self, values, at: indexes, into: \"Zoos\")",
                       record: "insertIntoZoos____Zoo__at_NSIndexSet", signature: "insertIntoZoos(_:at:)", ordered: true)
        expectAccessor("removeFromZoos(at indexes: NSIndexSet)", body: "_ManagedMacroSupport.remove(self, at: indexes, from: \"Zoos\")",
                       record: "removeFromZoos_at_NSIndexSet", signature: "removeFromZoos(at:)", ordered: true)
        expectAccessor("replaceZoos(at indexes: NSIndexSet, with values: [Zoo])",
                       body: "_ManagedMacroSupport.replace(self, at: indexes, with: values, in: \"Zoos\")",
                       record: "replaceZoos_at_NSIndexSet_with__Zoo_", signature: "replaceZoos(at:with:)", ordered: true)
    }

    @Test func aParameterWithoutAnInternalNameIsPassedByItsLabel() {
        expectAccessor("removeFromZoos(at: Int)", body: "_ManagedMacroSupport.remove(self, at: at, from: \"Zoos\")",
                       record: "removeFromZoos_at_Int", signature: "removeFromZoos(at:)", ordered: true)
    }

    // MARK: - Refused declarations

    func expectRefusal(_ declaration: String, _ message: String, in container: String = "extension Animal", roles: Int,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        expectExpansion(of: "\(container) {\n    @ManagedAccessor \(declaration)\n}", "\(container) {\n    \(declaration)\n}",
                        diagnostics: refusal(message, roles: roles), sourceLocation: sourceLocation)
    }

    @Test func aFunctionXcodeDoesNotWriteIsRefusedWithTheNamesItKnows() {
        let shapes = "addToX(_:), removeFromX(_:), removeFromX(at:), insertIntoX(_:at:), replaceX(at:with:)"
        for (function, signature) in [("addZoo(_ value: Zoo)", "addZoo(_:)"), ("addTo(_ value: Zoo)", "addTo(_:)"),
                                      ("addToZoos(value: Zoo)", "addToZoos(value:)"), ("insertIntoZoos(_ value: Zoo)", "insertIntoZoos(_:)"),
                                      ("replaceZoos(_ idx: Int, with value: Zoo)", "replaceZoos(_:with:)")] {
            expectRefusal("func \(function)",
                          "@ManagedAccessor does not know \(signature): it writes Xcode's to-many accessors \(shapes), X being the relationship's name capitalized",
                          roles: 2)
        }
    }

    @Test func aFunctionWithABodyIsRefused() {
        expectRefusal("func addToZoos(_ value: Zoo) {}",
                      "@ManagedAccessor writes the function's body: declare it without one, as Xcode's generated accessors are", roles: 2)
    }

    @Test func aPropertyIsRefusedWithTheOtherMacrosName() {
        expectRefusal("var zoos: NSSet?",
                      "@ManagedAccessor applies to Xcode's to-many accessor functions (addToZoos(_:) …); on properties use @Managed", roles: 1)
    }

    @Test func membersOfTypesThatAreNotClassesAreRefused() {
        // The body is written (the body role does not look at the type); the record is refused.
        for (container, message) in [("struct Animal", "applies to members of an NSManagedObject subclass, not of struct Animal"),
                                     ("class Animal<T>", "cannot be used in a generic class (Core Data model classes are not generic)")] {
            expectExpansion(of: "\(container) {\n    @ManagedAccessor func addToZoos(_ value: Zoo)\n}", """
                \(container) {
                    func addToZoos(_ value: Zoo) {
                        _ManagedMacroSupport.add(self, value, to: "Zoos")
                    }
                }
                """, diagnostics: refusal("@ManagedAccessor \(message)", roles: 1))
        }
    }
}
