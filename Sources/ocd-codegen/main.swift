// ocd-codegen: writes the classes Xcode's codegen would write for a model (docs/ModelFiles.md,
// "Generated classes"). The OpenCoreDataCodegen plugin runs it at every build; it can be run by hand too.
//
//     ocd-codegen MODEL --output DIR [--all] [--declared NAME ...]
//
// MODEL is a .xcdatamodeld or .xcdatamodel folder. --all generates every entity as codegen "class"
// (Xcode's "Create NSManagedObject Subclass…"). --declared names the files the build expects (the
// plugin's list): each is written, empty of declarations if the model makes no such file, and a file the
// model makes that is not declared is an error (the build would not compile it).

import Foundation
import OpenCoreDataGenerator

struct Usage: Error, CustomStringConvertible {
    let description: String
}

func run(_ arguments: [String]) throws {
    var model: String?
    var output: String?
    var all = false
    var declared: [String]?
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        index += 1
        switch argument {
        case "--output":
            guard index < arguments.count else { throw Usage(description: "--output needs a folder") }
            output = arguments[index]
            index += 1
        case "--all":
            all = true
        case "--declared":
            declared = Array(arguments[index...])
            index = arguments.count
        case "-h", "--help":
            print("usage: ocd-codegen MODEL.xcdatamodeld --output DIR [--all] [--declared NAME ...]")
            return
        default:
            guard model == nil, !argument.hasPrefix("-") else { throw Usage(description: "unexpected argument \(argument)") }
            model = argument
        }
    }
    guard let model, let output else {
        throw Usage(description: "usage: ocd-codegen MODEL.xcdatamodeld --output DIR [--all] [--declared NAME ...]")
    }
    let modelURL = URL(fileURLWithPath: model)
    let loaded = try CodegenModel(contentsOf: modelURL)
    let generator = ModelClassGenerator(model: loaded, modelFileName: modelURL.lastPathComponent, generatesEveryEntity: all)
    var files: [GeneratedFile]
    do {
        files = try generator.files()
    } catch {
        // Errors about an entity name the model folder.
        throw ModelClassGenerationError(file: error.file ?? modelURL, line: error.line, column: error.column,
                                        element: error.element, reason: error.reason)
    }
    if let declared {
        let made = Set(files.map(\.name))
        if let missing = files.first(where: { !declared.contains($0.name) }) {
            throw Usage(description: "\(modelURL.path): the model makes \(missing.name), which the OpenCoreDataCodegen plugin did not declare (its scan of the model disagrees with the model reader)")
        }
        for name in declared where !made.contains(name) {
            files.append(GeneratedFile(name: name, contents: "// \(name): \(modelURL.lastPathComponent) makes no such class.\n"))
        }
    }
    let folder = URL(fileURLWithPath: output, isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for file in files {
        let url = folder.appendingPathComponent(file.name)
        let data = Data(file.contents.utf8)
        // Unchanged text keeps its date, so the compiler does not redo the file.
        if (try? Data(contentsOf: url)) == data { continue }
        try data.write(to: url, options: .atomic)
    }
}

do {
    try run(Array(CommandLine.arguments.dropFirst()))
} catch let error as ModelClassGenerationError {
    // As a compiler writes it, so that the build shows it at its place in the model file.
    FileHandle.standardError.write(Data("\(error.location)error: \(error.element.map { $0 + ": " } ?? "")\(error.reason)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("error: ocd-codegen: \(error)\n".utf8))
    exit(1)
}

#if OCD_FUZZ
// Scripts/fuzz.sh builds with `-Xswiftc -sanitize=fuzzer`, which SwiftPM passes to the build plugin's tool
// too: it is then linked with libFuzzer, which needs this entry point (never called).
@_cdecl("LLVMFuzzerTestOneInput")
public func _toolIsNotAFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt { 0 }
#endif
