import CZlib
import Foundation
@testable import OpenCoreData
@testable import OpenCoreDataPredicates
import OpenCoreDataTesting

/// The compiled models of the Apple fixture stores (Tests/Fixtures/AppleStores): each store's
/// `Z_MODELCACHE`, read from a copy of the store (the fixtures are never touched), and what of a model the
/// tests compare.
enum CompiledModelFixtures {
    /// A copy of a fixture store (with its `-wal` and `-shm`) in a temporary folder.
    static func copy(_ store: URL) throws -> TemporaryStore {
        let temporary = TemporaryStore()
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: store.path + suffix) {
            try FileManager.default.copyItem(atPath: store.path + suffix, toPath: temporary.url.path + suffix)
        }
        return temporary
    }

    /// The store's model cache, still compressed.
    static func compressedCache(_ store: URL) throws -> Data? {
        let temporary = try copy(store)
        defer { temporary.cleanUp() }
        let connection = try SQLiteConnection(path: temporary.url.path)
        var compressed: Data?
        try connection.query("SELECT name FROM sqlite_master WHERE name = 'Z_MODELCACHE'") { _ in compressed = Data() }
        guard compressed != nil else { return nil }
        try connection.query("SELECT Z_CONTENT FROM Z_MODELCACHE") { row in
            if case .data(let data) = row.value(0, as: .binaryDataAttributeType) { compressed = data }
        }
        return compressed
    }

    /// The store's model cache, inflated by the library.
    static func archive(_ store: URL) throws -> Data? {
        let temporary = try copy(store)
        defer { temporary.cleanUp() }
        return try StoreModelCache.archive(ofStoreAt: temporary.url)
    }

    /// Raw DEFLATE inflated by zlib, to check the library's own inflater against.
    static func zlibInflate(_ data: Data) throws -> Data { try AppleArchiveTests.inflate(data) }

    /// The fixture pairs (store, model version) whose store has a model cache.
    static func cachedPairs() throws -> [VersionHashTests.Pair] {
        try VersionHashTests.pairs().filter { try compressedCache($0.storeURL) != nil }
    }

    /// What of a model the comparison looks at: per entity its name, superentity, subentities,
    /// abstractness, and each property (inherited ones included, ordered by name) with its kind, type,
    /// optionality, transience, default, and for relationships destination, inverse, to-many, ordered,
    /// delete rule, minimum and maximum; uniqueness constraints; templates and configurations. Not the
    /// entities' class names: they do not enter the version hashes, and the builds that wrote the fixture
    /// stores named other classes than the committed model files do (`NSManagedObject`, `MoodyModel.Mood`).
    static func summary(_ model: NSManagedObjectModel, full: Bool = false) -> [String] {
        var lines: [String] = []
        for entity in model.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            if full {
                lines.append("  entity details class=\(entity.managedObjectClassName ?? "-") rename=\(entity.renamingIdentifier ?? "-") hashmod=\(entity.versionHashModifier ?? "-") info=\(ModelDump.info(entity.userInfo)) compound=\(entity.compoundIndexes.map { $0.map { "\($0)" } }) indexes=\(entity.indexes.map { index in "\(index.name):" + index.elements.map { "\($0.propertyName ?? "?")/\($0.collationType.rawValue)/\($0.isAscending)" }.joined(separator: ",") })")
            }
            lines.append("entity \(entity.name ?? "?") super=\(entity.superentity?.name ?? "-") abstract=\(entity.isAbstract) subentities=\(entity.subentities.compactMap(\.name).sorted()) unique=\(entity.uniquenessConstraints.map { $0.map { "\($0)" } })")
            for property in entity.properties.sorted(by: { $0.name < $1.name }) {
                lines.append("  " + describe(property) + (full ? details(property) : ""))
            }
        }
        for name in model.fetchRequestTemplatesByName.keys.sorted() {
            lines.append("template \(name) \(ModelDump.request(model.fetchRequestTemplatesByName[name]!))")
        }
        for name in model.configurations.sorted() {
            lines.append("configuration \(name) \(model.entities(forConfigurationName: name)!.compactMap(\.name).sorted())")
        }
        return lines
    }

    /// What a compiled model keeps beyond the summary: renaming, version hash modifiers, user info, index
    /// and storage flags.
    static func details(_ property: NSPropertyDescription) -> String {
        var line = " rename=\(property.renamingIdentifier ?? "-") hashmod=\(property.versionHashModifier ?? "-") info=\(ModelDump.info(property.userInfo)) indexed=\(property.isIndexed) spotlight=\(property.isIndexedBySpotlight)"
        if let a = property as? NSAttributeDescription { line += " cloud=\(a.allowsCloudEncryption)" }
        if let c = property as? NSCompositeAttributeDescription { line += " elements=[" + c.elements.map { describe($0) + details($0) }.joined(separator: "; ") + "]" }
        return line
    }

    static func describe(_ property: NSPropertyDescription) -> String {
        let common = "\(property.name) optional=\(property.isOptional)"
        switch property {
        case let r as NSRelationshipDescription:
            return common + " transient=\(r.isTransient) → \(r.destinationEntity?.name ?? "?") inverse=\(r.inverseRelationship?.name ?? "-") toMany=\(r.isToMany) ordered=\(r.isOrdered) rule=\(r.deleteRule.rawValue) min=\(r.minCount) max=\(r.maxCount)"
        case let a as NSAttributeDescription:
            // A Boolean default is an NSNumber in a compiled model, a Bool or an NSNumber in a model built in code.
            let value = a.attributeType == .booleanAttributeType ? (a.defaultValue as? NSNumber).map { "\($0.boolValue)" } ?? "-"
                : a.defaultValue.map { "\($0)" } ?? "-"
            var line = common + " transient=\(a.isTransient) type=\(a.attributeType.rawValue) default=\(value) class=\(a.attributeValueClassName ?? "-")"
            line += " external=\(a.allowsExternalBinaryDataStorage) preserve=\(a.preservesValueInHistoryOnDeletion) transformer=\(a.valueTransformerName ?? "-")"
            line += " validation=\(a.validationPredicates.map(\.predicateFormat)) warnings=\(a.validationWarnings.map { "\($0)" })"
            if let d = a as? NSDerivedAttributeDescription { line += " derived=\(d.derivationExpression?.description ?? "-")" }
            return line
        case let f as NSFetchedPropertyDescription:
            return common + " fetched " + (f.fetchRequest.map(ModelDump.request) ?? "-")
        default:
            return common + " \(type(of: property))"
        }
    }
}
