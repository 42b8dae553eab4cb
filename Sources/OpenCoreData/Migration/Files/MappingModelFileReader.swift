import Foundation
import OpenCoreDataPredicates

/// Reads an Xcode mapping model folder (`Name.xcmappingmodel`, its `xcmapping.xml`) into an
/// ``NSMappingModel``, doing what Xcode's mapping model compiler does to it: it finds the two model
/// versions the file names, takes the entities' version hashes from them, orders the entity mappings by
/// their number, decodes the archived expressions, and writes the expressions Xcode generates where the
/// file asks for them (docs/Migration.md, "Mapping model files").
struct MappingModelFileReader {
    let database: MappingModelDatabase
    let source: NSManagedObjectModel
    let destination: NSManagedObjectModel

    /// The mapping model of the `.xcmappingmodel` folder at `url`.
    static func read(_ url: URL) throws(ModelFileError) -> NSMappingModel {
        let url = url.standardizedFileURL
        guard url.pathExtension == "xcmappingmodel" else {
            throw ModelFileError(file: url, reason: url.pathExtension == "cdm"
                ? "compiled mapping models (.cdm) are not read; give the .xcmappingmodel folder Xcode saves"
                : "not a mapping model: expected a .xcmappingmodel folder")
        }
        let file = url.appendingPathComponent("xcmapping.xml")
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw ModelFileError(file: file, reason: "cannot read the mapping model's xcmapping.xml (\(error.localizedDescription))")
        }
        let database = try MappingModelDatabase(data, file: file)
        let models = database.objects(ofType: "XDDEVMAPPINGMODEL")
        guard models.count == 1, let root = models.first else {
            throw ModelFileError(file: file, reason: "expected one XDDEVMAPPINGMODEL object, found \(models.count)")
        }
        let reader = MappingModelFileReader(database: database,
                                            source: try model(root, "sourcemodelpath", database, folder: url),
                                            destination: try model(root, "destinationmodelpath", database, folder: url))
        let mapping = NSMappingModel()
        mapping.entityMappings = try reader.entityMappings(root)
        return mapping
    }

    /// The model version a path attribute names, as Xcode wrote it: relative to the project folder.
    private static func model(_ root: MappingModelDatabase.Object, _ attribute: String, _ database: MappingModelDatabase,
                              folder: URL) throws(ModelFileError) -> NSManagedObjectModel {
        guard let path = root.string(attribute), !path.isEmpty else {
            throw database.error(root, attribute, "the mapping model does not name its model version")
        }
        guard let url = locate(path, near: folder) else {
            throw database.error(root, attribute, "the model version \(path) is not found in a folder enclosing the mapping model (nor its last path components)")
        }
        do {
            return try NSManagedObjectModel(validatingContentsOf: url)
        } catch {
            throw database.error(root, attribute, "the model version \(url.path) does not read: \(error)")
        }
    }

    /// Finds `path` (relative to an Xcode project folder) from the folders enclosing `folder`: the whole
    /// path first, then shorter and shorter tails of it (`Model.xcdatamodeld/Model 2.xcdatamodel`), so that
    /// a mapping model copied into a bundle beside its model folder finds it.
    static func locate(_ path: String, near folder: URL) -> URL? {
        if path.hasPrefix("/"), FileManager.default.fileExists(atPath: path) { return URL(fileURLWithPath: path) }
        let components = path.split(separator: "/").map(String.init)
        var ancestors: [URL] = []
        var current = folder.deletingLastPathComponent()
        while true {
            ancestors.append(current)
            let parent = current.deletingLastPathComponent()
            if parent.path == current.path || ancestors.count > 64 { break }
            current = parent
        }
        for start in components.indices {
            let tail = components[start...].joined(separator: "/")
            for ancestor in ancestors {
                let candidate = ancestor.appendingPathComponent(tail)
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), isDirectory.boolValue {
                    return candidate.standardizedFileURL
                }
            }
        }
        return nil
    }

    // MARK: Entity mappings

    /// The entity mappings the mapping model object names, in their `mappingnumber` order.
    private func entityMappings(_ root: MappingModelDatabase.Object) throws(ModelFileError) -> [NSEntityMapping] {
        let objects = try database.related(root, "entitymappings", type: "XDDEVENTITYMAPPING").enumerated().sorted { a, b in
            let (x, y) = (Int(a.element.string("mappingnumber") ?? "") ?? Int.max, Int(b.element.string("mappingnumber") ?? "") ?? Int.max)
            return x != y ? x < y : a.offset < b.offset
        }.map(\.element)
        let mappings = try objects.map { (object) throws(ModelFileError) in try entityMapping(object) }
        var names = Set<String>()
        for (object, mapping) in zip(objects, mappings) where !names.insert(mapping.name).inserted {
            throw database.error(object, "name", "a second entity mapping named \(mapping.name ?? "")")
        }
        for (object, mapping) in zip(objects, mappings) {
            try fillProperties(of: mapping, from: object, among: mappings)
        }
        return mappings
    }

    /// An entity mapping's own attributes (its property mappings come in a second step: a relationship's
    /// generated expression names another entity mapping).
    private func entityMapping(_ object: MappingModelDatabase.Object) throws(ModelFileError) -> NSEntityMapping {
        let mapping = NSEntityMapping()
        let sourceName = object.string("sourcename").flatMap { $0.isEmpty ? nil : $0 }
        let destinationName = object.string("destinationname").flatMap { $0.isEmpty ? nil : $0 }
        guard sourceName != nil || destinationName != nil else {
            throw database.error(object, "sourcename", "an entity mapping needs a source or a destination entity")
        }
        mapping.sourceEntityName = sourceName
        mapping.destinationEntityName = destinationName
        if let sourceName {
            guard let entity = source.entitiesByName[sourceName] else {
                throw database.error(object, "sourcename", "the source model has no entity \(sourceName)")
            }
            mapping.sourceEntityVersionHash = entity.versionHash
        }
        if let destinationName {
            guard let entity = destination.entitiesByName[destinationName] else {
                throw database.error(object, "destinationname", "the destination model has no entity \(destinationName)")
            }
            mapping.destinationEntityVersionHash = entity.versionHash
        }
        mapping.name = object.string("name").flatMap { $0.isEmpty ? nil : $0 }
            ?? [sourceName, destinationName].compactMap { $0 }.joined(separator: sourceName != nil && destinationName != nil ? "To" : "")
        mapping.entityMigrationPolicyClassName = object.string("migrationpolicyclassname").flatMap { $0.isEmpty ? nil : $0 }
        mapping.userInfo = try userInfo(object)
        mapping.sourceExpression = try sourceExpression(object, entity: sourceName)
        return mapping
    }

    /// The stored source expression, or Xcode's generated fetch of the source entity (filtered by
    /// `sourcefilterpredicatestring`).
    private func sourceExpression(_ object: MappingModelDatabase.Object, entity: String?) throws(ModelFileError) -> NSExpression? {
        if let expression = try expression(object, "sourceexpressiondata") { return expression }
        guard let entity, object.bool("autogenerateexpression") ?? true else { return nil }
        let predicate = object.string("sourcefilterpredicatestring").flatMap { $0.isEmpty ? nil : $0 } ?? "TRUEPREDICATE"
        do {
            _ = try NSPredicate(validatingFormat: predicate)
        } catch {
            throw database.error(object, "sourcefilterpredicatestring", "the filter predicate does not parse: \(error)")
        }
        return MappingInference.sourceFetch(entity, predicate: predicate)
    }

    /// The mapping type `mappingtypename` names; for `Undefined`, the one the mapping's content gives.
    func mappingType(_ object: MappingModelDatabase.Object, _ mapping: NSEntityMapping) throws(ModelFileError) -> NSEntityMappingType {
        switch object.string("mappingtypename") ?? "Undefined" {
        case "Custom": return .customEntityMappingType
        case "Add": return .addEntityMappingType
        case "Remove": return .removeEntityMappingType
        case "Copy": return .copyEntityMappingType
        case "Transform": return .transformEntityMappingType
        case "Undefined", "": break
        case let other: throw database.error(object, "mappingtypename", "unknown mapping type \(other)")
        }
        if mapping.sourceEntityName == nil { return .addEntityMappingType }
        if mapping.destinationEntityName == nil { return .removeEntityMappingType }
        return mapping.sourceEntityVersionHash == mapping.destinationEntityVersionHash ? .copyEntityMappingType : .transformEntityMappingType
    }
}
