import Foundation

/// Mirrors SwiftData's `SwiftDataError`: what went wrong, as one of SwiftData's codes, with the details
/// here in its description (Apple's has none). Errors compare equal by code, so `catch
/// SwiftDataError.unsupportedPredicate` matches whatever the details.
public struct SwiftDataError: Error, Equatable, Hashable, CustomStringConvertible, Sendable {
    enum Code: String, Sendable {
        case includePendingChangesWithBatchSize, sortingPendingChangesWithIdentifiers, unsupportedKeyPath
        case unsupportedPredicate, unsupportedSortDescriptor, historyTokenExpired, invalidTransactionFetchRequest
        case configurationFileNameContainsInvalidCharacters, configurationFileNameTooLong
        case configurationSchemaNotFoundInContainerSchema, duplicateConfiguration, loadIssueModelContainer
        case modelValidationFailure, missingModelContext, backwardMigration, unknownSchema, unknownDataStoreSchema
    }

    let code: Code
    /// What happened, naming the model, property or store.
    let details: String

    init(_ code: Code, _ details: String = "") { (self.code, self.details) = (code, details) }

    /// The code and the details.
    public var description: String { details.isEmpty ? "SwiftDataError.\(code.rawValue)" : "SwiftDataError.\(code.rawValue): \(details)" }

    /// Equal when the codes are.
    public static func == (lhs: SwiftDataError, rhs: SwiftDataError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// Mirrors `~=`: `case SwiftDataError.unsupportedPredicate` matches an error of that code.
    public static func ~= (pattern: SwiftDataError, error: any Error) -> Bool {
        (error as? SwiftDataError)?.code == pattern.code
    }

    /// Mirrors `includePendingChangesWithBatchSize`.
    public static let includePendingChangesWithBatchSize = SwiftDataError(.includePendingChangesWithBatchSize)
    /// Mirrors `sortingPendingChangesWithIdentifiers`.
    public static let sortingPendingChangesWithIdentifiers = SwiftDataError(.sortingPendingChangesWithIdentifiers)
    /// Mirrors `unsupportedKeyPath`: a key path that is no persisted property.
    public static let unsupportedKeyPath = SwiftDataError(.unsupportedKeyPath)
    /// Mirrors `unsupportedPredicate`.
    public static let unsupportedPredicate = SwiftDataError(.unsupportedPredicate)
    /// Mirrors `unsupportedSortDescriptor`.
    public static let unsupportedSortDescriptor = SwiftDataError(.unsupportedSortDescriptor)
    /// Mirrors `historyTokenExpired`.
    public static let historyTokenExpired = SwiftDataError(.historyTokenExpired)
    /// Mirrors `invalidTransactionFetchRequest`.
    public static let invalidTransactionFetchRequest = SwiftDataError(.invalidTransactionFetchRequest)
    /// Mirrors `configurationFileNameContainsInvalidCharacters`.
    public static let configurationFileNameContainsInvalidCharacters = SwiftDataError(.configurationFileNameContainsInvalidCharacters)
    /// Mirrors `configurationFileNameTooLong`.
    public static let configurationFileNameTooLong = SwiftDataError(.configurationFileNameTooLong)
    /// Mirrors `configurationSchemaNotFoundInContainerSchema`.
    public static let configurationSchemaNotFoundInContainerSchema = SwiftDataError(.configurationSchemaNotFoundInContainerSchema)
    /// Mirrors `duplicateConfiguration`.
    public static let duplicateConfiguration = SwiftDataError(.duplicateConfiguration)
    /// Mirrors `loadIssueModelContainer`: the container could not be made (its schema or a store).
    public static let loadIssueModelContainer = SwiftDataError(.loadIssueModelContainer)
    /// Mirrors `modelValidationFailure`.
    public static let modelValidationFailure = SwiftDataError(.modelValidationFailure)
    /// Mirrors `missingModelContext`.
    public static let missingModelContext = SwiftDataError(.missingModelContext)
    /// Mirrors `backwardMigration`: a migration plan's store is at a later version than the container's schema.
    public static let backwardMigration = SwiftDataError(.backwardMigration)
    /// Mirrors `unknownSchema`: a model type the container's schema lacks, or a migration stage naming a
    /// version its plan's `schemas` lack.
    public static let unknownSchema = SwiftDataError(.unknownSchema)
    /// Mirrors `unknownDataStoreSchema`: a store at none of the versions of the container's migration plan.
    public static let unknownDataStoreSchema = SwiftDataError(.unknownDataStoreSchema)
}
