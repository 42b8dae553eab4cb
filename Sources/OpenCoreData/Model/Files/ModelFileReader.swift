import Foundation
import OpenCoreDataModelXML

/// Finds the `contents` file(s) of a model folder and reads them: a `.xcdatamodel` folder holds one
/// version (its `contents` XML); a `.xcdatamodeld` folder holds versions (`Name.xcdatamodel`,
/// `Name 2.xcdatamodel`…) and names the current one in its `.xccurrentversion` property list. Compiled
/// models (`.mom`, `.momd`) are read by ``CompiledModelReader``.
enum ModelFileReader {
    /// Reads the model at `url` into `model` (empty); for a `.xcdatamodeld`, the current version, with the
    /// other versions kept in ``NSManagedObjectModel/versions``.
    static func read(_ url: URL, into model: NSManagedObjectModel) throws(ModelFileError) {
        let url = url.standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ModelFileError(file: url, reason: "no such file or folder")
        }
        switch url.pathExtension {
        case "xcdatamodeld":
            guard isDirectory.boolValue else { throw ModelFileError(file: url, reason: "a .xcdatamodeld must be a folder") }
            try readVersioned(url, into: model)
        case "xcdatamodel":
            guard isDirectory.boolValue else { throw ModelFileError(file: url, reason: "a .xcdatamodel must be a folder") }
            try readVersion(url, into: model)
        case "momd", "mom":
            try CompiledModelReader.read(url, isDirectory: isDirectory.boolValue, into: model)
        default:
            throw ModelFileError(file: url, reason: "not a model: expected a .xcdatamodeld or .xcdatamodel folder, a .momd folder or a .mom file")
        }
        let modules = ManagedClasses.modules(forModelAt: url)
        for entity in model.entities { entity.classModules = modules }
    }

    /// One version: the `contents` file of a `.xcdatamodel` folder.
    static func readVersion(_ url: URL, into model: NSManagedObjectModel) throws(ModelFileError) {
        let contents = url.appendingPathComponent("contents")
        let data: Data
        do {
            data = try Data(contentsOf: contents)
        } catch {
            let isOldFormat = FileManager.default.fileExists(atPath: url.appendingPathComponent("elements").path)
            throw ModelFileError(file: contents, reason: isOldFormat
                ? "no contents file: this is an Xcode 3 model (binary elements file); open and save it in a current Xcode first"
                : "cannot read the model's contents file (\(error.localizedDescription))")
        }
        try ModelContentsDecoder(file: contents).decode(data, into: model)
    }

    /// Every version of a `.xcdatamodeld`; the current one into `model`.
    static func readVersioned(_ url: URL, into model: NSManagedObjectModel) throws(ModelFileError) {
        try VersionedModelFolder.read(url, versionSuffix: ".xcdatamodel", into: model,
                                      current: { (url, names) throws(ModelFileError) in try currentVersion(of: url, among: names) },
                                      readVersion: { (url, version) throws(ModelFileError) in try readVersion(url, into: version) })
    }

    /// The current version's folder name: `_XCCurrentVersionName` of `.xccurrentversion`; without that
    /// file, the only version, or the one named like the bundle.
    static func currentVersion(of url: URL, among names: [String]) throws(ModelFileError) -> String {
        let file = url.appendingPathComponent(".xccurrentversion")
        guard let data = try? Data(contentsOf: file) else {
            if names.count == 1 { return names[0] }
            let own = url.deletingPathExtension().lastPathComponent + ".xcdatamodel"
            if names.contains(own) { return own }
            throw ModelFileError(file: url, reason: "no .xccurrentversion file says which of the \(names.count) versions is current")
        }
        let (name, line, column) = try currentVersionName(data, file: file)
        guard names.contains(name) else {
            throw ModelFileError(file: file, line: line, column: column, element: "<string> of _XCCurrentVersionName",
                                 reason: "the current version \(name) is not in the folder (versions: \(names.joined(separator: ", ")))")
        }
        return name
    }

    /// `_XCCurrentVersionName` of a property list: the XML form Xcode writes, or a binary one.
    static func currentVersionName(_ data: Data, file: URL) throws(ModelFileError) -> (String, line: Int?, column: Int?) {
        if data.starts(with: Array("bplist".utf8)) {
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
            guard let name = plist?["_XCCurrentVersionName"] as? String, !name.isEmpty else {
                throw ModelFileError(file: file, reason: "the property list has no _XCCurrentVersionName string")
            }
            return (name, nil, nil)
        }
        let root: ModelXMLElement
        do {
            root = try ModelXMLParser.parse(data)
        } catch {
            throw ModelFileError(file: file, line: error.line, column: error.column, reason: error.message)
        }
        guard root.name == "plist", let dict = root.children.first, dict.name == "dict" else {
            throw ModelFileError(file: file, line: root.line, column: root.column, element: "<\(root.name)>",
                                 reason: "expected a property list (<plist><dict>…)")
        }
        let entries = dict.children
        for (i, key) in entries.enumerated() where key.name == "key" && key.text == "_XCCurrentVersionName" {
            guard i + 1 < entries.count, entries[i + 1].name == "string" else {
                throw ModelFileError(file: file, line: key.line, column: key.column, element: "<key>_XCCurrentVersionName</key>",
                                     reason: "the key is not followed by a <string>")
            }
            let value = entries[i + 1]
            guard !value.text.isEmpty else {
                throw ModelFileError(file: file, line: value.line, column: value.column, element: "<string> of _XCCurrentVersionName",
                                     reason: "the current version name is empty")
            }
            return (value.text, value.line, value.column)
        }
        throw ModelFileError(file: file, line: dict.line, column: dict.column, element: "<dict>", reason: "no _XCCurrentVersionName key")
    }
}
