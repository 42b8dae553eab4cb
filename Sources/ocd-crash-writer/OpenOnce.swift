#if canImport(Glibc)
import Glibc
#endif
import OpenCoreData
import OpenCoreDataTesting

/// Opens the store at `path` (after `goFile` appears, if given), saves one `Entry` and exits: 0 on
/// success, 1 (after printing the error) on failure.
func openOnce(path: String, goFile: String?) -> Never {
    if let goFile {
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: goFile) {
            guard Date() < deadline else { print("no go file"); exit(3) }
            usleep(500)
        }
    }
    let container = NSPersistentContainer(name: "Ledger", managedObjectModel: LedgerModel.make())
    container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: path))]
    container.loadPersistentStores { _, error in
        if let error { print("cannot open: \(error)"); exit(1) }
    }
    let context = container.newBackgroundContext()
    context.performAndWait {
        do {
            let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: context)
            entry.setValue(Int64(getpid()), forKey: "batch")
            entry.setValue(0, forKey: "index")
            try context.save()
        } catch {
            print("save failed: \(error)")
            exit(1)
        }
    }
    exit(0)
}
