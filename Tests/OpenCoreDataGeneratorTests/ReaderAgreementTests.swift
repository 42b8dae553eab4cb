import Foundation
import OpenCoreData
import OpenCoreDataGenerator
import Testing

/// The generator's own reading of model files (``CodegenModel``, kept apart from OpenCoreData so the
/// plugin's tool builds without the library) agrees with OpenCoreData's reader on everything generation
/// uses, and fails where it fails, at the same line and column.
@Suite("The generator's model reading agrees with OpenCoreData's")
struct ReaderAgreementTests {
    static let types: [NSAttributeType: CodegenModel.AttributeType] = [
        .integer16AttributeType: .integer16, .integer32AttributeType: .integer32, .integer64AttributeType: .integer64,
        .decimalAttributeType: .decimal, .doubleAttributeType: .double, .floatAttributeType: .float,
        .stringAttributeType: .string, .booleanAttributeType: .boolean, .dateAttributeType: .date,
        .binaryDataAttributeType: .binary, .UUIDAttributeType: .uuid, .URIAttributeType: .uri,
        .transformableAttributeType: .transformable, .objectIDAttributeType: .objectID, .undefinedAttributeType: .undefined,
        .compositeAttributeType: .composite,
    ]

    /// The model as OpenCoreData reads it, in the generator's terms.
    static func translated(_ model: NSManagedObjectModel) -> CodegenModel {
        CodegenModel(entities: model.entities.map { entity in
            let own = entity.properties.filter { $0.entity === entity }
            return CodegenModel.Entity(
                name: entity.name!,
                representedClassName: entity.managedObjectClassName == "NSManagedObject" ? nil : entity.managedObjectClassName,
                parentEntity: entity.superentity?.name, isAbstract: entity.isAbstract,
                codeGenerationType: entity.codeGenerationType,
                attributes: own.compactMap { $0 as? NSAttributeDescription }.map {
                    CodegenModel.Attribute(name: $0.name, type: types[$0.attributeType]!, usesScalarValueType: $0.usesScalarValueType,
                                           customClassName: $0.attributeType == .transformableAttributeType ? $0.attributeValueClassName : nil)
                },
                relationships: own.compactMap { $0 as? NSRelationshipDescription }.map {
                    CodegenModel.Relationship(name: $0.name, destinationEntity: $0.destinationEntity!.name!,
                                              isToMany: $0.isToMany, isOrdered: $0.isOrdered)
                })
        })
    }

    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    @Test(arguments: [
        "Resources/Everything.xcdatamodeld",
        "Resources/Everything.xcdatamodeld/Everything.xcdatamodel",
        "../OpenCoreDataTests/Resources/Zoo.xcdatamodeld",
        "../../Sources/zoo-codegen/Zootastic.xcdatamodeld",
    ])
    func bothReadersSeeTheSameModel(_ path: String) throws {
        let url = Self.here.appendingPathComponent(path)
        let library = try NSManagedObjectModel(validatingContentsOf: url)
        #expect(try CodegenModel(contentsOf: url) == Self.translated(library))
    }

    @Test(arguments: [
        // Malformed XML.
        #"<model><entity name="A"></model>"#,
        // An unknown attribute type.
        #"<model><entity name="A">\#n  <attribute name="x" attributeType="Integer 12"/></entity></model>"#,
        // A destination that is not in the model.
        #"<model><entity name="A">\#n  <relationship name="b" destinationEntity="B" maxCount="1"/></entity></model>"#,
        // A parent that is not in the model.
        #"<model>\#n<entity name="A" parentEntity="Z"/></model>"#,
        // Not a model.
        #"<plist/>"#,
    ])
    func bothReadersRefuseTheSameFileAtTheSamePlace(_ text: String) throws {
        let file = URL(fileURLWithPath: "/models/Bad.xcdatamodel/contents")
        let data = Data(text.utf8)
        let library = #expect(throws: ModelFileError.self) { try NSManagedObjectModel(modelFileContents: data, file: file) }
        let ours = #expect(throws: ModelClassGenerationError.self) { try CodegenModel(contents: data, file: file) }
        #expect(ours?.line == library?.line && ours?.column == library?.column, "\(String(describing: ours)) vs \(String(describing: library))")
    }

    @Test func unknownAttributeTypesAreReportedLikeACompilerError() throws {
        let file = URL(fileURLWithPath: "/models/Bad.xcdatamodel/contents")
        let data = Data("<model>\n    <entity name=\"Animal\">\n        <attribute name=\"age\" attributeType=\"Integer 12\"/>\n    </entity>\n</model>".utf8)
        let error = #expect(throws: ModelClassGenerationError.self) { try CodegenModel(contents: data, file: file) }
        #expect(error?.description.hasPrefix(#"/models/Bad.xcdatamodel/contents:3:9: <attribute name="age"> in entity Animal: unknown attributeType "Integer 12" (known: Integer 16, "#) == true)
    }
}
