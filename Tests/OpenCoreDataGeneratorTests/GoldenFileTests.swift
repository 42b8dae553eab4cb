import Foundation
import OpenCoreDataGenerator
import Testing

/// The exact text generated for Resources/Everything.xcdatamodeld (its current version, "Everything 2"):
/// every attribute type with and without "Use Scalar Type", a to-one, a to-many, an ordered to-many, a
/// to-many to an entity without a class, an abstract entity and its subentity, class and category codegen,
/// a manual entity (no files), class names with a module prefix (`Lab.Sample`, `.Shift`), a keyword as a
/// property name. Compare with Xcode's own output: the same lines, less `@objc(…)`, with `@Managed` and
/// `@ManagedAccessor` for `@NSManaged` and `import OpenCoreData` for `import CoreData`.
@Suite("Generated class files")
struct GoldenFileTests {
    static func everything() throws -> CodegenModel {
        let url = try #require(Bundle.module.url(forResource: "Everything", withExtension: "xcdatamodeld"))
        return try CodegenModel(contentsOf: url)
    }

    static func files() throws -> [String: String] {
        let generator = ModelClassGenerator(model: try everything(), modelFileName: "Everything.xcdatamodeld")
        return Dictionary(uniqueKeysWithValues: try generator.files().map { ($0.name, $0.contents) })
    }

