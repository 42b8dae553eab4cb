import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataPredicates
import OpenCoreDataTesting

/// Mapping model files that are not what Xcode writes: each a ``ModelFileError`` naming the place from
/// `init(validatingContentsOf:)`, `nil` from Core Data's failable initializers, never a trap; and the
/// attributes wibosco's samples do not use (a name, a filter predicate, a mapping type, user info).
@Suite struct MappingModelFileBadInputTests {
    /// A copy of the version 1 → 2 sample beside its model, in a temporary folder, its XML edited by `edit`.
    static func sample(_ directory: TemporaryStore, _ edit: (String) -> String) throws -> URL {
        let samples = MappingModelFileTests.samples
        let model = "CoreDataMigration_Example.xcdatamodeld"
        try FileManager.default.copyItem(at: samples.appendingPathComponent(model), to: directory.directory.appendingPathComponent(model))
        let folder = directory.directory.appendingPathComponent("Edited.xcmappingmodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let text = try String(contentsOf: samples.appendingPathComponent("Migration1to2.xcmappingmodel/xcmapping.xml"), encoding: .utf8)
        try Data(edit(text).utf8).write(to: folder.appendingPathComponent("xcmapping.xml"))
        return folder
    }

    /// The error reading `folder` gives, in words.
    static func failure(_ folder: URL) -> String {
        #expect(NSMappingModel(contentsOf: folder) == nil)
        do {
            _ = try NSMappingModel(validatingContentsOf: folder)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    /// A malformed variant of the sample: `find` replaced by `replace` (the whole text when `find` is empty).
    struct Edit: Sendable, CustomTestStringConvertible {
        let what: String, find: String, replace: String, expected: String
        var testDescription: String { what }
        func apply(_ text: String) -> String { find.isEmpty ? replace : text.replacingOccurrences(of: find, with: replace) }
    }

    static let valueData = "<attribute name=\"valueexpressiondata\" type=\"binary\">"
    static let edits: [Edit] = [
        Edit(what: "not XML at all", find: "", replace: "not xml", expected: "xcmapping.xml:1:1"),
        Edit(what: "no mapping model object", find: "", replace: "<database></database>", expected: "expected one XDDEVMAPPINGMODEL object, found 0"),
        Edit(what: "another root", find: "", replace: "<plist/>", expected: "expected the <database> Xcode saves"),
        Edit(what: "an idref to nothing", find: "idrefs=\"z106 z103 z102\"", replace: "idrefs=\"z106 z999\"", expected: "its attributemappings name z999"),
        Edit(what: "a bad archive", find: valueData, replace: valueData + "AAAA",
             expected: "valueexpressiondata of <object type=\"XDDEVATTRIBUTEMAPPING\" id=\"z102\">: the archived expression does not decode"),
        Edit(what: "not base64", find: valueData, replace: valueData + "*", expected: "not base64 data"),
        Edit(what: "an entity the model lacks", find: "\">Post</attribute>\n        <attribute name=\"mappingtypename\"",
             replace: "\">Poster</attribute>\n        <attribute name=\"mappingtypename\"", expected: "the source model has no entity Poster"),
        Edit(what: "a property the destination lacks", find: ">postID<", replace: ">postNumber<", expected: "the destination entity Post has no attribute postNumber"),
        Edit(what: "an unknown mapping type", find: ">Undefined<", replace: ">Shuffle<", expected: "unknown mapping type Shuffle"),
        Edit(what: "a model version not found", find: "CoreDataMigration_Example 2.xcdatamodel", replace: "Elsewhere 2.xcdatamodel",
             expected: "CoreDataMigration_Example.xcdatamodeld/Elsewhere 2.xcdatamodel is not found"),
        Edit(what: "a filter that does not parse", find: "<attribute name=\"mappingtypename\"",
             replace: "<attribute name=\"sourcefilterpredicatestring\" type=\"string\">postID ==</attribute><attribute name=\"mappingtypename\"",
             expected: "the filter predicate does not parse"),
    ]

    @Test(arguments: edits)
    func aMalformedFileIsAClearError(_ edit: Edit) throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let original = try String(contentsOf: MappingModelFileTests.samples.appendingPathComponent("Migration1to2.xcmappingmodel/xcmapping.xml"), encoding: .utf8)
        #expect(edit.find.isEmpty || original.contains(edit.find), "the edit applies")
        let message = Self.failure(try Self.sample(directory, edit.apply))
        #expect(message.contains(edit.expected), "\(edit.what): \(message)")
    }

    @Test func otherPlacesAreNotMappingModels() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        #expect(NSMappingModel(contentsOf: nil) == nil)
        #expect(NSMappingModel(contentsOfURL: nil) == nil)
        let cdm = directory.directory.appendingPathComponent("Mapping.cdm")
        try Data("bplist00".utf8).write(to: cdm)
        #expect(Self.failure(cdm).contains("compiled mapping models (.cdm) are not read"))
        let empty = directory.directory.appendingPathComponent("Empty.xcmappingmodel")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(Self.failure(empty).contains("cannot read the mapping model's xcmapping.xml"))
        // Alone, without its model: the hashes cannot be known.
        let alone = directory.directory.appendingPathComponent("Alone.xcmappingmodel")
        try FileManager.default.copyItem(at: MappingModelFileTests.samples.appendingPathComponent("Migration1to2.xcmappingmodel"), to: alone)
        #expect(Self.failure(alone).contains("is not found in a folder enclosing the mapping model"))
    }

    @Test func aBundleSkipsAMappingModelThatDoesNotRead() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let good = try Self.sample(directory) { $0 }
        let nested = directory.directory.appendingPathComponent("Deeper/Broken.xcmappingmodel")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        try Data("<database/>".utf8).write(to: nested.appendingPathComponent("xcmapping.xml"))
        let bundle = try #require(Bundle(url: directory.directory))
        let v1 = try MappingModelFileTests.model(MappingModelFileTests.samples, "CoreDataMigration_Example")
        let v2 = try MappingModelFileTests.model(MappingModelFileTests.samples, "CoreDataMigration_Example 2")
        #expect(MappingModelBundleLookup.mappingFolders(in: directory.directory).map(\.lastPathComponent) == ["Broken.xcmappingmodel", "Edited.xcmappingmodel"])
        #expect(NSMappingModel(from: [bundle], forSourceModel: v1, destinationModel: v2)?.entityMappings.map(\.name) == ["PostToPost"])
        _ = good
    }

