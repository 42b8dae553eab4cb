#if canImport(Glibc)
import Glibc
#endif
import OpenCoreData

/// A container on the store at `path` (a file, or a `postgres://` URL: OpenCoreDataPostgres is linked) with
/// `model` and the store options given; a store that does not open is printed and exits 1 (the tests read
/// that line).
func openContainer(_ name: String, _ model: NSManagedObjectModel, path: String, options: [String: NSObject] = [:]) -> NSPersistentContainer {
    let container = NSPersistentContainer(name: name, managedObjectModel: model)
    let url = path.contains("://") ? URL(string: path) ?? URL(fileURLWithPath: path) : URL(fileURLWithPath: path)
    let description = NSPersistentStoreDescription(url: url)
    for (key, value) in options { description.setOption(value, forKey: key) }
    container.persistentStoreDescriptions = [description]
    container.loadPersistentStores { _, error in
        if let error { print("cannot open: \(error)"); exit(1) }
    }
    return container
}
