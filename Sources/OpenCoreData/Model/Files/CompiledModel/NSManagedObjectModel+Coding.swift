import Foundation

extension NSManagedObjectModel: NSSecureCoding {
    /// Mirrors `supportsSecureCoding` (`NSSecureCoding`): `true`.
    public static var supportsSecureCoding: Bool { true }

    /// What `init?(coder:)` reads: `NSEntities` (a dictionary by name; the entities ordered by name),
    /// `NSFetchRequestTemplates`, `NSVersionIdentifiers`, `NSConfigurations` (sets of entities by name);
    /// then the model is wired and checked as a whole (``ModelArchiveWiring``).
    func decodeModel(from coder: NSCoder) -> Bool {
        ModelArchiveDecoder.noteDecoding(self, by: coder)
        guard let byName = ArchiveKeys.dictionary(coder, "NSEntities", of: [NSEntityDescription.self], as: NSEntityDescription.self) else {
            return ModelArchiveDecoder.failed(coder, "a model without entities (NSEntities)")
        }
        for (key, entity) in byName where entity.name != key {
            return ModelArchiveDecoder.failed(coder, "NSEntities holds \(entity.name ?? "?") under the key \(key)")
        }
        let entities = byName.values.sorted { ($0.name ?? "") < ($1.name ?? "") }
        let templates = ArchiveKeys.dictionary(coder, "NSFetchRequestTemplates", of: [NSFetchRequest<NSFetchRequestResult>.self],
                                               as: NSFetchRequest<NSFetchRequestResult>.self) ?? [:]
        let identifiers = ArchiveKeys.object(coder, "NSVersionIdentifiers", [NSSet.self, NSString.self, NSNumber.self])
        let configurations = ArchiveKeys.dictionary(coder, "NSConfigurations", of: [NSSet.self, NSEntityDescription.self], as: Set<AnyHashable>.self) ?? [:]
        guard coder.error == nil else { return false }
        if let problem = ModelArchiveWiring.problem(entities: entities, in: byName) {
            return ModelArchiveDecoder.failed(coder, problem)
        }
        self.entities = entities
        versionIdentifiers = identifiers as? Set<AnyHashable> ?? (identifiers as? NSSet).map { Set($0.compactMap { $0 as? AnyHashable }) } ?? []
        for (name, members) in configurations.sorted(by: { $0.key < $1.key }) {
            let members = members.compactMap { $0.base as? NSEntityDescription }.sorted { ($0.name ?? "") < ($1.name ?? "") }
            guard members.allSatisfy({ member in entities.contains { $0 === member } }) else {
                return ModelArchiveDecoder.failed(coder, "the configuration \(name) holds an entity that is not in the model")
            }
            namedConfigurations.append((name, members))
        }
        for (name, template) in templates {
            if let problem = ModelArchiveWiring.resolve(template, in: byName) { return ModelArchiveDecoder.failed(coder, "fetch request template \(name): \(problem)") }
            fetchRequestTemplates[name] = template
        }
        if let problem = ModelArchiveWiring.wire(entities, byName: byName) { return ModelArchiveDecoder.failed(coder, problem) }
        return true
    }

    func encodeModel(with coder: NSCoder) {
        coder.encode(ModelArchiveEncoding.dictionary(entities.map { ($0.name ?? "", $0) }), forKey: "NSEntities")
        if !namedConfigurations.isEmpty {
            coder.encode(ModelArchiveEncoding.dictionary(namedConfigurations.map { ($0.name, Set($0.entities.map { AnyHashable($0) })) }), forKey: "NSConfigurations")
        }
        coder.encode(fetchRequestTemplates.isEmpty ? nil : ModelArchiveEncoding.dictionary(fetchRequestTemplates.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }),
                     forKey: "NSFetchRequestTemplates")
        coder.encode(versionIdentifiers, forKey: "NSVersionIdentifiers")
    }
}
