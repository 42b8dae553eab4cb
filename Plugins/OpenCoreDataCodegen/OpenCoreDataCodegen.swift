import Foundation
import PackagePlugin

/// The build-tool plugin that gives a target the classes Xcode's "Class Definition" and
/// "Category/Extension" codegen would give it (docs/ModelFiles.md, "Generated classes").
///
/// It finds every `.xcdatamodeld` (or lone `.xcdatamodel`) folder among the target's files — resources
/// and undeclared files too — and, for each model whose current version has entities with
/// `codeGenerationType` `class` or `category`, runs `ocd-codegen` to write `Name+CoreDataClass.swift` and
/// `Name+CoreDataProperties.swift` into the plugin's work folder, where the build compiles them. The
/// command's inputs are the model folder's files, so editing the model makes the files again.
@main
struct OpenCoreDataCodegen: BuildToolPlugin {
    /// One build command per model that asks for generated classes.
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "ocd-codegen")
        var usedFolderNames: Set<String> = []
        var commands: [Command] = []
        for model in ModelScan.modelFolders(among: target.sourceFiles.map(\.url)) {
            let scan = try ModelScan(folder: model)
            let names = scan.generatedFileNames
            guard !names.isEmpty else { continue }
            var folderName = model.deletingPathExtension().lastPathComponent
            while !usedFolderNames.insert(folderName).inserted { folderName += "_" }
            let output = context.pluginWorkDirectoryURL.appendingPathComponent(folderName, isDirectory: true)
            commands.append(.buildCommand(
                displayName: "Generating model classes from \(model.lastPathComponent)",
                executable: tool.url,
                arguments: [model.path, "--output", output.path, "--declared"] + names,
                inputFiles: scan.inputFiles,
                outputFiles: names.map { output.appendingPathComponent($0) }))
        }
        return commands
    }
}
