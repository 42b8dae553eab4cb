import Foundation

// Core Data's error codes (in `NSCocoaErrorDomain`) and userInfo keys, under their Core Data names.

/// Mirrors `NSManagedObjectValidationError`.
public let NSManagedObjectValidationError = 1550
/// Mirrors `NSValidationMultipleErrorsError`.
public let NSValidationMultipleErrorsError = 1560
/// Mirrors `NSValidationMissingMandatoryPropertyError`.
public let NSValidationMissingMandatoryPropertyError = 1570
/// Mirrors `NSValidationRelationshipLacksMinimumCountError`: a to-many holds fewer than `minCount` objects.
public let NSValidationRelationshipLacksMinimumCountError = 1580
/// Mirrors `NSValidationRelationshipExceedsMaximumCountError`: a to-many holds more than `maxCount` objects.
public let NSValidationRelationshipExceedsMaximumCountError = 1590
/// Mirrors `NSValidationRelationshipDeniedDeleteError`: a deleted object's deny-rule relationship is not empty.
public let NSValidationRelationshipDeniedDeleteError = 1600
/// Mirrors `NSManagedObjectReferentialIntegrityError` (an object that is not in the store).
public let NSManagedObjectReferentialIntegrityError = 133000
/// Mirrors `NSManagedObjectMergeError`: an optimistic-locking conflict the merge policy did not resolve.
public let NSManagedObjectMergeError = 133020
/// Mirrors `NSManagedObjectConstraintMergeError`: a uniqueness constraint conflict the merge policy did
/// not resolve (`conflictList` holds the `NSConstraintConflict`s).
public let NSManagedObjectConstraintMergeError = 133021
/// Mirrors `NSPersistentStoreInvalidTypeError`.
public let NSPersistentStoreInvalidTypeError = 134000
/// Mirrors `NSPersistentStoreIncompatibleVersionHashError`: the store was made with another model.
public let NSPersistentStoreIncompatibleVersionHashError = 134100
/// Mirrors `NSPersistentStoreOperationError`.
public let NSPersistentStoreOperationError = 134070
/// Mirrors `NSPersistentStoreSaveError`.
public let NSPersistentStoreSaveError = 134030
/// Mirrors `NSCoreDataError`, the general error.
public let NSCoreDataError = 134060
/// Mirrors `NSSQLiteError`.
public let NSSQLiteError = 134180

/// Mirrors `NSValidationObjectErrorKey`.
public let NSValidationObjectErrorKey = "NSValidationErrorObject"
/// Mirrors `NSValidationKeyErrorKey`.
public let NSValidationKeyErrorKey = "NSValidationErrorKey"
/// Mirrors `NSValidationValueErrorKey`.
public let NSValidationValueErrorKey = "NSValidationErrorValue"
/// Mirrors `NSDetailedErrorsKey`.
public let NSDetailedErrorsKey = "NSDetailedErrors"
/// Mirrors `NSAffectedObjectsErrorKey`.
public let NSAffectedObjectsErrorKey = "NSAffectedObjectsErrorKey"
/// Mirrors `NSSQLiteErrorDomain` (the SQLite result code's userInfo key in Core Data).
public let NSSQLiteErrorDomain = "NSSQLiteErrorDomain"

/// The errors OpenCoreData throws: an `NSError` in `NSCocoaErrorDomain` with Core Data's code, whose
/// description names the entity, key, or SQL involved. It is an `NSError` subclass, so Core Data code's
/// `catch let error as NSError` works on Linux too.
public final class CoreDataError: NSError, @unchecked Sendable {
    /// What went wrong, in one sentence (also the `localizedDescription`).
    public let message: String

    public init(_ code: Int, _ message: String, userInfo: [String: Any] = [:]) {
        self.message = message
        var info = userInfo
        info[NSLocalizedDescriptionKey] = message
        super.init(domain: NSCocoaErrorDomain, code: code, userInfo: info)
    }

    public required init?(coder: NSCoder) { nil }

    public override var description: String { message }
}

/// Mirrors `NSValidationNumberTooLargeError`: a number above the attribute's maximum.
public let NSValidationNumberTooLargeError = 1610
/// Mirrors `NSValidationNumberTooSmallError`: a number below the attribute's minimum.
public let NSValidationNumberTooSmallError = 1620
/// Mirrors `NSValidationDateTooLateError`: a date after the attribute's maximum.
public let NSValidationDateTooLateError = 1630
/// Mirrors `NSValidationDateTooSoonError`: a date before the attribute's minimum.
public let NSValidationDateTooSoonError = 1640
/// Mirrors `NSValidationInvalidDateError`.
public let NSValidationInvalidDateError = 1650
/// Mirrors `NSValidationStringTooLongError`: a string longer than the attribute's maximum length.
public let NSValidationStringTooLongError = 1660
/// Mirrors `NSValidationStringTooShortError`: a string shorter than the attribute's minimum length.
public let NSValidationStringTooShortError = 1670
/// Mirrors `NSValidationStringPatternMatchingError`: a string that does not match the attribute's
/// regular expression.
public let NSValidationStringPatternMatchingError = 1680
/// Mirrors `NSValidationInvalidURIError`: a URI attribute's value is not a valid URI.
public let NSValidationInvalidURIError = 1690
/// Mirrors `NSManagedObjectConstraintValidationError`: a uniqueness constraint is violated among the
/// objects of one context.
public let NSManagedObjectConstraintValidationError = 1551

