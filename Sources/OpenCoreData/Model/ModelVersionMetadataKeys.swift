/// Mirrors `NSStoreModelVersionHashesKey`: the store metadata key of the entity version hashes of the model
/// the store was written with (entity name → 32-byte `Data`, as ``NSManagedObjectModel/entityVersionHashesByName``).
public let NSStoreModelVersionHashesKey = "NSStoreModelVersionHashes"

/// Mirrors `NSStoreModelVersionIdentifiersKey`: the store metadata key of the model's
/// ``NSManagedObjectModel/versionIdentifiers`` (an array of strings).
public let NSStoreModelVersionIdentifiersKey = "NSStoreModelVersionIdentifiers"

/// Mirrors `NSPersistentStoreModelVersionChecksumKey`: the store metadata key of the model's
/// ``NSManagedObjectModel/versionChecksum``.
public let NSPersistentStoreModelVersionChecksumKey = "NSStoreModelVersionChecksumKey"

/// Mirrors `NSPersistentStoreOSCompatibility`: the store metadata key Core Data records the operating system
/// compatibility level under. Only the key: nothing here writes or reads it.
public let NSPersistentStoreOSCompatibility = "NSPersistentStoreOSCompatibility"

/// The store metadata key of the version of the hash algorithm the recorded hashes were made with
/// (Core Data writes 3; ``NSManagedObjectModel/isConfiguration(withName:compatibleWithStoreMetadata:)``
/// reads it). Not a public constant in Core Data.
let storeModelVersionHashesVersionKey = "NSStoreModelVersionHashesVersion"