    @Test func aNameAFilterATypeAndUserInfoAreRead() throws {
        let directory = TemporaryStore()
        defer { directory.cleanUp() }
        let info = try NSKeyedArchiver.archivedData(withRootObject: ["note": "renamed color", "version": 2] as NSDictionary, requiringSecureCoding: false)
        let folder = try Self.sample(directory) { text in
            text.replacingOccurrences(of: "<attribute name=\"mappingtypename\" type=\"string\">Undefined</attribute>", with: """
                <attribute name="mappingtypename" type="string">Custom</attribute>
                <attribute name="name" type="string">PostsWithAnID</attribute>
                <attribute name="sourcefilterpredicatestring" type="string">postID != nil</attribute>
                <attribute name="userinfodata" type="binary">\(info.base64EncodedString(options: .lineLength64Characters))</attribute>
                """)
        }
        let post = try #require(try NSMappingModel(validatingContentsOf: folder).entityMappings.first)
        #expect(post.name == "PostsWithAnID")
        #expect(post.mappingType == .customEntityMappingType)
        #expect(MappingModelFileTests.text(post.sourceExpression) == MappingModelFileTests.fetch("Post", "postID != nil"))
        #expect(post.userInfo?["note"] as? String == "renamed color")
        #expect((post.userInfo?["version"] as? NSNumber)?.intValue == 2)
    }
}
