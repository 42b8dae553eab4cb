import Foundation
import Testing
@testable import OpenCoreData

/// The raw values of Core Data's option enums, as Apple's headers give them (they are archived in model
/// and mapping files and stored in history rows), read back through `init(rawValue:)`.
@Suite("Core Data raw values")
struct CoreDataRawValueTests {
    @Test func attributeTypesAndDeleteRules() {
        let attributes: [(NSAttributeType, UInt)] = [(.undefinedAttributeType, 0), (.integer16AttributeType, 100), (.integer32AttributeType, 200),
                                                     (.integer64AttributeType, 300), (.decimalAttributeType, 400), (.doubleAttributeType, 500),
                                                     (.floatAttributeType, 600), (.stringAttributeType, 700), (.booleanAttributeType, 800),
                                                     (.dateAttributeType, 900), (.binaryDataAttributeType, 1000), (.UUIDAttributeType, 1100),
                                                     (.URIAttributeType, 1200), (.transformableAttributeType, 1800), (.objectIDAttributeType, 2000)]
        for (type, raw) in attributes { #expect(NSAttributeType(rawValue: raw) == type) }
        #expect(NSAttributeType(rawValue: 150) == nil)
        let rules: [(NSDeleteRule, UInt)] = [(.noActionDeleteRule, 0), (.nullifyDeleteRule, 1), (.cascadeDeleteRule, 2), (.denyDeleteRule, 3)]
        for (rule, raw) in rules { #expect(NSDeleteRule(rawValue: raw) == rule) }
        #expect(NSDeleteRule(rawValue: 4) == nil)
    }

    @Test func requestResultTypes() {
        #expect(NSFetchRequestResultType(rawValue: 0) == .managedObjectResultType)
        #expect(NSFetchRequestResultType(rawValue: 1) == .managedObjectIDResultType)
        #expect(NSFetchRequestResultType(rawValue: 2) == .dictionaryResultType)
        #expect(NSFetchRequestResultType(rawValue: 4) == .countResultType)
        #expect(NSBatchDeleteRequestResultType(rawValue: 0) == .resultTypeStatusOnly)
        #expect(NSBatchDeleteRequestResultType(rawValue: 1) == .resultTypeObjectIDs)
        #expect(NSBatchDeleteRequestResultType(rawValue: 2) == .resultTypeCount)
        #expect(NSBatchInsertRequestResultType(rawValue: 0) == .statusOnly)
        #expect(NSBatchInsertRequestResultType(rawValue: 1) == .objectIDs)
        #expect(NSBatchInsertRequestResultType(rawValue: 2) == .count)
        #expect(NSBatchUpdateRequestResultType(rawValue: 0) == .statusOnlyResultType)
        #expect(NSBatchUpdateRequestResultType(rawValue: 1) == .updatedObjectIDsResultType)
        #expect(NSBatchUpdateRequestResultType(rawValue: 2) == .updatedObjectsCountResultType)
        #expect(NSPersistentHistoryResultType(rawValue: 0) == .statusOnly)
        #expect(NSPersistentHistoryResultType(rawValue: 5) == .transactionsAndChanges)
        #expect(NSPersistentHistoryChangeType(rawValue: 0) == .insert)
        #expect(NSPersistentHistoryChangeType(rawValue: 2) == .delete)
    }

    @Test func contextMappingAndIndexTypes() {
        #expect(NSManagedObjectContextConcurrencyType(rawValue: 1) == .privateQueueConcurrencyType)
        #expect(NSManagedObjectContextConcurrencyType(rawValue: 2) == .mainQueueConcurrencyType)
        #expect(NSEntityMappingType(rawValue: 0) == .undefinedEntityMappingType)
        #expect(NSEntityMappingType(rawValue: 5) == .transformEntityMappingType)
        #expect(NSFetchIndexElementType(rawValue: 0) == .binary)
        #expect(NSFetchIndexElementType(rawValue: 1) == .rTree)
        #expect(NSMergePolicyType(rawValue: 4) == .rollbackMergePolicyType)
    }
}
