import Foundation

/// Where models are found: the model folders at the top level of bundles (for
/// ``NSManagedObjectModel/mergedModel(from:)``), and a model by name in the main bundle and the SwiftPM
/// resource bundles beside the executable (for `NSPersistentContainer(name:)`).
enum ModelBundleLookup {
    /// The folders of a bundle where resources sit: its resource folder and the bundle folder itself
    /// (the same folder for SwiftPM's resource bundles on Linux).
    static func resourceFolders(of bundle: Bundle) -> [URL] {
        var folders: [URL] = []
        for url in [bundle.resourceURL, bundle.bundleURL].compactMap({ $0?.standardizedFileURL }) where !folders.contains(url) {
            folders.append(url)
        }
        return folders
    }

    /// The model folders at the top level of the bundles' resource folders, each once.
    static func modelFolders(in bundles: [Bundle]) -> [URL] {
        var seen = Set<URL>()
        return bundles.flatMap { resourceFolders(of: $0) }.flatMap { modelFolders(in: $0) }.filter { seen.insert($0).inserted }
    }

    /// The `.xcdatamodeld` and `.xcdatamodel` folders directly in `folder`, and the compiled `.momd`
    /// folders and `.mom` files whose model has no source folder there, in name order.
    static func modelFolders(in folder: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let sources = names.filter { $0.hasSuffix(".xcdatamodeld") || $0.hasSuffix(".xcdatamodel") }
        let sourceModels = Set(sources.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent })
        let compiled = names.filter { ($0.hasSuffix(".momd") || $0.hasSuffix(".mom"))
            && !sourceModels.contains(URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent) }
        let momd = Set(compiled.filter { $0.hasSuffix(".momd") }.map { String($0.dropLast(5)) })
        return (sources + compiled.filter { !$0.hasSuffix(".mom") || !momd.contains(String($0.dropLast(4))) }).sorted()
            .map { folder.appendingPathComponent($0) }
    }

    /// Every model at the top level of the bundles, merged into one; `nil` when there is none. A model
    /// that does not read is an error.
    static func mergedModel(in bundles: [Bundle]) throws -> NSManagedObjectModel? {
        let models = try modelFolders(in: bundles).map { try NSManagedObjectModel(validatingContentsOf: $0) }
        switch models.count {
        case 0: return nil
        case 1: return models[0]
        default: return try merge(models)
        }
    }

    /// One model of the entities, templates and configurations of several freshly read models (which it
    /// takes the entities of). Two entities or two templates with one name are an error.
    static func merge(_ models: [NSManagedObjectModel]) throws -> NSManagedObjectModel {
        let merged = NSManagedObjectModel()
        try merge(models, into: merged)
        return merged
    }

    /// The same, into an empty model.
    static func merge(_ models: [NSManagedObjectModel], into merged: NSManagedObjectModel) throws {
        var entities: [NSEntityDescription] = []
        var names = Set<String>()
        for model in models {
            for entity in model.entities {
                guard names.insert(entity.name ?? "").inserted else {
                    throw CoreDataError(NSCoreDataError, "Can't merge models with two entities named '\(entity.name ?? "")'")
                }
                entities.append(entity)
            }
            for (name, template) in model.fetchRequestTemplates {
                guard merged.fetchRequestTemplates.updateValue(template, forKey: name) == nil else {
                    throw CoreDataError(NSCoreDataError, "Can't merge models with two fetch request templates named '\(name)'")
                }
            }
            for (name, members) in model.namedConfigurations {
                if let index = merged.namedConfigurations.firstIndex(where: { $0.name == name }) {
                    merged.namedConfigurations[index].entities += members
                } else {
                    merged.namedConfigurations.append((name, members))
                }
            }
            merged.versionIdentifiers.formUnion(model.versionIdentifiers)
        }
        merged.entities = entities
    }

    /// The folders `NSPersistentContainer(name:)` looks in: the main bundle's, then every SwiftPM
    /// resource bundle beside the executable (`Package_Target.resources` on Linux, `.bundle` on Darwin).
    static func containerSearchFolders() -> [URL] {
        var folders = resourceFolders(of: Bundle.main)
        let beside = Bundle.main.bundleURL.standardizedFileURL
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: beside.path)) ?? []).sorted()
        for name in names where name.hasSuffix(".resources") || name.hasSuffix(".bundle") {
            let bundle = beside.appendingPathComponent(name)
            for folder in [bundle, bundle.appendingPathComponent("Contents/Resources")] where !folders.contains(folder) {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue {
                    folders.append(folder)
                }
            }
        }
        return folders
    }

    /// The model named `name` (`name.xcdatamodeld`, else `name.xcdatamodel`, else the compiled `name.momd`
    /// or `name.mom`) in the first folder of
    /// ``containerSearchFolders()`` that has one. Not found, the error says where it looked and how to
    /// declare the resource.
    static func model(named name: String, in folders: [URL] = containerSearchFolders()) throws -> NSManagedObjectModel {
        for folder in folders {
            for candidate in [name + ".xcdatamodeld", name + ".xcdatamodel", name + ".momd", name + ".mom"] {
                let url = folder.appendingPathComponent(candidate)
                if FileManager.default.fileExists(atPath: url.path) {
                    return try NSManagedObjectModel(validatingContentsOf: url)
                }
            }
        }
        let places = folders.map(\.path).joined(separator: ", ")
        throw CoreDataError(NSCoreDataError, """
            NSPersistentContainer found no model named \(name): looked for \(name).xcdatamodeld, \(name).xcdatamodel, \
            \(name).momd and \(name).mom \
            in the main bundle and the resource bundles beside the executable (\(places)). Declare the model folder \
            as a resource of the target that ships it, in Package.swift: \
            .executableTarget(name: "App", resources: [.copy("\(name).xcdatamodeld")]) \
            (.copy keeps the folder as Xcode saved it), or pass the model: \
            NSPersistentContainer(name: "\(name)", managedObjectModel: NSManagedObjectModel.mergedModel(from: [Bundle.module])!)
            """)
    }
}

extension NSManagedObjectModel {
    /// Mirrors `mergedModel(from:)`: every model at the top level of the bundles (the main bundle for
    /// `nil`), merged into one: the `.xcdatamodeld` and `.xcdatamodel` folders Xcode saves (for a
    /// `.xcdatamodeld`, its current version), and the compiled `.momd` folders and `.mom` files Core Data
    /// looks for, unless a source folder of the same name is there too (then it is the model).
    /// For a SwiftPM target, declare the model as a resource (`resources: [.copy("Zoo.xcdatamodeld")]`)
    /// and pass `Bundle.module`.
    ///
    /// `nil` when there is no model, when a model does not read (the reason is logged; use
    /// ``init(validatingContentsOf:)`` to get it as an error), or when two models have an entity or a
    /// fetch request template of the same name, as Core Data returns `nil` for models it cannot merge.
    public class func mergedModel(from bundles: [Bundle]?) -> NSManagedObjectModel? {
        do {
            return try ModelBundleLookup.mergedModel(in: bundles ?? [Bundle.main])
        } catch {
            modelLogger.error("mergedModel(from:): \(error)")
            return nil
        }
    }
}
