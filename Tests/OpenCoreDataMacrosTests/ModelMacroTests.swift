import OpenCoreDataMacroSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// OpenSwiftData's `@Model` and `@_PersistedProperty` (SwiftData's shape): the members, the accessors of each
/// persisted property, what is left alone, and the declarations refused.
@Suite struct ModelMacroTests {
    static let specs: [String: MacroSpec] = [
        "Model": MacroSpec(type: ModelExpansion.self, conformances: ["PersistentModel", "Observable"]),
        "_PersistedProperty": MacroSpec(type: PersistedPropertyExpansion.self),
        "Attribute": MacroSpec(type: PropertyMarkerExpansion.self),
        "Relationship": MacroSpec(type: PropertyMarkerExpansion.self),
        "Transient": MacroSpec(type: PropertyMarkerExpansion.self),
        "Unique": MacroSpec(type: ModelConstraintExpansion.self),
        "Index": MacroSpec(type: ModelConstraintExpansion.self),
    ]

    func expectModel(_ source: String, _ expanded: String, diagnostics: [DiagnosticSpec] = [],
                     sourceLocation: SourceLocation = #_sourceLocation) {
        assertMacroExpansion(source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: Self.specs,
                             indentationWidth: .spaces(4)) { failure in
            Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
        }
    }

