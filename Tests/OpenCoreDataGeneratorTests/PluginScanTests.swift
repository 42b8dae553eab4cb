import Foundation
import OpenCoreDataGenerator
import Testing

/// The plugin's own scan of a model (Plugins/OpenCoreDataCodegen/ModelScan.swift, compiled here through
/// the symbolic link PluginModelScan.swift: a plugin's code cannot be imported) names the files the
/// generator makes. They must agree, or the build fails (the tool refuses a file the plugin did not declare).
@Suite("The plugin's model scan")
struct PluginScanTests {
    @Test func theScanNamesWhatTheGeneratorMakes() throws {
        let url = try #require(Bundle.module.url(forResource: "Everything", withExtension: "xcdatamodeld"))
        let scan = try ModelScan(folder: url)
        let generator = ModelClassGenerator(model: try CodegenModel(contentsOf: url), modelFileName: url.lastPathComponent)
        #expect(scan.generatedFileNames == (try generator.fileNames()), "the current version (Everything 2), a commented-out entity skipped")
        #expect(scan.inputFiles.map(\.lastPathComponent).sorted() == [".xccurrentversion", "contents", "contents"])
    }

    @Test func entityTagsAreReadWithEitherQuoteAndAnySpacing() {
        let text = """
            <model><!-- <entity name="No" codeGenerationType="class"/> -->
            <entity
                name = 'A&amp;B' representedClassName="App.Thing"
                codeGenerationType="category"/><entityish name="X"/>
            <entity name="Plain"></entity></model>
            """
        #expect(ModelScan.entityTags(in: text) == [
            ["name": "A&B", "representedClassName": "App.Thing", "codeGenerationType": "category"],
            ["name": "Plain"],
        ])
    }

    @Test func modelFoldersAreFoundFromAnyFileInThem() {
        let files = [
            "/p/Sources/App/Zoo.xcdatamodeld",
            "/p/Sources/App/Zoo.xcdatamodeld/Zoo 2.xcdatamodel/contents",
            "/p/Sources/App/Lone.xcdatamodel/contents",
            "/p/Sources/App/main.swift",
        ].map { URL(fileURLWithPath: $0) }
        #expect(ModelScan.modelFolders(among: files).map(\.path) == ["/p/Sources/App/Lone.xcdatamodel", "/p/Sources/App/Zoo.xcdatamodeld"])
    }
}
