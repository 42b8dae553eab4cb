import Testing

/// `@Managed` on properties: what it writes, and each declaration it refuses with the reason.
@Suite struct ManagedMacroTests {
    @Test func anAttributePropertyGetsAccessorsASlotCacheAndASectionRecord() {
        expectExpansion(of: """
            final class Animal: NSManagedObject {
                @Managed var name: String?
            }
            """, """
            final class Animal: NSManagedObject {
                var name: String? {
                    get {
                        _ManagedMacroSupport.get(self, Animal.__managed_name, as: (String?).self)
                    }
                    set {
                        _ManagedMacroSupport.set(self, newValue, Animal.__managed_name)
                    }
                }

                private static let __managed_name = _ManagedMacroSupport.Property("name")

                #if canImport(Darwin)
                @section("__DATA,ocd_managed") @used private static let __managedRecord_name: _ManagedMacroSupport.SectionRecord = {
                    _ManagedMacroSupport.record($0, Animal.self, (String?).self, Animal.__managed_name, \\Animal.name, \\Animal?.?.name)
                }
                #else
                @section("ocd_managed") @used private static let __managedRecord_name: _ManagedMacroSupport.SectionRecord = {
                    _ManagedMacroSupport.record($0, Animal.self, (String?).self, Animal.__managed_name, \\Animal.name, \\Animal?.?.name)
                }
                #endif
            }
            """)
    }

    @Test func inAnExtensionTheOwnerIsTheExtendedTypeAndModifiersStay() {
        expectExpansion(of: """
            extension ZooKit.Animal {
                @Managed public var zoos: Set<Zoo>
            }
            """, """
            extension ZooKit.Animal {
                public var zoos: Set<Zoo> {
                    get {
                        _ManagedMacroSupport.get(self, ZooKit.Animal.__managed_zoos, as: (Set<Zoo>).self)
                    }
                    set {
                        _ManagedMacroSupport.set(self, newValue, ZooKit.Animal.__managed_zoos)
                    }
                }

                private static let __managed_zoos = _ManagedMacroSupport.Property("zoos")

                #if canImport(Darwin)
                @section("__DATA,ocd_managed") @used private static let __managedRecord_zoos: _ManagedMacroSupport.SectionRecord = {
                    typealias __OCDOwner = ZooKit.Animal;
                    _ManagedMacroSupport.record($0, ZooKit.Animal.self, (Set<Zoo>).self, ZooKit.Animal.__managed_zoos, \\__OCDOwner.zoos, \\__OCDOwner?.?.zoos)
                }
                #else
                @section("ocd_managed") @used private static let __managedRecord_zoos: _ManagedMacroSupport.SectionRecord = {
                    typealias __OCDOwner = ZooKit.Animal;
                    _ManagedMacroSupport.record($0, ZooKit.Animal.self, (Set<Zoo>).self, ZooKit.Animal.__managed_zoos, \\__OCDOwner.zoos, \\__OCDOwner?.?.zoos)
                }
                #endif
            }
            """)
    }

    @Test func aNestedClassIsNamedThroughTheTypesAroundIt() {
        expectExpansion(of: """
            enum Models {
                struct V1 {
                    final class Animal: NSManagedObject {
                        @Managed var legs: Int16
                    }
                }
            }
            """, """
            enum Models {
                struct V1 {
                    final class Animal: NSManagedObject {
                        var legs: Int16 {
                            get {
                                _ManagedMacroSupport.get(self, Models.V1.Animal.__managed_legs, as: (Int16).self)
                            }
                            set {
                                _ManagedMacroSupport.set(self, newValue, Models.V1.Animal.__managed_legs)
                            }
                        }

                        private static let __managed_legs = _ManagedMacroSupport.Property("legs")

                        #if canImport(Darwin)
                        @section("__DATA,ocd_managed") @used private static let __managedRecord_legs: _ManagedMacroSupport.SectionRecord = {
                            typealias __OCDOwner = Models.V1.Animal;
                            _ManagedMacroSupport.record($0, Models.V1.Animal.self, (Int16).self, Models.V1.Animal.__managed_legs, \\__OCDOwner.legs, \\__OCDOwner?.?.legs)
                        }
                        #else
                        @section("ocd_managed") @used private static let __managedRecord_legs: _ManagedMacroSupport.SectionRecord = {
                            typealias __OCDOwner = Models.V1.Animal;
                            _ManagedMacroSupport.record($0, Models.V1.Animal.self, (Int16).self, Models.V1.Animal.__managed_legs, \\__OCDOwner.legs, \\__OCDOwner?.?.legs)
                        }
                        #endif
                    }
                }
            }
            """)
    }

