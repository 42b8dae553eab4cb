import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Writing a model in Xcode's format and reading it back gives an equal model: on random models (seed
/// printed on failure; `OCD_RANDOM_SCALE=10` runs ten times as many), on the hand-written library model,
/// and through folders on disk.
@Suite("Model files: writing and the round trip")
struct ModelFileRoundTripTests {
    static let scale = Int(ProcessInfo.processInfo.environment["OCD_RANDOM_SCALE"] ?? "") ?? 1
    static let chunks: [UInt64] = Array(0..<4)

    /// write → read gives the same dump; writing the read model gives the same bytes.
    @Test(arguments: chunks)
    func randomModelsRoundTrip(_ chunk: UInt64) throws {
        for i in 0..<(150 * Self.scale) {
            let seed = 0x4D0D_E1F1_1E5 &+ chunk &* 1_000_003 &+ UInt64(i)
            var generator = RandomModelGenerator(seed: seed)
            let model = generator.model()
            let data: Data
            do {
                data = try model.modelFileContents()
            } catch {
                Issue.record("seed \(seed): the model does not write: \(error)")
                continue
            }
            let text = String(decoding: data, as: UTF8.self)
            let read: NSManagedObjectModel
            do {
                read = try NSManagedObjectModel(modelFileContents: data)
            } catch {
                Issue.record("seed \(seed): the written model does not read: \(error)\n\(text)")
                continue
            }
            if let difference = ModelDump.difference(model, read) {
                Issue.record("seed \(seed): the model read back differs at \(difference)\n\(text)")
                continue
            }
            let again = try read.modelFileContents()
            if again != data {
                Issue.record("seed \(seed): writing the read model gives other text\n\(text)\n---\n\(String(decoding: again, as: UTF8.self))")
            }
        }
    }

    /// Both the model built in code and the one read back load into a coordinator (or both fail alike),
    /// and they get the same version hash.
    @Test func randomModelsLoadAlike() throws {
        for i in 0..<(60 * Self.scale) {
            let seed = 0x10AD_0000 &+ UInt64(i)
            var generator = RandomModelGenerator(seed: seed)
            let model = generator.model()
            let read = try NSManagedObjectModel(modelFileContents: model.modelFileContents())
            let before = Result { try model.freeze() }, after = Result { try read.freeze() }
            switch (before, after) {
            case (.success, .success):
                #expect(model.versionHash == read.versionHash, "seed \(seed)")
            case (.failure(let a), .failure(let b)):
                #expect("\(a)" == "\(b)", "seed \(seed)")
            default:
                Issue.record("seed \(seed): one loads, the other not: \(before) vs \(after)")
            }
        }
    }

    @Test func theLibraryModelRoundTrips() throws {
        let folder = ModelFolder()
        defer { folder.cleanUp() }
        let url = try folder.version("Library", contents: ModelFileFixtures.library)
        let model = try NSManagedObjectModel(validatingContentsOf: url)
        let copy = folder.directory.appendingPathComponent("Copy.xcdatamodel")
        try model.write(to: copy)
        let read = try NSManagedObjectModel(validatingContentsOf: copy)
        #expect(ModelDump.difference(model, read) == nil)
    }

    @Test func writesVersionedFolders() throws {
        let folder = ModelFolder()
        defer { folder.cleanUp() }
        let model = makeProductsModel()
        let url = folder.directory.appendingPathComponent("Shop.xcdatamodeld")
        try model.write(to: url)
        let current = try String(contentsOf: url.appendingPathComponent(".xccurrentversion"), encoding: .utf8)
        #expect(current.contains("<string>Shop.xcdatamodel</string>"))
        #expect(FileManager.default.fileExists(atPath: url.appendingPathComponent("Shop.xcdatamodel/contents").path))
        let read = try NSManagedObjectModel(validatingContentsOf: url)
        #expect(ModelDump.difference(model, read) == nil)
        #expect(read.versionName == "Shop" && read.versions.count == 1)
        try model.write(to: url)  // replaces
        #expect(throws: ModelFileError.self) { try model.write(to: folder.directory.appendingPathComponent("Shop.momd")) }
    }

    /// The text Xcode would write for a small model, attribute by attribute.
    @Test func writesXcodesForm() throws {
        let animal = NSEntityDescription(name: "Animal", managedObjectClassName: "Animal", properties: [
            NSAttributeDescription(name: "name", type: .stringAttributeType, optional: false, defaultValue: "Rex & <Co>"),
            NSAttributeDescription(name: "legs", type: .integer16AttributeType, defaultValue: 4),
            NSRelationshipDescription(name: "zoos", destination: "Zoo", inverse: "animals", toMany: true, deleteRule: .nullifyDeleteRule),
        ])
        animal.attributesByName["legs"]!.usesScalarValueType = true
        let zoo = NSEntityDescription(name: "Zoo", properties: [
            NSRelationshipDescription(name: "animals", destination: "Animal", inverse: "zoos", toMany: true, ordered: true, deleteRule: .cascadeDeleteRule, minCount: 1, maxCount: 9),
        ])
        let text = String(decoding: try NSManagedObjectModel(entities: [animal, zoo]).modelFileContents(), as: UTF8.self)
        #expect(text == """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1" systemVersion="OpenCoreData" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Animal" representedClassName="Animal" syncable="YES">
                <attribute name="name" attributeType="String" defaultValueString="Rex &amp; &lt;Co&gt;"/>
                <attribute name="legs" optional="YES" attributeType="Integer 16" defaultValueString="4" usesScalarValueType="YES"/>
                <relationship name="zoos" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Zoo" inverseName="animals" inverseEntity="Zoo"/>
            </entity>
            <entity name="Zoo" syncable="YES">
                <relationship name="animals" optional="YES" toMany="YES" ordered="YES" minCount="1" maxCount="9" deletionRule="Cascade" destinationEntity="Animal" inverseName="zoos" inverseEntity="Animal"/>
            </entity>
        </model>

        """)
    }

    /// What the format cannot hold is an error naming the element, never dropped.
    @Test func unwritableSettingsAreErrors() throws {
        func error(_ configure: (NSEntityDescription, NSManagedObjectModel) -> Void) throws -> ModelFileError {
            let entity = NSEntityDescription(name: "Thing", properties: [NSAttributeDescription(name: "blob", type: .binaryDataAttributeType)])
            let model = NSManagedObjectModel(entities: [entity])
            configure(entity, model)
            return try #require(throws: ModelFileError.self) { try model.modelFileContents() }
        }
        #expect(try error { e, _ in e.attributesByName["blob"]!.defaultValue = Data([1]) }.reason
            == "a default value of type Binary cannot be written in a model file")
        #expect(try error { e, _ in e.attributesByName["blob"]!.defaultValue = "text" }.element == "<attribute name=\"blob\"> in entity Thing")
        #expect(try error { e, _ in
            e.attributesByName["blob"]!.setValidationPredicates([NSPredicate(format: "length > 2")], withValidationWarnings: ["short"])
        }.reason.hasPrefix("the validation predicate length > 2 cannot be written"))
        #expect(try error { e, _ in e.userInfo = ["count": 3] }.reason.contains("not a string"))
        #expect(try error { e, m in
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Thing")
            request.sortDescriptors = [NSSortDescriptor(key: "blob", ascending: true)]
            m.setFetchRequestTemplate(request, forName: "Sorted")
        }.reason == "sortDescriptors cannot be written in a model file's fetch request")
        #expect(try error { _, m in m.versionIdentifiers = ["a", "b"] }.element == "<model>")
    }
}
