#if canImport(Glibc)
import Glibc
#endif
import OpenCoreData

/// Prints "ready", opens the store at `path` with the current version of the model folder at `folder` in a container
/// (which migrates by default), prints "migrated" and exits 0; any error is printed and exits 1. The
/// migration crash test kills this process at random moments of the migration.
func migrateOnce(path: String, folder: String) -> Never {
    let model: NSManagedObjectModel
    do {
        model = try NSManagedObjectModel(validatingContentsOf: URL(fileURLWithPath: folder))
    } catch {
        print("cannot read the model: \(error)")
        exit(1)
    }
    let container = NSPersistentContainer(name: "Migrating", managedObjectModel: model)
    container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: path))]
    FileHandle.standardOutput.write(Data("ready\n".utf8))  // unbuffered: the test times its kill from here
    container.loadPersistentStores { _, error in
        if let error { print("cannot open: \(error)"); exit(1) }
    }
    print("migrated")
    exit(0)
}