    @Test func anImplicitlyUnwrappedTypeIsReadAsOptionalAndABacktickedNameAsItsPlainName() {
        expectExpansion(of: """
            final class Order: NSManagedObject {
                @Managed var `default`: String!
            }
            """, """
            final class Order: NSManagedObject {
                var `default`: String! {
                    get {
                        _ManagedMacroSupport.get(self, Order.__managed_default, as: (Optional<String>).self)
                    }
                    set {
                        _ManagedMacroSupport.set(self, newValue, Order.__managed_default)
                    }
                }

                private static let __managed_default = _ManagedMacroSupport.Property("default")

                #if canImport(Darwin)
                @section("__DATA,ocd_managed") @used private static let __managedRecord_default: _ManagedMacroSupport.SectionRecord = {
                    _ManagedMacroSupport.record($0, Order.self, (Optional<String>).self, Order.__managed_default, \\Order.default, \\Order?.?.default)
                }
                #else
                @section("ocd_managed") @used private static let __managedRecord_default: _ManagedMacroSupport.SectionRecord = {
                    _ManagedMacroSupport.record($0, Order.self, (Optional<String>).self, Order.__managed_default, \\Order.default, \\Order?.?.default)
                }
                #endif
            }
            """)
    }

    // MARK: - Refused declarations

    /// `@Managed` on `declaration` in a class: refused with `message`, the declaration left as written
    /// without the attribute.
    func expectRefusal(_ declaration: String, _ message: String, roles: Int = 2, sourceLocation: SourceLocation = #_sourceLocation) {
        expectExpansion(of: "final class Animal: NSManagedObject {\n    @Managed \(declaration)\n}",
                        "final class Animal: NSManagedObject {\n    \(declaration)\n}",
                        diagnostics: refusal(message, roles: roles), sourceLocation: sourceLocation)
    }

    @Test func aLetIsRefused() {
        expectRefusal("let name: String?", "@Managed properties are declared with var, as @NSManaged ones are")
    }

    @Test func aStaticOrClassPropertyIsRefused() {
        expectRefusal("static var name: String?", "@Managed applies to instance properties, not static or class ones")
        expectRefusal("class var name: String?", "@Managed applies to instance properties, not static or class ones")
    }

    @Test func severalPropertiesInOneDeclarationAreRefused() {
        // `var first: String?, last: String?` is refused by Swift before the macro runs ("accessor macro can
        // only be applied to a single variable"); a tuple pattern reaches the macro.
        expectRefusal("var (first, last): (String?, String?)", "@Managed applies to one property at a time: declare each on its own line")
    }

    @Test func aPropertyWithoutItsTypeIsRefused() {
        expectRefusal("var name", "@Managed needs the property's type written out (var name: String?)")
    }

    @Test func anInitialValueIsRefused() {
        expectRefusal("var name: String? = \"Rex\"", "@Managed properties have no initial value: set a default value on the attribute in the model")
    }

    @Test func writtenAccessorsAreRefused() {
        expectRefusal("var name: String? { nil }", "@Managed writes the property's accessors: remove the ones written here")
    }

    @Test func aFunctionIsRefusedWithTheOtherMacrosName() {
        expectRefusal("func addToZoos(_ value: Zoo)",
                      "@Managed applies to properties; on Xcode's accessor functions (addToZoos(_:) …) use @ManagedAccessor", roles: 1)
    }

    @Test func membersOfTypesThatAreNotClassesAreRefused() {
        for (keyword, message) in [("struct", "not of struct Animal"), ("enum", "not of enum Animal"),
                                   ("actor", "not of this type"), ("protocol", "not of this type")] {
            expectExpansion(of: "\(keyword) Animal {\n    @Managed var name: String?\n}",
                            "\(keyword) Animal {\n    var name: String?\n}",
                            diagnostics: refusal("@Managed applies to members of an NSManagedObject subclass, \(message)"))
        }
    }

    @Test func aGenericClassIsRefused() {
        expectExpansion(of: "final class Box<T>: NSManagedObject {\n    @Managed var name: String?\n}",
                        "final class Box<T>: NSManagedObject {\n    var name: String?\n}",
                        diagnostics: refusal("@Managed cannot be used in a generic class (Core Data model classes are not generic)"))
    }

    @Test func aGlobalPropertyIsRefused() {
        expectExpansion(of: "@Managed var name: String?", "var name: String?",
                        diagnostics: refusal("@Managed applies to members of an NSManagedObject subclass or of an extension of one", line: 1, column: 1))
    }
}
