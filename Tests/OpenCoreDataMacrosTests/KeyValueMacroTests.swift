import Testing

/// `@KeyValue` (the stand-in for `@objc` on a property read by name): the record it adds, with a setter
/// only for a property that can be set, and the declarations it refuses.
@Suite struct KeyValueMacroTests {
    @Test func aComputedPropertyKeepsItsCodeAndGetsAGetterRecord() {
        expectExpansion(of: """
            final class Person: NSManagedObject {
                @KeyValue var firstInitial: String { String(name.prefix(1)) }
            }
            """, """
            final class Person: NSManagedObject {
                var firstInitial: String { String(name.prefix(1)) }

                #if canImport(Darwin)
                @section("__DATA,ocd_managed") @used private static let __keyValueRecord_firstInitial: _ManagedMacroSupport.SectionRecord = {
                    _ManagedMacroSupport.keyValueRecord($0, Person.self, "firstInitial", get: {
                            $0.firstInitial
                        })
                }
                #else
                @section("ocd_managed") @used private static let __keyValueRecord_firstInitial: _ManagedMacroSupport.SectionRecord = {
                    _ManagedMacroSupport.keyValueRecord($0, Person.self, "firstInitial", get: {
                            $0.firstInitial
                        })
                }
                #endif
            }
            """)
    }

    @Test func aStoredVarOrOneWithASetterIsWritableAndBackticksStay() {
        expectExpansion(of: """
            extension Person {
                @KeyValue var `default`: Int {
                    get { 1 }
                    set { }
                }
            }
            """, """
            extension Person {
                var `default`: Int {
                    get { 1 }
                    set { }
                }

                #if canImport(Darwin)
                @section("__DATA,ocd_managed") @used private static let __keyValueRecord_default: _ManagedMacroSupport.SectionRecord = {
                    _ManagedMacroSupport.keyValueRecord($0, Person.self, "default", get: {
                            $0.`default`
                        }, set: {
                            $0.`default` = $1
                        })
                }
                #else
                @section("ocd_managed") @used private static let __keyValueRecord_default: _ManagedMacroSupport.SectionRecord = {
                    _ManagedMacroSupport.keyValueRecord($0, Person.self, "default", get: {
                            $0.`default`
                        }, set: {
                            $0.`default` = $1
                        })
                }
                #endif
            }
            """)
    }

    @Test func refusesWhatIsNotOneInstanceProperty() {
        expectExpansion(of: """
            final class Person: NSManagedObject {
                @KeyValue static var count = 0
            }
            """, """
            final class Person: NSManagedObject {
                static var count = 0
            }
            """, diagnostics: refusal("@KeyValue applies to instance properties, not static or class ones", roles: 1))
        expectExpansion(of: """
            final class Person: NSManagedObject {
                @KeyValue func age() -> Int { 1 }
            }
            """, """
            final class Person: NSManagedObject {
                func age() -> Int { 1 }
            }
            """, diagnostics: refusal("@KeyValue applies to properties (the stand-in for @objc on a property read by its name)", roles: 1))
        expectExpansion(of: """
            struct Point {
                @KeyValue var x = 0
            }
            """, """
            struct Point {
                var x = 0
            }
            """, diagnostics: refusal("@KeyValue applies to members of an NSManagedObject subclass, not of struct Point", roles: 1))
    }
}
