import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Core Data's constants under their names and with Apple's values, and the SQLite store options that
/// act when a store is added (`NSSQLiteAnalyzeOption`, `NSSQLiteManualVacuumOption`,
/// `NSPersistentStoreConnectionPoolMaxSizeKey`).
@Suite("Constants and store options")
struct ConstantsAndStoreOptionsTests {
    /// The values of `CoreDataErrors.h`: code written for Apple compares `error.code` with them.
    @Test func errorCodesHaveApplesValues() {
        let expected: [(Int, Int)] = [
            (NSManagedObjectConstraintValidationError, 1551), (NSValidationInvalidURIError, 1690),
            (NSManagedObjectContextLockingError, 132000), (NSPersistentStoreCoordinatorLockingError, 132010),
            (NSManagedObjectExternalRelationshipError, 133010), (NSPersistentStoreTypeMismatchError, 134010),
            (NSPersistentStoreIncompatibleSchemaError, 134020), (NSPersistentStoreIncompleteSaveError, 134040),
            (NSPersistentStoreSaveConflictsError, 134050), (NSPersistentStoreOpenError, 134080),
            (NSPersistentStoreTimeoutError, 134090), (NSPersistentStoreUnsupportedRequestTypeError, 134091),
            (NSMigrationError, 134110), (NSMigrationConstraintViolationError, 134111), (NSMigrationCancelledError, 134120),
            (NSMigrationMissingSourceModelError, 134130), (NSMigrationMissingMappingModelError, 134140),
            (NSMigrationManagerSourceStoreError, 134150), (NSMigrationManagerDestinationStoreError, 134160),
            (NSEntityMigrationPolicyError, 134170), (NSInferredMappingModelError, 134190), (NSExternalRecordImportError, 134200),
            (NSPersistentHistoryTokenExpiredError, 134301), (NSManagedObjectModelReferenceNotFoundError, 134504),
            (NSStagedMigrationFrameworkVersionMismatchError, 134505), (NSStagedMigrationBackwardMigrationError, 134506),
        ]
        for (index, pair) in expected.enumerated() { #expect(pair.0 == pair.1, "entry \(index)") }
        #expect(Set(expected.map(\.0)).count == expected.count, "no two codes alike")
    }

    @Test func keysHaveApplesStrings() {
        #expect(NSValidationPredicateErrorKey == "NSValidationErrorPredicate")
        #expect(NSAffectedStoresErrorKey == "NSAffectedStoresErrorKey")
        #expect(NSStoreTypeKey == "NSStoreType" && NSStoreUUIDKey == "NSStoreUUID")
        #expect(NSSQLiteAnalyzeOption == "NSSQLiteAnalyzeOption" && NSSQLiteManualVacuumOption == "NSSQLiteManualVacuumOption")
        #expect(NSMigratePersistentStoresAutomaticallyOption == "NSMigratePersistentStoresAutomaticallyOption")
        #expect(NSInferMappingModelAutomaticallyOption == "NSInferMappingModelAutomaticallyOption")
    }

    /// `CoreDataDefines.h`: code that branches on the running version compares with these. (They are not
    /// ordered as numbers: 10.7's 358.4 is above 10.7.2's 358.12.)
    @Test func versionNumbersOrderAsApples() {
        let mac = [NSCoreDataVersionNumber10_4, NSCoreDataVersionNumber10_4_3, NSCoreDataVersionNumber10_5, NSCoreDataVersionNumber10_5_3,
                   NSCoreDataVersionNumber10_6, NSCoreDataVersionNumber10_6_2, NSCoreDataVersionNumber10_6_3, NSCoreDataVersionNumber10_7,
                   NSCoreDataVersionNumber10_7_2, NSCoreDataVersionNumber10_7_3, NSCoreDataVersionNumber10_7_4, NSCoreDataVersionNumber10_8,
                   NSCoreDataVersionNumber10_8_2, NSCoreDataVersionNumber10_9, NSCoreDataVersionNumber10_9_2, NSCoreDataVersionNumber10_9_3,
                   NSCoreDataVersionNumber10_10, NSCoreDataVersionNumber10_10_2, NSCoreDataVersionNumber10_10_3, NSCoreDataVersionNumber10_11,
                   NSCoreDataVersionNumber10_11_3]
        let iOS = [NSCoreDataVersionNumber_iPhoneOS_3_0, NSCoreDataVersionNumber_iPhoneOS_3_1, NSCoreDataVersionNumber_iPhoneOS_3_2,
                   NSCoreDataVersionNumber_iPhoneOS_4_0, NSCoreDataVersionNumber_iPhoneOS_4_1, NSCoreDataVersionNumber_iPhoneOS_4_2,
                   NSCoreDataVersionNumber_iPhoneOS_4_3, NSCoreDataVersionNumber_iPhoneOS_5_0, NSCoreDataVersionNumber_iPhoneOS_5_1,
                   NSCoreDataVersionNumber_iPhoneOS_6_0, NSCoreDataVersionNumber_iPhoneOS_6_1, NSCoreDataVersionNumber_iPhoneOS_7_0,
                   NSCoreDataVersionNumber_iPhoneOS_7_1, NSCoreDataVersionNumber_iPhoneOS_8_0, NSCoreDataVersionNumber_iPhoneOS_8_3,
                   NSCoreDataVersionNumber_iPhoneOS_9_0, NSCoreDataVersionNumber_iPhoneOS_9_2, NSCoreDataVersionNumber_iPhoneOS_9_3]
        #expect(mac == [46.0, 77.0, 185.0, 186.0, 246.0, 250.0, 251.0, 358.4, 358.12, 358.13, 358.14, 407.5, 407.7, 481.0, 481.1,
                        481.3, 526.0, 526.1, 526.2, 640.0, 641.3])
        #expect(iOS == [241.0, 248.0, 310.2, 320.5, 320.11, 320.15, 320.17, 386.1, 386.5, 419.0, 419.1, 479.1, 479.3, 519.0, 519.15,
                        640.0, 641.4, 641.6])
        #expect(NSCoreDataVersionNumber > NSCoreDataVersionNumber_iPhoneOS_9_3 && NSCoreDataVersionNumber > NSCoreDataVersionNumber10_11_3)
    }

    @Test func analyzeOptionGathersStatistics() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SeedModel.make())
        try coordinator.addPersistentStore(type: .sqlite, at: store.url, options: [NSSQLiteAnalyzeOption: true])
        var tables: [String] = []
        try coordinator.sqlite.write { db in
            try db.query("SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'") { row in
                if case .string(let s) = row.value(0, as: .stringAttributeType) { tables.append(s) }
            }
        }
        #expect(tables == ["sqlite_stat1"], "ANALYZE ran")
    }

    @Test func manualVacuumOptionRebuildsTheFile() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        do {
            let container = try store.container()
            let context = container.viewContext
            let objects = insertProducts(context, count: 3000)
            try context.save()
            for object in objects { context.delete(object) }
            try context.save()
            #expect(try freePages(container.persistentStoreCoordinator) > 0, "deleting rows left free pages")
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SeedModel.make())
        try coordinator.addPersistentStore(type: .sqlite, at: store.url, options: [NSSQLiteManualVacuumOption: NSNumber(value: true)])
        #expect(try freePages(coordinator) == 0)
        let context = NSManagedObjectContext(.mainQueue)
        context.persistentStoreCoordinator = coordinator
        #expect(try context.count(for: NSFetchRequest<Products>(entityName: "Products")) == 0)
    }

    @Test func connectionPoolSizeSetsTheReaders() throws {
        for (size, readers) in [(1, 0), (2, 1), (5, 4)] {
            let store = TemporaryStore()
            defer { store.cleanUp() }
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SeedModel.make())
            try coordinator.addPersistentStore(type: .sqlite, at: store.url, options: [NSPersistentStoreConnectionPoolMaxSizeKey: NSNumber(value: size)])
            #expect(try coordinator.sqlite.readerConnectionCount == readers)
            let context = NSManagedObjectContext(.privateQueue)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                insertProducts(context, count: 20)
                try context.save()
                context.reset()
                #expect(try context.fetch(NSFetchRequest<Products>(entityName: "Products")).count == 20, "pool size \(size)")
            }
        }
        let defaults = TemporaryStore()
        defer { defaults.cleanUp() }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: SeedModel.make())
        try coordinator.addPersistentStore(type: .sqlite, at: defaults.url)
        #expect(try coordinator.sqlite.readerConnectionCount == 2)
    }

    @Test func descriptionMigrationFlagsAreOptions() {
        let description = NSPersistentStoreDescription(URL: URL(fileURLWithPath: "/tmp/x.sqlite"))
        #expect(description.url?.path == "/tmp/x.sqlite")
        #expect(description.shouldMigrateStoreAutomatically && description.shouldInferMappingModelAutomatically, "true by default")
        description.shouldInferMappingModelAutomatically = false
        #expect(description.options[NSInferMappingModelAutomaticallyOption] as? NSNumber == false)
        #expect(!description.shouldInferMappingModelAutomatically && description.shouldMigrateStoreAutomatically)
        description.setOption(NSNumber(value: false), forKey: NSMigratePersistentStoresAutomaticallyOption)
        #expect(!description.shouldMigrateStoreAutomatically)
    }

    private func freePages(_ coordinator: NSPersistentStoreCoordinator) throws -> Int {
        var count = -1
        try coordinator.sqlite.write { db in
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            try db.query("PRAGMA freelist_count") { row in
                if case .int(let n) = row.value(0, as: .integer64AttributeType) { count = Int(n) }
            }
        }
        return count
    }
}
