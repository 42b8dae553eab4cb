import Foundation

extension NSEntityDescription: NSSecureCoding {
    /// Mirrors `supportsSecureCoding` (`NSSecureCoding`): `true`.
    public static var supportsSecureCoding: Bool { true }

    /// What `init?(coder:)` reads: `NSEntityName`, `NSClassNameForEntity`, `NSIsAbstract`,
    /// `NSRenamingIdentifier` (the same as the name means none), `NSVersionHashModifier`, `NSUserInfo`,
    /// `NSProperties` and `NSSubentities` (dictionaries by name; the properties ordered by name),
    /// `NSUniqueTuples`, `NSCompoundIndexes`, `NSFetchIndexDescriptions`. `NSSuperentity` and
    /// `NSManagedObjectModel` are not read: an entity is the superentity of those its `NSSubentities`
    /// holds, and belongs to the model whose entities hold it.
    func decodeEntity(from coder: NSCoder) -> Bool {
        ModelArchiveDecoder.noteDecoding(self, by: coder)
        guard let name = ArchiveKeys.string(coder, "NSEntityName"), !name.isEmpty else {
            return ModelArchiveDecoder.failed(coder, "an entity without a name (NSEntityName)")
        }
        self.name = name
        managedObjectClassName = ArchiveKeys.string(coder, "NSClassNameForEntity") ?? "NSManagedObject"
        isAbstract = coder.decodeBool(forKey: "NSIsAbstract")
        let renaming = ArchiveKeys.string(coder, "NSRenamingIdentifier")
        renamingIdentifier = renaming == name ? nil : renaming
        versionHashModifier = ArchiveKeys.string(coder, "NSVersionHashModifier").flatMap { $0.isEmpty ? nil : $0 }
        userInfo = ArchiveKeys.userInfo(coder)
        guard decodeMembers(from: coder) else { return false }
        if let constraints = ArchiveKeys.nameLists(coder, "NSUniqueTuples"), constraints.contains(where: { !$0.isEmpty }) {
            uniquenessConstraints = constraints
        }
        let compound = ArchiveKeys.nameLists(coder, "NSCompoundIndexes") ?? []
        let indexes = ArchiveKeys.array(coder, "NSFetchIndexDescriptions", of: [NSFetchIndexDescription.self], as: NSFetchIndexDescription.self)
        // Compound indexes alone (older compiled models) become fetch indexes, as a model file's do; with
        // the fetch indexes archived beside them, those are the entity's indexes.
        if !compound.isEmpty { compoundIndexes = compound }
        if let indexes { self.indexes = indexes }
        return coder.error == nil
    }

    /// The properties and subentities, each keyed by its own name and held by this entity alone.
    private func decodeMembers(from coder: NSCoder) -> Bool {
        let properties = ArchiveKeys.dictionary(coder, "NSProperties", of: [NSPropertyDescription.self], as: NSPropertyDescription.self) ?? [:]
        for (key, property) in properties {
            guard property.name == key else { return ModelArchiveDecoder.failed(coder, "NSProperties holds \(property.name) under the key \(key)") }
            if let owner = property.entity, owner !== self {
                return ModelArchiveDecoder.failed(coder, "the property \(key) belongs to entity \(owner.name ?? "?") too")
            }
        }
        self.properties = properties.values.sorted { $0.name < $1.name }
        let subentities = ArchiveKeys.dictionary(coder, "NSSubentities", of: [NSEntityDescription.self], as: NSEntityDescription.self) ?? [:]
        for (key, entity) in subentities {
            guard entity.name == key, entity !== self else {
                return ModelArchiveDecoder.failed(coder, "NSSubentities holds \(entity.name ?? "?") under the key \(key)")
            }
            if let parent = entity.superentity, parent !== self {
                return ModelArchiveDecoder.failed(coder, "the entity \(key) is a subentity of \(parent.name ?? "?") too")
            }
        }
        self.subentities = subentities.values.sorted { ($0.name ?? "") < ($1.name ?? "") }
        return coder.error == nil
    }

    func encodeEntity(with coder: NSCoder) {
        coder.encode(NSString(string: name ?? ""), forKey: "NSEntityName")
        coder.encode(NSString(string: managedObjectClassName ?? "NSManagedObject"), forKey: "NSClassNameForEntity")
        if isAbstract { coder.encode(true, forKey: "NSIsAbstract") }
        coder.encode(NSString(string: renamingIdentifier ?? name ?? ""), forKey: "NSRenamingIdentifier")
        coder.encode(versionHashModifier.map { NSString(string: $0) }, forKey: "NSVersionHashModifier")
        coder.encode(ModelArchiveEncoding.plistDictionary(userInfo ?? [:]) ?? [:], forKey: "NSUserInfo")
        if let model = managedObjectModel { coder.encodeConditionalObject(model, forKey: "NSManagedObjectModel") }
        coder.encodeConditionalObject(superentity, forKey: "NSSuperentity")
        coder.encode(ModelArchiveEncoding.dictionary(subentities.map { ($0.name ?? "", $0) }), forKey: "NSSubentities")
        // Its own properties: Core Data's compiler also writes copies of the inherited ones, which a reader drops.
        coder.encode(ModelArchiveEncoding.dictionary(properties.filter { $0.entity === self }.map { ($0.name, $0) }), forKey: "NSProperties")
        let names = { (lists: [[Any]]) -> [Any] in lists.map { list in list.map { ($0 as? NSPropertyDescription)?.name ?? "\($0)" } } }
        if !uniquenessConstraints.isEmpty { coder.encode(names(uniquenessConstraints), forKey: "NSUniqueTuples") }
        if !compoundIndexes.isEmpty { coder.encode(names(compoundIndexes), forKey: "NSCompoundIndexes") }
        if !indexes.isEmpty { coder.encode(indexes as [Any], forKey: "NSFetchIndexDescriptions") }
    }
}