/// Mirrors `NSManagedObjectContextLockingError`: a context's lock could not be taken.
public let NSManagedObjectContextLockingError = 132000
/// Mirrors `NSPersistentStoreCoordinatorLockingError`: a coordinator's lock could not be taken.
public let NSPersistentStoreCoordinatorLockingError = 132010
/// Mirrors `NSManagedObjectExternalRelationshipError`: a saved object's relationship holds an object of
/// another store.
public let NSManagedObjectExternalRelationshipError = 133010

/// Mirrors `NSPersistentStoreTypeMismatchError`: the file is not of the store type it was added as.
public let NSPersistentStoreTypeMismatchError = 134010
/// Mirrors `NSPersistentStoreIncompatibleSchemaError`: the store's schema does not match the model.
public let NSPersistentStoreIncompatibleSchemaError = 134020
/// Mirrors `NSPersistentStoreIncompleteSaveError`: one or more stores failed during a save.
public let NSPersistentStoreIncompleteSaveError = 134040
/// Mirrors `NSPersistentStoreSaveConflictsError`: a save met merge conflicts it did not resolve.
public let NSPersistentStoreSaveConflictsError = 134050
/// Mirrors `NSPersistentStoreOpenError`: the store could not be opened.
public let NSPersistentStoreOpenError = 134080
/// Mirrors `NSPersistentStoreTimeoutError`: the store was not reached within `NSPersistentStoreTimeoutOption`.
public let NSPersistentStoreTimeoutError = 134090
/// Mirrors `NSPersistentStoreUnsupportedRequestTypeError`: a store was handed a request it does not know.
public let NSPersistentStoreUnsupportedRequestTypeError = 134091

/// Mirrors `NSMigrationError`, the general migration error.
public let NSMigrationError = 134110
/// Mirrors `NSMigrationConstraintViolationError`: migrated objects violate a uniqueness constraint.
public let NSMigrationConstraintViolationError = 134111
/// Mirrors `NSMigrationCancelledError`: the migration was cancelled.
public let NSMigrationCancelledError = 134120
/// Mirrors `NSMigrationMissingSourceModelError`: no model matches the store's version hashes.
public let NSMigrationMissingSourceModelError = 134130
/// Mirrors `NSMigrationMissingMappingModelError`: no mapping model leads from the store's model.
public let NSMigrationMissingMappingModelError = 134140
/// Mirrors `NSMigrationManagerSourceStoreError`: the source store failed during a migration.
public let NSMigrationManagerSourceStoreError = 134150
/// Mirrors `NSMigrationManagerDestinationStoreError`: the destination store failed during a migration.
public let NSMigrationManagerDestinationStoreError = 134160
/// Mirrors `NSEntityMigrationPolicyError`: an entity migration policy failed.
public let NSEntityMigrationPolicyError = 134170
/// Mirrors `NSInferredMappingModelError`: no mapping model could be inferred.
public let NSInferredMappingModelError = 134190
/// Mirrors `NSExternalRecordImportError`: importing external records failed.
public let NSExternalRecordImportError = 134200
/// Mirrors `NSPersistentHistoryTokenExpiredError`: the history a token names has been deleted.
public let NSPersistentHistoryTokenExpiredError = 134301
/// Mirrors `NSManagedObjectModelReferenceNotFoundError`: a referenced model could not be found or loaded.
public let NSManagedObjectModelReferenceNotFoundError = 134504
/// Mirrors `NSStagedMigrationFrameworkVersionMismatchError`: the store's metadata does not allow staged
/// migration.
public let NSStagedMigrationFrameworkVersionMismatchError = 134505
/// Mirrors `NSStagedMigrationBackwardMigrationError`: a staged migration would go to an older version.
public let NSStagedMigrationBackwardMigrationError = 134506

/// Mirrors `NSValidationPredicateErrorKey`: the predicate a value failed, in a validation error's userInfo.
public let NSValidationPredicateErrorKey = "NSValidationErrorPredicate"
/// Mirrors `NSAffectedStoresErrorKey`: the stores an error concerns, in its userInfo.
public let NSAffectedStoresErrorKey = "NSAffectedStoresErrorKey"
