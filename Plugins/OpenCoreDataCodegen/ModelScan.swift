import Foundation

/// What the plugin must know of a model before the build runs: the files the generator will write.
///
/// A build command declares its outputs when the build is planned, before any tool of the package is
/// built, so the plugin cannot ask `ocd-codegen` (which reads the model with OpenCoreData's own reader).
/// It reads just enough here — the current version and each `<entity>` tag's `name`,
/// `representedClassName` and `codeGenerationType` — and passes its list to the tool, which checks it
/// against the real reader: a file the tool would make that is not in the list is a build error naming
/// the file; a listed file the model does not make is written with no declarations.
struct ModelScan {
    /// Every file in the model folder: the build command's inputs.
    let inputFiles: [URL]
    /// `Name+CoreDataClass.swift` / `Name+CoreDataProperties.swift`, in the model's order.
    let generatedFileNames: [String]

    /// The model folders among a target's files: the `.xcdatamodeld` folder a file sits in (or is), else
    /// its `.xcdatamodel` folder; each once, sorted by path.
    static func modelFolders(among files: [URL]) -> [URL] {
        var folders: Set<String> = []
        for file in files {
            let components = file.standardizedFileURL.pathComponents
            let index = components.firstIndex { $0.hasSuffix(".xcdatamodeld") }
                ?? components.firstIndex { $0.hasSuffix(".xcdatamodel") }
            guard let index else { continue }
            folders.insert(NSString.path(withComponents: Array(components[...index])))
        }
        return folders.sorted().map { URL(fileURLWithPath: $0, isDirectory: true) }
    }

    /// Scans the model in `folder`: its current version's `contents`, and the list of its files.
    init(folder: URL) throws {
        let fileManager = FileManager.default
        var inputs: [URL] = []
        if let walker = fileManager.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) {
            for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
                inputs.append(url)
            }
        }
        inputFiles = inputs.sorted { $0.path < $1.path }
        let contents = Self.currentVersion(of: folder).appendingPathComponent("contents")
        // A contents file that cannot be read declares nothing: no command runs, and loading the model at
        // run time says what is wrong with it.
        guard let data = fileManager.contents(atPath: contents.path), let text = String(data: data, encoding: .utf8) else {
            generatedFileNames = []
            return
        }
        var names: [String] = []
        for tag in Self.entityTags(in: text) {
            guard let codegen = tag["codeGenerationType"], codegen == "class" || codegen == "category" else { continue }
            let represented = tag["representedClassName"] ?? tag["name"] ?? ""
            let className = represented.split(separator: ".", omittingEmptySubsequences: false).last.map(String.init) ?? represented
            guard !className.isEmpty else { continue }
            if codegen == "class" { names.append("\(className)+CoreDataClass.swift") }
            names.append("\(className)+CoreDataProperties.swift")
        }
        generatedFileNames = names
    }

    /// The current version's `.xcdatamodel` folder: the one `.xccurrentversion` names, the only one, or
    /// the one named like the `.xcdatamodeld`; `folder` itself for a `.xcdatamodel`.
    static func currentVersion(of folder: URL) -> URL {
        guard folder.pathExtension == "xcdatamodeld" else { return folder }
        let plist = folder.appendingPathComponent(".xccurrentversion")
        if let data = FileManager.default.contents(atPath: plist.path),
           let dictionary = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
           let name = dictionary["_XCCurrentVersionName"] as? String {
            return folder.appendingPathComponent(name, isDirectory: true)
        }
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".xcdatamodel") }
        if versions.count == 1 { return folder.appendingPathComponent(versions[0], isDirectory: true) }
        return folder.appendingPathComponent(folder.deletingPathExtension().lastPathComponent + ".xcdatamodel", isDirectory: true)
    }

    /// The attributes of every `<entity …>` start tag, in order; comments and CDATA sections skipped.
    static func entityTags(in text: String) -> [[String: String]] {
        let bytes = Array(text.utf8)
        var tags: [[String: String]] = []
        var i = 0
        func starts(with literal: String, at position: Int) -> Bool {
            let l = Array(literal.utf8)
            return position + l.count <= bytes.count && Array(bytes[position..<position + l.count]) == l
        }
        func skip(past literal: String) {
            let l = Array(literal.utf8)
            while i < bytes.count && !starts(with: literal, at: i) { i += 1 }
            i = min(bytes.count, i + l.count)
        }
        while i < bytes.count {
            if starts(with: "<!--", at: i) { skip(past: "-->"); continue }
            if starts(with: "<![CDATA[", at: i) { skip(past: "]]>"); continue }
            if starts(with: "<entity", at: i), i + 7 < bytes.count,
               [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains(bytes[i + 7]) {
                i += 7
                var attributes: [String: String] = [:]
                while i < bytes.count && bytes[i] != UInt8(ascii: ">") {
                    // name = "value" or 'value'
                    while i < bytes.count, bytes[i] <= 0x20 || bytes[i] == UInt8(ascii: "/") { i += 1 }
                    let nameStart = i
                    while i < bytes.count, bytes[i] != UInt8(ascii: "="), bytes[i] != UInt8(ascii: ">"), bytes[i] > 0x20 { i += 1 }
                    let name = String(decoding: bytes[nameStart..<i], as: UTF8.self)
                    while i < bytes.count, bytes[i] <= 0x20 { i += 1 }
                    guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else {
                        if i < bytes.count, bytes[i] != UInt8(ascii: ">") { i += 1 }
                        continue
                    }
                    i += 1
                    while i < bytes.count, bytes[i] <= 0x20 { i += 1 }
                    guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else { continue }
                    let quote = bytes[i]
                    i += 1
                    let valueStart = i
                    while i < bytes.count, bytes[i] != quote { i += 1 }
                    attributes[name] = unescape(String(decoding: bytes[valueStart..<i], as: UTF8.self))
                    i += 1
                }
                tags.append(attributes)
                continue
            }
            i += 1
        }
        return tags
    }

    /// The five predefined XML entities.
    private static func unescape(_ value: String) -> String {
        guard value.contains("&") else { return value }
        return value.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