    @Test func fileNamesFollowEachEntitysCodegenInModelOrder() throws {
        let generator = ModelClassGenerator(model: try Self.everything(), modelFileName: "Everything.xcdatamodeld")
        #expect(try generator.fileNames() == [
            "Creature+CoreDataClass.swift",
            "Creature+CoreDataProperties.swift",
            "Bird+CoreDataClass.swift",
            "Bird+CoreDataProperties.swift",
            "Keeper+CoreDataProperties.swift",
            "Shift+CoreDataClass.swift",
            "Shift+CoreDataProperties.swift",
            "Sample+CoreDataClass.swift",
            "Sample+CoreDataProperties.swift",
        ])
    }

    @Test func creatureClass() throws {
        #expect(try Self.files()["Creature+CoreDataClass.swift"] == Self.creatureClassText)
    }

    @Test func creatureProperties() throws {
        #expect(try Self.files()["Creature+CoreDataProperties.swift"] == Self.creaturePropertiesText)
    }

    @Test func birdClass() throws {
        #expect(try Self.files()["Bird+CoreDataClass.swift"] == Self.birdClassText)
    }

    @Test func birdProperties() throws {
        #expect(try Self.files()["Bird+CoreDataProperties.swift"] == Self.birdPropertiesText)
    }

    @Test func keeperProperties() throws {
        #expect(try Self.files()["Keeper+CoreDataProperties.swift"] == Self.keeperPropertiesText)
    }

    @Test func shiftClass() throws {
        #expect(try Self.files()["Shift+CoreDataClass.swift"] == Self.shiftClassText)
    }

    @Test func shiftProperties() throws {
        #expect(try Self.files()["Shift+CoreDataProperties.swift"] == Self.shiftPropertiesText)
    }

    @Test func sampleClass() throws {
        #expect(try Self.files()["Sample+CoreDataClass.swift"] == Self.sampleClassText)
    }

    @Test func sampleProperties() throws {
        #expect(try Self.files()["Sample+CoreDataProperties.swift"] == Self.samplePropertiesText)
    }

    static let creatureClassText = """
        //
        //  Creature+CoreDataClass.swift
        //  Made by OpenCoreDataCodegen from Everything.xcdatamodeld, entity Creature.
        //  Every build makes it again: change the model, not this file.
        //

        import Foundation
        import OpenCoreData

        public class Creature: NSManagedObject {

        }

        """

    static let creaturePropertiesText = """
        //
        //  Creature+CoreDataProperties.swift
        //  Made by OpenCoreDataCodegen from Everything.xcdatamodeld, entity Creature.
        //  Every build makes it again: change the model, not this file.
        //

        import Foundation
        import OpenCoreData


        extension Creature {

            @nonobjc public class func fetchRequest() -> NSFetchRequest<Creature> {
                return NSFetchRequest<Creature>(entityName: "Creature")
            }

            @Managed public var name: String?
            @Managed public var keeper: Keeper?

        }

        extension Creature : Identifiable {

        }

        """

    static let birdClassText = """
        //
        //  Bird+CoreDataClass.swift
        //  Made by OpenCoreDataCodegen from Everything.xcdatamodeld, entity Bird.
        //  Every build makes it again: change the model, not this file.
        //

        import Foundation
        import OpenCoreData

        public class Bird: Creature {

        }

        """

    static let birdPropertiesText = """
        //
        //  Bird+CoreDataProperties.swift
        //  Made by OpenCoreDataCodegen from Everything.xcdatamodeld, entity Bird.
        //  Every build makes it again: change the model, not this file.
        //

        import Foundation
        import OpenCoreData


        extension Bird {

            @nonobjc public class func fetchRequest() -> NSFetchRequest<Bird> {
                return NSFetchRequest<Bird>(entityName: "Bird")
            }

            @Managed public var wingspan: Double

        }

        """

    static let keeperPropertiesText = """
        //
        //  Keeper+CoreDataProperties.swift
        //  Made by OpenCoreDataCodegen from Everything.xcdatamodeld, entity Keeper.
        //  Every build makes it again: change the model, not this file.
        //

        import Foundation
        import OpenCoreData


        extension Keeper {

            @nonobjc public class func fetchRequest() -> NSFetchRequest<Keeper> {
                return NSFetchRequest<Keeper>(entityName: "Keeper")
            }

            @Managed public var name: String?
            @Managed public var creatures: NSSet?
            @Managed public var shifts: NSOrderedSet?

        }

        // MARK: Generated accessors for creatures
        extension Keeper {

            @ManagedAccessor public func addToCreatures(_ value: Creature)

            @ManagedAccessor public func removeFromCreatures(_ value: Creature)

            @ManagedAccessor public func addToCreatures(_ values: NSSet)

            @ManagedAccessor public func removeFromCreatures(_ values: NSSet)

        }

        // MARK: Generated accessors for shifts
        extension Keeper {

            @ManagedAccessor public func insertIntoShifts(_ value: Shift, at idx: Int)

            @ManagedAccessor public func removeFromShifts(at idx: Int)

            @ManagedAccessor public func insertIntoShifts(_ values: [Shift], at indexes: NSIndexSet)

            @ManagedAccessor public func removeFromShifts(at indexes: NSIndexSet)

            @ManagedAccessor public func replaceShifts(at idx: Int, with value: Shift)

            @ManagedAccessor public func replaceShifts(at indexes: NSIndexSet, with values: [Shift])

            @ManagedAccessor public func addToShifts(_ value: Shift)

            @ManagedAccessor public func removeFromShifts(_ value: Shift)

            @ManagedAccessor public func addToShifts(_ values: NSOrderedSet)

            @ManagedAccessor public func removeFromShifts(_ values: NSOrderedSet)

        }

        extension Keeper : Identifiable {

        }

        """

    static let shiftClassText = """
        //
        //  Shift+CoreDataClass.swift
        //  Made by OpenCoreDataCodegen from Everything.xcdatamodeld, entity Shift.
        //  Every build makes it again: change the model, not this file.
        //

        import Foundation
        import OpenCoreData

        public class Shift: NSManagedObject {

        }

        """

    static let shiftPropertiesText = """
        //
        //  Shift+CoreDataProperties.swift
        //  Made by OpenCoreDataCodegen from Everything.xcdatamodeld, entity Shift.
        //  Every build makes it again: change the model, not this file.
        //

        import Foundation
        import OpenCoreData


        extension Shift {

            @nonobjc public class func fetchRequest() -> NSFetchRequest<Shift> {
                return NSFetchRequest<Shift>(entityName: "Shift")
            }

            @Managed public var start: Date?
            @Managed public var keeper: Keeper?

        }

        extension Shift : Identifiable {

        }

        """

    static let sampleClassText = """
        //
        //  Sample+CoreDataClass.swift
        //  Made by OpenCoreDataCodegen from Everything.xcdatamodeld, entity Sample.
        //  Every build makes it again: change the model, not this file.
        //

        import Foundation
        import OpenCoreData

        public class Sample: NSManagedObject {

        }

        """

    static let samplePropertiesText = """
        //
        //  Sample+CoreDataProperties.swift
        //  Made by OpenCoreDataCodegen from Everything.xcdatamodeld, entity Sample.
        //  Every build makes it again: change the model, not this file.
        //

        import Foundation
        import OpenCoreData


        extension Sample {

            @nonobjc public class func fetchRequest() -> NSFetchRequest<Sample> {
                return NSFetchRequest<Sample>(entityName: "Sample")
            }

            @Managed public var int16Scalar: Int16
            @Managed public var int16Number: NSNumber?
            @Managed public var int32Scalar: Int32
            @Managed public var int32Number: NSNumber?
            @Managed public var int64Scalar: Int64
            @Managed public var int64Number: NSNumber?
            @Managed public var doubleScalar: Double
            @Managed public var doubleNumber: NSNumber?
            @Managed public var floatScalar: Float
            @Managed public var floatNumber: NSNumber?
            @Managed public var boolScalar: Bool
            @Managed public var boolNumber: NSNumber?
            @Managed public var decimal: NSDecimalNumber?
            @Managed public var string: String?
            @Managed public var date: Date?
            @Managed public var dateScalar: TimeInterval
            @Managed public var binary: Data?
            @Managed public var uuid: UUID?
            @Managed public var uri: URL?
            @Managed public var transformable: NSObject?
            @Managed public var tags: [String]?
            @Managed public var scratch: NSObject?
            @Managed public var `default`: String?
            @Managed public var ledger: Ledger?
            @Managed public var notes: NSSet?

        }

        // MARK: Generated accessors for notes
        extension Sample {

            @ManagedAccessor public func addToNotes(_ value: NSManagedObject)

            @ManagedAccessor public func removeFromNotes(_ value: NSManagedObject)

            @ManagedAccessor public func addToNotes(_ values: NSSet)

            @ManagedAccessor public func removeFromNotes(_ values: NSSet)

        }

        extension Sample : Identifiable {

        }

        """
}
