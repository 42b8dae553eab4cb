import Foundation
import OpenCoreDataGenerator
import Testing

/// Which entities get files, the errors of the generator, and the `ocd-codegen` tool the plugin runs.
@Suite("Generator rules and the ocd-codegen tool")
struct GeneratorRulesTests {
    static func entity(_ name: String, className: String?, codegen: String?) -> CodegenModel.Entity {
        CodegenModel.Entity(name: name, representedClassName: className, codeGenerationType: codegen,
                            attributes: [.init(name: "title", type: .string)])
    }

    @Test func manualEntitiesMakeNothingUnlessEveryEntityIsAsked() throws {
        let model = CodegenModel(entities: [
            Self.entity("Plain", className: "Plain", codegen: nil),
            Self.entity("Odd", className: "Odd", codegen: "manual"),
        ])
        #expect(try ModelClassGenerator(model: model, modelFileName: "M.xcdatamodeld").files().isEmpty)
        let all = ModelClassGenerator(model: model, modelFileName: "M.xcdatamodeld", generatesEveryEntity: true)
        #expect(try all.fileNames() == ["Plain+CoreDataClass.swift", "Plain+CoreDataProperties.swift",
                                        "Odd+CoreDataClass.swift", "Odd+CoreDataProperties.swift"])
    }

    @Test func anEntityToGenerateNeedsAClassName() throws {
        let model = CodegenModel(entities: [Self.entity("Nameless", className: nil, codegen: "class")])
        let error = #expect(throws: ModelClassGenerationError.self) {
            try ModelClassGenerator(model: model, modelFileName: "M.xcdatamodeld").files()
        }
        #expect(error?.description == "entity Nameless: its codegen is class, but it has no class name (set representedClassName, Xcode's Class Name)")
    }

    @Test func twoEntitiesCannotShareAClass() throws {
        let model = CodegenModel(entities: [
            Self.entity("First", className: "Shared", codegen: "class"),
            Self.entity("Second", className: "App.Shared", codegen: "category"),
        ])
        let error = #expect(throws: ModelClassGenerationError.self) {
            try ModelClassGenerator(model: model, modelFileName: "M.xcdatamodeld").files()
        }
        #expect(error?.description == "entity Second: entity First has the same class name, Shared")
    }

    @Test func aCompositeAttributeIsADictionaryAsXcodeWritesIt() throws {
        let entity = CodegenModel.Entity(name: "Aircraft", representedClassName: "Aircraft", codeGenerationType: "class",
                                         attributes: [.init(name: "colorScheme", type: .composite)])
        let files = try ModelClassGenerator(model: CodegenModel(entities: [entity]), modelFileName: "M.xcdatamodeld").files()
        let properties = try #require(files.first { $0.name == "Aircraft+CoreDataProperties.swift" })
        #expect(properties.contents.contains("public var colorScheme: [String: Any]?"))
        #expect(CodegenModel.AttributeType(rawValue: "Composite") == .composite)
    }

    @Test func classNamesLoseTheirModulePrefix() {
        #expect(ModelClassGenerator.className(of: Self.entity("A", className: "App.Animal", codegen: nil)) == "Animal")
        #expect(ModelClassGenerator.className(of: Self.entity("A", className: ".Animal", codegen: nil)) == "Animal")
        #expect(ModelClassGenerator.className(of: Self.entity("A", className: "Animal", codegen: nil)) == "Animal")
        #expect(ModelClassGenerator.className(of: Self.entity("A", className: nil, codegen: nil)) == nil)
    }

    // MARK: - The tool

    /// An executable built with the tests, beside the test bundle.
    static func executable(_ name: String) -> URL? {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [here, URL(fileURLWithPath: ".build/debug")] {
            let url = candidate.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    /// Runs an executable built with the tests; its exit status, standard output and standard error.
    static func run(_ name: String, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        guard let url = executable(name) else {
            Issue.record("\(name) is built with the tests, beside the test bundle")
            throw CancellationError()
        }
        // Output to files, not pipes: a pipe that fills up would stop the process.
        let folder = temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputURL = folder.appendingPathComponent("output"), errorsURL = folder.appendingPathComponent("errors")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorsURL.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputURL), errors = try FileHandle(forWritingTo: errorsURL)
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        try output.close()
        try errors.close()
        return (process.terminationStatus, try String(contentsOf: outputURL, encoding: .utf8), try String(contentsOf: errorsURL, encoding: .utf8))
    }

    /// Runs the tool; its exit status and standard error.
    static func runTool(_ arguments: [String]) throws -> (status: Int32, errors: String) {
        let result = try run("ocd-codegen", arguments)
        return (result.status, result.errors)
    }

    /// The app target built with the plugin runs: inserts, saves, fetches through `Animal.fetchRequest()`,
    /// walks relationships, uses the ordered accessors (Sources/zoo-codegen).
    @Test func anAppBuiltWithThePluginRunsItsFetches() throws {
        let result = try Self.run("zoo-codegen", [])
        #expect(result.status == 0, "\(result.output)\(result.errors)")
        #expect(result.output.contains("animals at Lowry Park Zoo: Flamingo, Gorilla"))
        #expect(result.output.contains("keepers: Cy, Dee, Eve, Ana"))
        #expect(result.output.hasSuffix("all checks passed\n"), "\(result.output)")
        #expect(!result.output.contains("FAILED"))
    }

    static func temporaryFolder() -> URL {
        URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ocd-codegen-\(UUID().uuidString)", isDirectory: true)
    }

    @Test func theToolWritesWhatTheGeneratorMakes() throws {
        let model = try #require(Bundle.module.url(forResource: "Everything", withExtension: "xcdatamodeld"))
        let output = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: output) }
        let run = try Self.runTool([model.path, "--output", output.path])
        #expect(run.status == 0, "\(run.errors)")
        let written = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
        let expected = try GoldenFileTests.files().keys.sorted()
        #expect(written == expected)
        let text = try String(contentsOf: output.appendingPathComponent("Sample+CoreDataProperties.swift"), encoding: .utf8)
        #expect(text == GoldenFileTests.samplePropertiesText)
    }

    @Test func declaredFilesTheModelDoesNotMakeAreWrittenEmptyAndUnchangedFilesKeepTheirDate() throws {
        let model = try #require(Bundle.module.url(forResource: "Everything", withExtension: "xcdatamodeld"))
        let output = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: output) }
        let declared = try GoldenFileTests.files().keys.sorted() + ["Commented+CoreDataClass.swift"]
        #expect(try Self.runTool([model.path, "--output", output.path, "--declared"] + declared).status == 0)
        let stub = try String(contentsOf: output.appendingPathComponent("Commented+CoreDataClass.swift"), encoding: .utf8)
        #expect(stub == "// Commented+CoreDataClass.swift: Everything.xcdatamodeld makes no such class.\n")

        let file = output.appendingPathComponent("Creature+CoreDataClass.swift")
        let old = Date(timeIntervalSince1970: 1_000_000)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: file.path)
        #expect(try Self.runTool([model.path, "--output", output.path, "--declared"] + declared).status == 0)
        let date = try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date
        #expect(date == old)
    }

    @Test func aFileTheModelMakesButTheBuildDidNotDeclareFailsTheBuild() throws {
        let model = try #require(Bundle.module.url(forResource: "Everything", withExtension: "xcdatamodeld"))
        let output = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: output) }
        let run = try Self.runTool([model.path, "--output", output.path, "--declared", "Creature+CoreDataClass.swift"])
        #expect(run.status == 1)
        #expect(run.errors.contains("the model makes Creature+CoreDataProperties.swift, which the OpenCoreDataCodegen plugin did not declare"))
    }

    @Test func aModelThatDoesNotReadIsReportedLikeACompilerError() throws {
        let folder = Self.temporaryFolder().appendingPathExtension("xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel">
                <entity name="Animal" representedClassName="Animal" codeGenerationType="class">
                    <attribute name="age" attributeType="Integer 12"/>
                </entity>
            </model>
            """.utf8).write(to: folder.appendingPathComponent("contents"))
        let run = try Self.runTool([folder.path, "--output", Self.temporaryFolder().path])
        #expect(run.status == 1)
        #expect(run.errors.hasPrefix(folder.appendingPathComponent("contents").path + ":4:9: error: <attribute name=\"age\"> in entity Animal: unknown attributeType \"Integer 12\""),
                "\(run.errors)")
    }
}
