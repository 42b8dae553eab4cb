import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// A model file's minimum, maximum and regular expression are validation predicates that a save checks,
/// with Core Data's error codes.
@Suite("Model files: validation predicates at save")
struct AttributeValidationTests {
    static let contents = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        <entity name="Ticket" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="code" optional="YES" attributeType="String" minValueString="2" maxValueString="4" regularExpressionString="[A-Z]+"/>
            <attribute name="seats" optional="YES" attributeType="Integer 16" minValueString="1" maxValueString="9" usesScalarValueType="YES"/>
            <attribute name="price" optional="YES" attributeType="Decimal" minValueString="0.5"/>
            <attribute name="when" optional="YES" attributeType="Date" minDateTimeInterval="0" maxDateTimeInterval="1000"/>
            <attribute name="photo" optional="YES" attributeType="Binary" maxValueString="3"/>
        </entity>
    </model>
    """

    func context() throws -> (NSManagedObjectContext, TemporaryStore) {
        let model = try NSManagedObjectModel(modelFileContents: Data(Self.contents.utf8))
        let store = TemporaryStore()
        return (try store.container(model).viewContext, store)
    }

    @Test func valuesWithinTheBoundsSave() throws {
        let (context, store) = try context()
        defer { store.cleanUp() }
        let ticket = NSEntityDescription.insertNewObject(forEntityName: "Ticket", into: context)
        for (key, value) in [("code", "AB" as Any), ("seats", 9), ("price", Decimal(string: "0.5")!), ("when", Date(timeIntervalSinceReferenceDate: 1000)), ("photo", Data([1, 2, 3]))] {
            ticket.setValue(value, forKey: key)
        }
        try context.save()
        ticket.setValue(nil, forKey: "code")  // nil is not checked (optional)
        try context.save()
    }

    @Test func eachBoundFailsWithCoreDatasCode() throws {
        let cases: [(String, Any, Int, String)] = [
            ("code", "A", NSValidationStringTooShortError, "Ticket.code = \"A\" does not satisfy its validation predicate length >= 2."),
            ("code", "ABCDE", NSValidationStringTooLongError, "Ticket.code = \"ABCDE\" does not satisfy its validation predicate length <= 4."),
            ("code", "ab", NSValidationStringPatternMatchingError, "Ticket.code = \"ab\" does not satisfy its validation predicate SELF MATCHES \"[A-Z]+\"."),
            ("seats", 0, NSValidationNumberTooSmallError, "Ticket.seats = 0 does not satisfy its validation predicate SELF >= 1."),
            ("seats", 10, NSValidationNumberTooLargeError, "Ticket.seats = 10 does not satisfy its validation predicate SELF <= 9."),
            ("price", Decimal(string: "0.49")!, NSValidationNumberTooSmallError, "Ticket.price = CAST(\"0.49\", \"NSDecimalNumber\") does not satisfy its validation predicate SELF >= 0.5."),
            ("when", Date(timeIntervalSinceReferenceDate: -1), NSValidationDateTooSoonError, "Ticket.when = CAST(-1.0, \"NSDate\") does not satisfy its validation predicate SELF >= CAST(0.0, \"NSDate\")."),
            ("when", Date(timeIntervalSinceReferenceDate: 1000.5), NSValidationDateTooLateError, "Ticket.when = CAST(1000.5, \"NSDate\") does not satisfy its validation predicate SELF <= CAST(1000.0, \"NSDate\")."),
            ("photo", Data([1, 2, 3, 4]), NSValidationStringTooLongError, "Ticket.photo = CAST(\"AQIDBA==\", \"NSData\") does not satisfy its validation predicate length <= 3."),
        ]
        let (context, store) = try context()
        defer { store.cleanUp() }
        for (key, value, code, message) in cases {
            let ticket = NSEntityDescription.insertNewObject(forEntityName: "Ticket", into: context)
            ticket.setValue(value, forKey: key)
            let error = try #require(throws: CoreDataError.self) { try context.save() }
            #expect(error.code == code, "\(key)")
            #expect(error.message == message)
            #expect(error.userInfo[NSValidationKeyErrorKey] as? String == key)
            context.delete(ticket)
        }
        let ticket = NSEntityDescription.insertNewObject(forEntityName: "Ticket", into: context)
        ticket.setValue("a", forKey: "code")  // too short and not matching: two errors
        let error = try #require(throws: CoreDataError.self) { try context.save() }
        #expect(error.code == NSValidationMultipleErrorsError)
        #expect((error.userInfo[NSDetailedErrorsKey] as? [NSError])?.map(\.code) == [NSValidationStringTooShortError, NSValidationStringPatternMatchingError])
    }

    /// Predicates set in code: any predicate over SELF, a string warning in the message.
    @Test func predicatesSetInCode() throws {
        let name = NSAttributeDescription(name: "name", type: .stringAttributeType)
        name.setValidationPredicates([NSPredicate(format: "SELF != %@", "root")], withValidationWarnings: ["reserved name"])
        let model = NSManagedObjectModel(entities: [NSEntityDescription(name: "User", properties: [name])])
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container(model).viewContext
        let user = NSEntityDescription.insertNewObject(forEntityName: "User", into: context)
        user.setValue("root", forKey: "name")
        let error = try #require(throws: CoreDataError.self) { try context.save() }
        #expect(error.code == NSManagedObjectValidationError)
        #expect(error.message == "User.name = \"root\" does not satisfy its validation predicate SELF != \"root\" (reserved name).")
        user.setValue("ada", forKey: "name")
        try context.save()
    }
}