    /// Stored `var`s become accessors over the backing data (the test harness drops a property's initial
    /// value beside an `init` accessor; the compiler keeps it); `@Transient`, computed and static properties
    /// stay as written.
    @Test func aModelGetsBackingDataMetadataAndObservedAccessors() {
        expectModel("""
            @Model final class Trip {
                @Attribute(.unique) var name: String
                @Relationship(deleteRule: .cascade) var items: [Item] = []
                @Transient var views = 0
                var title: String { name }
                static var count = 0
            }
            """, #"""
            final class Trip {
                var name: String {
                    @storageRestrictions(accesses: _$backingData, initializes: _name)
                    init(initialValue) {
                        OpenSwiftData._SwiftDataAccess.initialize(&_$backingData, \.name, initialValue, Self._$slot_name)
                        _name = OpenSwiftData._SwiftDataNoType()
                    }
                    get {
                        _$observationRegistrar.access(self, \.name)
                        return OpenSwiftData._SwiftDataAccess.get(&_$backingData, \.name, Self._$slot_name)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, \.name) {
                            OpenSwiftData._SwiftDataAccess.set(&_$backingData, \.name, newValue, Self._$slot_name, of: self)
                        }
                    }
                }

                private var _name: OpenSwiftData._SwiftDataNoType

                private static let _$slot_name = OpenSwiftData._SwiftDataSlot("name")
                var items: [Item] {
                    @storageRestrictions(accesses: _$backingData, initializes: _items)
                    init(initialValue) {
                        OpenSwiftData._SwiftDataAccess.initialize(&_$backingData, \.items, initialValue, Self._$slot_items)
                        _items = OpenSwiftData._SwiftDataNoType()
                    }
                    get {
                        _$observationRegistrar.access(self, \.items)
                        return OpenSwiftData._SwiftDataAccess.get(&_$backingData, \.items, Self._$slot_items)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, \.items) {
                            OpenSwiftData._SwiftDataAccess.set(&_$backingData, \.items, newValue, Self._$slot_items, of: self)
                        }
                    }
                }

                private var _items: OpenSwiftData._SwiftDataNoType

                private static let _$slot_items = OpenSwiftData._SwiftDataSlot("items")
                var views = 0
                var title: String { name }
                static var count = 0

                @exclusivity(unchecked) private var _$backingData = OpenSwiftData._SwiftDataBackingHolder<Trip>()

                public var persistentBackingData: any OpenSwiftData.BackingData<Trip> {
                    get {
                        OpenSwiftData._SwiftDataAccess.prepared(&_$backingData)
                    }
                    set {
                        _$backingData = OpenSwiftData._SwiftDataBackingHolder(newValue)
                    }
                }

                public var _$modelStorage: AnyObject? {
                    OpenSwiftData._SwiftDataAccess.modelStorage(&_$backingData)
                }

                public static var _$realizesBackingData: Bool {
                    true
                }

                public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                    [
                        OpenSwiftData.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: OpenSwiftData.Schema.Attribute(.unique)),
                        OpenSwiftData.Schema.PropertyMetadata(name: "items", keypath: \Trip.items, defaultValue: (([]) as [Item]), metadata: OpenSwiftData.Schema.Relationship(deleteRule: .cascade))
                    ]
                }

                public required init(backingData: any OpenSwiftData.BackingData<Trip>) {
                    _name = OpenSwiftData._SwiftDataNoType()
                    _items = OpenSwiftData._SwiftDataNoType()
                    self._$backingData = OpenSwiftData._SwiftDataBackingHolder(backingData)
                }

                @exclusivity(unchecked) private var _$observationRegistrar = OpenSwiftData._SwiftDataObservation()
            }

            extension Trip: PersistentModel {
            }

            extension Trip: Observable {
            }
            """#)
    }

    /// `#Unique` and `#Index` declare nothing; `@Model` puts them in the metadata under the identity key path.
    @Test func uniqueAndIndexBecomeMetadataEntries() {
        expectModel("""
            @Model final class Reader {
                #Unique<Reader>([\\.card])
                #Index<Reader>([\\.card])
                var card: Int
            }
            """, #"""
            final class Reader {
                var card: Int {
                    @storageRestrictions(accesses: _$backingData, initializes: _card)
                    init(initialValue) {
                        OpenSwiftData._SwiftDataAccess.initialize(&_$backingData, \.card, initialValue, Self._$slot_card)
                        _card = OpenSwiftData._SwiftDataNoType()
                    }
                    get {
                        _$observationRegistrar.access(self, \.card)
                        return OpenSwiftData._SwiftDataAccess.get(&_$backingData, \.card, Self._$slot_card)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, \.card) {
                            OpenSwiftData._SwiftDataAccess.set(&_$backingData, \.card, newValue, Self._$slot_card, of: self)
                        }
                    }
                }

                private var _card: OpenSwiftData._SwiftDataNoType

                private static let _$slot_card = OpenSwiftData._SwiftDataSlot("card")

                @exclusivity(unchecked) private var _$backingData = OpenSwiftData._SwiftDataBackingHolder<Reader>()

                public var persistentBackingData: any OpenSwiftData.BackingData<Reader> {
                    get {
                        OpenSwiftData._SwiftDataAccess.prepared(&_$backingData)
                    }
                    set {
                        _$backingData = OpenSwiftData._SwiftDataBackingHolder(newValue)
                    }
                }

                public var _$modelStorage: AnyObject? {
                    OpenSwiftData._SwiftDataAccess.modelStorage(&_$backingData)
                }

                public static var _$realizesBackingData: Bool {
                    true
                }

                public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                    [
                        OpenSwiftData.Schema.PropertyMetadata(name: "card", keypath: \Reader.card, defaultValue: nil, metadata: nil),
                        OpenSwiftData.Schema.PropertyMetadata(name: "_$unique0", keypath: \Reader.self, defaultValue: nil, metadata: OpenSwiftData.Schema.Unique<Reader>([\.card])),
                        OpenSwiftData.Schema.PropertyMetadata(name: "_$index1", keypath: \Reader.self, defaultValue: nil, metadata: OpenSwiftData.Schema.Index<Reader>([\.card]))
                    ]
                }

                public required init(backingData: any OpenSwiftData.BackingData<Reader>) {
                    _card = OpenSwiftData._SwiftDataNoType()
                    self._$backingData = OpenSwiftData._SwiftDataBackingHolder(backingData)
                }

                @exclusivity(unchecked) private var _$observationRegistrar = OpenSwiftData._SwiftDataObservation()
            }

            extension Reader: PersistentModel {
            }

            extension Reader: Observable {
            }
            """#)
    }

    @Test func aPropertyWithoutItsTypeOrAModelThatIsNoClassIsRefused() {
        expectModel("""
            @Model final class Trip {
                var name = ""
            }
            """, """
            final class Trip {
                var name = ""
            }

            extension Trip: PersistentModel {
            }

            extension Trip: Observable {
            }
            """, diagnostics: [DiagnosticSpec(message: "@Model needs the type of `name` written out (`var name: Type`)", line: 1, column: 1)])
        expectModel("""
            @Model struct Trip {
            }
            """, """
            struct Trip {
            }
            """, diagnostics: [DiagnosticSpec(message: "@Model applies to a class (SwiftData's models are classes)", line: 1, column: 1)])
    }
}
