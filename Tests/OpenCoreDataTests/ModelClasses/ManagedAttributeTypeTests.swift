import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// The one table of supported property types (Objects/ManagedAttributeTypes.swift): what it lets each
/// type fit, the advice the load gives, and how a section record tells the kinds of declared type apart.
@Suite("Model classes: the table of property types")
struct ManagedAttributeTypeTests {
    /// What the load advises for each attribute type (the advice of the hand-written table it replaced).
    @Test func theAdviceNamesTheTypesXcodeWrites() {
        let advice: [NSAttributeType: String] = [
            .stringAttributeType: ": declare it String?",
            .integer16AttributeType: ": declare it Int16 or NSNumber?",
            .integer32AttributeType: ": declare it Int32 or NSNumber?",
            .integer64AttributeType: ": declare it Int64 or NSNumber?",
            .doubleAttributeType: ": declare it Double or NSNumber?",
            .floatAttributeType: ": declare it Float or NSNumber?",
            .booleanAttributeType: ": declare it Bool or NSNumber?",
            .decimalAttributeType: ": declare it Decimal? or NSDecimalNumber?",
            .dateAttributeType: ": declare it Date? or TimeInterval",
            .binaryDataAttributeType: ": declare it Data?",
            .UUIDAttributeType: ": declare it UUID?",
            .URIAttributeType: ": declare it URL?",
            .transformableAttributeType: ": declare it its value's type (Data, an NSCoding class or a Codable type)",
            .undefinedAttributeType: "",
            .objectIDAttributeType: "",
            .compositeAttributeType: ": declare it [String: Any]?",
        ]
        for type in NSAttributeType.allCases {
            #expect(ManagedAttributeTypes.advice(for: type) == advice[type], "\(type.name)")
        }
    }

    /// Each type fits the attribute types Xcode writes it for: the advice never names a type that the
    /// load would then refuse.
    @Test func everyAdvisedTypeFits() {
        for row in ManagedAttributeTypes.rows {
            for (attributeType, spelled) in row.writtenByXcode {
                #expect(row.fits.contains(attributeType), "\(spelled) for \(attributeType.name)")
            }
        }
        #expect(Set(ManagedAttributeTypes.rows.map(\.type)).count == ManagedAttributeTypes.rows.count, "one row per type")
    }

    @Test func optionalsAndSubclassesTakeTheirTypesRow() {
        #expect(ManagedAttributeTypes.fits(String?.self, .stringAttributeType))
        #expect(ManagedAttributeTypes.fits(Int16??.self, .integer64AttributeType))
        #expect(!ManagedAttributeTypes.fits(Int16.self, .stringAttributeType))
        #expect(ManagedAttributeTypes.fits(NSNumber?.self, .booleanAttributeType))
        #expect(!ManagedAttributeTypes.fits(NSDecimalNumber?.self, .booleanAttributeType), "its own row: decimals only")
        #expect(ManagedAttributeTypes.fits(NSDecimalNumber.self, .decimalAttributeType))
        #expect(ManagedAttributeTypes.fits(TimeInterval.self, .dateAttributeType))
        #expect(!ManagedAttributeTypes.fits(Float.self, .dateAttributeType))
        #expect(ManagedAttributeTypes.row(for: NSSet.self) == nil)
    }

    /// A section record's declaration and shape, as the overloads it replaced gave them.
    @Test func recordsTellTheKindsOfDeclaredTypeApart() {
        func declared(_ type: Any.Type) -> String { ManagedPropertyShape.of(type, name: "p").declaration }
        #expect(declared(String?.self) == "p: Optional<String>")
        #expect(declared(Int32.self) == "p: Int32")
        #expect(declared(NSNumber?.self) == "p: Optional<NSNumber>")
        #expect(declared(Classification?.self) == "p: Classification?")
        #expect(declared(Classification.self) == "p: Classification")
        #expect(declared(Set<Zoo>.self) == "p: Set<Zoo>")
        #expect(declared(Set<Zoo>?.self) == "p: Set<Zoo>?")
        #expect(declared(NSSet?.self) == "p: NSSet?")
        #expect(declared(NSOrderedSet.self) == "p: NSOrderedSet")
        #expect(declared([String].self) == "p: Array<String>")

        func shape(_ type: Any.Type) -> String {
            switch ManagedPropertyShape.of(type, name: "p").shape {
            case .attribute: return "attribute"
            case .transformable: return "transformable"
            case .dictionary: return "dictionary"
            case .toOne(let destination): return "to-one \(destination)"
            case .toMany(let destination, let ordered): return "to-many \(destination) \(ordered.map { "\($0)" } ?? "either")"
            }
        }
        #expect(shape(Data?.self) == "attribute")
        #expect(shape(NSDecimalNumber?.self) == "attribute")
        #expect(shape([String: Int].self) == "transformable")
        #expect(shape([String: Any]?.self) == "dictionary")
        #expect(shape(Zoo?.self) == "to-one Zoo")
        #expect(shape(Set<Animal>.self) == "to-many Animal false")
        #expect(shape(NSSet.self) == "to-many NSManagedObject false")
        #expect(shape(NSOrderedSet?.self) == "to-many NSManagedObject true")
    }
}
