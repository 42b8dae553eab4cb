import Foundation
import Testing
@testable import OpenCoreData
import OpenCoreDataTesting

/// Bad model files: each is a thrown ``ModelFileError`` naming the file, the line and column and the
/// element at fault — never a trap.
@Suite("Model files: bad input")
struct ModelFileBadInputTests {
    /// The error reading `contents` as a `.xcdatamodel` folder's contents file.
    func error(_ contents: String) throws -> ModelFileError {
        let folder = ModelFolder()
        defer { folder.cleanUp() }
        let url = try folder.version("Bad", contents: contents)
        let error = try #require(throws: ModelFileError.self) { try NSManagedObjectModel(validatingContentsOf: url) }
        #expect(error.file.lastPathComponent == "contents" && error.file.deletingLastPathComponent().lastPathComponent == "Bad.xcdatamodel")
        #expect(NSManagedObjectModel(contentsOf: url) == nil)
        return error
    }

    /// A model of one entity `Person` holding `body`, the entity element on line 3.
    func model(_ body: String, more: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Person" representedClassName="NSManagedObject" syncable="YES">
                \(body)
            </entity>\(more)
        </model>
        """
    }

    @Test func theDescriptionNamesFileLineColumnElementAndReason() throws {
        let error = try error(model(#"<attribute name="age" attributeType="Integer 12"/>"#))
        #expect(error.line == 4 && error.column == 9)
        #expect(error.element == #"<attribute name="age"> in entity Person"#)
        #expect(error.reason.hasPrefix(#"unknown attributeType "Integer 12" (known: Integer 16, Integer 32"#))
        #expect(error.description.hasSuffix(#"/Bad.xcdatamodel/contents:4:9: <attribute name="age"> in entity Person: \#(error.reason)"#))
        #expect(error.localizedDescription == error.description)
    }

    @Test func malformedXML() throws {
        let cases: [(String, Int, Int, String)] = [
            ("<model>\n  <entity name=\"A\">\n</model>", 3, 1, "</model> closes <entity> (opened at line 2)"),
            ("<model>\n  <entity name=\"A\"/>", 2, 21, "the file ends before </model> (the element opened at line 1 is not closed)"),
            ("<model>\n  <entity name=\"A>\n</model>", 3, 1, "\"<\" in the value of the attribute name (write &lt;)"),
            ("<model>\n  <entity name=\"A\" name=\"B\"/>\n</model>", 2, 20, "the attribute name appears twice in <entity>"),
            ("<model>\n  <entity name=\"A &nbsp;\"/>\n</model>", 2, 19, "unknown entity &nbsp; (a model file uses only &lt; &gt; &amp; &quot; &apos; and character references)"),
            ("<model>\n  <entity name=\"A\"/>\n</model>\n<model/>", 4, 1, "unexpected \"<model/>\" after the root element </model>"),
            ("", 1, 1, "the file is empty (expected an XML element)"),
            ("<?xml version=\"1.0\" encoding=\"UTF-16\"?><model/>", 1, 1, "the encoding \"UTF-16\" is not supported (model files are UTF-8)"),
            ("<!DOCTYPE model [<!ENTITY x \"y\">]><model/>", 1, 17, "a DOCTYPE with an internal subset (entity declarations are not allowed in a model file)"),
            ("<model>\n<entity name=\"A\"/\n</model>", 2, 17, "expected a space, \">\" or \"/>\" in the tag <entity>, found \"/\""),
            ("<model><!-- a -- b --></model>", 1, 15, "\"--\" inside a comment"),
        ]
        for (text, line, column, reason) in cases {
            let error = try error(text)
            #expect(error.reason == reason, "\(text)")
            #expect(error.line == line && error.column == column, "\(text): \(error.line ?? 0):\(error.column ?? 0)")
        }
        let deep = String(repeating: "<a>", count: 70) + String(repeating: "</a>", count: 70)
        #expect(try error("<model>" + deep + "</model>").reason == "elements nest more than 64 deep")
        var invalid = Data("<model>\n  <entity name=\"".utf8)
        invalid.append(contentsOf: [0xC3, 0x28])
        invalid.append(contentsOf: Data("\"/>\n</model>".utf8))
        let folder = ModelFolder()
        defer { folder.cleanUp() }
        let url = try folder.version("Bad", contents: "")
        try invalid.write(to: url.appendingPathComponent("contents"))
        let error = try #require(throws: ModelFileError.self) { try NSManagedObjectModel(validatingContentsOf: url) }
        #expect(error.reason == "the file is not valid UTF-8 (model files are UTF-8)" && error.line == 2 && error.column == 17, "\(error)")
    }

    /// A model file cut at every position is an error (or, cut in its last bytes, still reads).
    @Test func truncatedFilesAreErrors() throws {
        let text = ModelFileFixtures.library
        let utf8 = Array(text.utf8)
        var errors = 0
        for cut in stride(from: 0, to: utf8.count, by: 7) {
            let data = Data(utf8[..<cut])
            do {
                _ = try NSManagedObjectModel(modelFileContents: data)
                #expect(cut > utf8.count - 12, "cut at \(cut) read")
            } catch let error as ModelFileError {
                errors += 1
                #expect(error.line != nil, "cut at \(cut): \(error)")
            }
        }
        #expect(errors > 900)
    }

    @Test func unknownAttributeTypeAndBadValues() throws {
        let cases: [(String, String)] = [
            (#"<attribute name="a" attributeType="Composite" composite="Address"/>"#, "the composite Address is not in the model"),
            (#"<attribute name="a" optional="yes" attributeType="String"/>"#, #"optional="yes" is neither YES nor NO"#),
            (#"<attribute name="a" attributeType="Integer 16" defaultValueString="40000"/>"#, #"defaultValueString="40000" is not a value of type Integer 16"#),
            (#"<attribute name="a" attributeType="Boolean" defaultValueString="true"/>"#, #"defaultValueString="true" is not a value of type Boolean"#),
            (#"<attribute name="a" attributeType="Double" defaultValueString="nan"/>"#, #"defaultValueString="nan" is not a value of type Double"#),
            (#"<attribute name="a" attributeType="Date" defaultDateTimeInterval="today"/>"#, #"defaultDateTimeInterval="today" is not a number of seconds"#),
            (#"<attribute name="a" attributeType="String" minValueString="-1"/>"#, #"minValueString="-1" is not a length (a whole number, 0 or more)"#),
            (#"<attribute name="a" attributeType="Integer 32" maxValueString="1.5"/>"#, #"maxValueString="1.5" is not a whole number"#),
            (#"<attribute name="a" attributeType="String" regularExpressionString="(a"/>"#, #"the regularExpressionString "(a" is not a regular expression"#),
            (#"<attribute name="a" attributeType="String" derived="YES" derivationExpression="a +"/>"#, "the derivationExpression does not parse: "),
            (#"<attribute attributeType="String"/>"#, "the attribute name is missing"),
            (#"<attribute name="a" attributeType="String"><note/></attribute>"#, "unknown element <note> in <attribute>"),
            (#"<attribute name="a" attributeType="String"/><attribute name="a" attributeType="String"/>"#, "a second property named a (the first is at line 4)"),
            (#"<gadget/>"#, "unknown element <gadget> in <entity>"),
            (#"<userInfo><entry key="k" value="1"/><entry key="k" value="2"/></userInfo>"#, "a second userInfo entry with the key k"),
        ]
        for (body, reason) in cases {
            let error = try error(model(body))
            #expect(error.reason.hasPrefix(reason), "\(body): \(error)")
            #expect(error.line == 4, "\(body): \(error)")
        }
    }

    @Test func relationshipsToMissingEntitiesAndInverses() throws {
        let cases: [(String, String, String)] = [
            (#"<relationship name="pets" toMany="YES" destinationEntity="Pet"/>"#, "<relationship name=\"pets\"> in entity Person", "the destination entity Pet is not in the model"),
            (#"<relationship name="pets" toMany="YES"/>"#, "<relationship name=\"pets\"> in entity Person", "the attribute destinationEntity is missing"),
            (#"<relationship name="me" maxCount="1" destinationEntity="Person" inverseName="nobody" inverseEntity="Person"/>"#, "<relationship name=\"me\"> in entity Person", "the inverse nobody is not a relationship of entity Person"),
            (#"<relationship name="me" maxCount="1" destinationEntity="Person" inverseName="me" inverseEntity="Ghost"/>"#, "<relationship name=\"me\"> in entity Person", "the inverseEntity Ghost is not in the model"),
            (#"<relationship name="me" maxCount="3" destinationEntity="Person"/>"#, "<relationship name=\"me\"> in entity Person", #"maxCount="3" on a to-one relationship (toMany is not YES)"#),
            (#"<relationship name="me" toMany="YES" maxCount="-2" destinationEntity="Person"/>"#, "<relationship name=\"me\"> in entity Person", #"maxCount="-2" is not a whole number (0 or more)"#),
            (#"<relationship name="me" maxCount="1" deletionRule="Destroy" destinationEntity="Person"/>"#, "<relationship name=\"me\"> in entity Person", #"unknown deletionRule "Destroy" (known: Nullify, Cascade, Deny, No Action)"#),
        ]
        for (body, element, reason) in cases {
            let error = try error(model(body))
            #expect(error.reason == reason, "\(body): \(error)")
            #expect(error.element == element && error.line == 4 && error.column == 9, "\(body): \(error)")
        }
    }

    @Test func inversesThatDoNotPointBack() throws {
        let elsewhere = """
        <model>
            <entity name="A">
                <relationship name="b" maxCount="1" destinationEntity="B" inverseName="c" inverseEntity="B"/>
            </entity>
            <entity name="B">
                <relationship name="c" maxCount="1" destinationEntity="C"/>
            </entity>
            <entity name="C"/>
        </model>
        """
        let error = try error(elsewhere)
        #expect(error.reason == "the inverse B.c leads to entity C, not back to A" && error.line == 3 && error.element == "<relationship name=\"b\"> in entity A")
        let third = elsewhere.replacingOccurrences(of: #"destinationEntity="C"/>"#, with: #"destinationEntity="A" inverseName="x" inverseEntity="A"/>"#)
            .replacingOccurrences(of: "</entity>\n    <entity name=\"B\">", with: "    <relationship name=\"x\" maxCount=\"1\" destinationEntity=\"B\" inverseName=\"c\" inverseEntity=\"B\"/>\n    </entity>\n    <entity name=\"B\">")
        #expect(try self.error(third).reason == "the inverse B.c names A.x as its own inverse")
    }

    @Test func parentEntityCycles() throws {
        let cycle = """
        <model>
            <entity name="A" parentEntity="C"/>
            <entity name="B" parentEntity="A"/>
            <entity name="C" parentEntity="B"/>
        </model>
        """
        let error = try error(cycle)
        #expect(error.reason == "parentEntity cycle: A → C → B → A" && error.line == 2 && error.element == "<entity name=\"A\">")
        let own = try self.error("<model>\n<entity name=\"A\" parentEntity=\"A\"/>\n</model>")
        #expect(own.reason == "parentEntity cycle: A → A" && own.line == 2)
        let missing = try self.error("<model>\n<entity name=\"A\" parentEntity=\"Base\"/>\n</model>")
        #expect(missing.reason == "the parentEntity Base is not in the model" && missing.line == 2)
    }

    @Test func badReferencesElsewhere() throws {
        let cases: [(String, String, String, Int)] = [
            (model(""), "\n    <entity name=\"Person\"/>", "a second entity named Person (the first is at line 3)", 6),
            (model(""), "\n    <fetchRequest name=\"F\" entity=\"Ghost\"/>", "the entity Ghost is not in the model", 6),
            (model(""), "\n    <fetchRequest name=\"F\" entity=\"Person\" predicateString=\"name ==\"/>", "the predicateString does not parse: ", 6),
            (model(""), "\n    <fetchRequest name=\"F\" entity=\"Person\" fetchLimit=\"ten\"/>", #"fetchLimit="ten" is not a whole number (0 or more)"#, 6),
            (model(""), "\n    <fetchRequest name=\"F\" entity=\"Person\" resultType=\"3\"/>", #"resultType="3" is not a result type (0, 1, 2 or 4)"#, 6),
            (model(""), "\n    <fetchRequest name=\"F\" entity=\"Person\"/><fetchRequest name=\"F\" entity=\"Person\"/>", "a second fetch request template named F", 6),
            (model(""), "\n    <configuration name=\"C\"><memberEntity name=\"Ghost\"/></configuration>", "the entity Ghost is not in the model", 6),
            (model(""), "\n    <configuration name=\"C\"><member name=\"Person\"/></configuration>", "unknown element <member> in <configuration>", 6),
            (model(""), "\n    <gadget/>", "unknown element <gadget> in <model>", 6),
            (model(#"<fetchIndex name="i"><fetchIndexElement property="ghost" type="Binary" order="ascending"/></fetchIndex>"#), "", "the indexed property ghost is not a property of entity Person", 4),
            (model(#"<fetchIndex name="i"><fetchIndexElement property="age" type="Hash"/></fetchIndex>"#), "", #"unknown index type "Hash" (known: Binary, RTree)"#, 4),
            (model(#"<fetchIndex name="i"/>"#), "", "a fetch index without elements", 4),
            (model(#"<uniquenessConstraints><uniquenessConstraint><constraint value="ghost"/></uniquenessConstraint></uniquenessConstraints>"#), "", "the constraint's property ghost is not a property of entity Person", 4),
            (model(#"<fetchedProperty name="f"/>"#), "", "a fetched property without its <fetchRequest>", 4),
            (model(#"<fetchedProperty name="f"><fetchRequest name="r" entity="Ghost"/></fetchedProperty>"#), "", "the entity Ghost is not in the model", 4),
        ]
        for (base, more, reason, line) in cases {
            let text = more.isEmpty ? base : base.replacingOccurrences(of: "    </entity>", with: "    </entity>" + more)
            let error = try error(text)
            #expect(error.reason.hasPrefix(reason), "\(reason): \(error)")
            #expect(error.line == line, "\(reason): \(error)")
        }
        #expect(try error("<plist/>").reason == "the root element is <plist>, not <model> (this is not a Core Data model file)")
    }

    @Test func currentVersionNamingAMissingVersion() throws {
        let folder = ModelFolder()
        defer { folder.cleanUp() }
        let url = try folder.bundle("Zoo", versions: [("Zoo", ModelFileFixtures.small()), ("Zoo 2", ModelFileFixtures.small())], current: "Zoo 3.xcdatamodel")
        let error = try #require(throws: ModelFileError.self) { try NSManagedObjectModel(validatingContentsOf: url) }
        #expect(error.file.lastPathComponent == ".xccurrentversion")
        #expect(error.line == 6 && error.column == 2 && error.element == "<string> of _XCCurrentVersionName")
        #expect(error.reason == "the current version Zoo 3.xcdatamodel is not in the folder (versions: Zoo.xcdatamodel, Zoo 2.xcdatamodel)")
        #expect(NSManagedObjectModel(contentsOf: url) == nil)

        try Data("<plist><dict><key>Other</key><string>x</string></dict></plist>".utf8).write(to: url.appendingPathComponent(".xccurrentversion"))
        #expect(try #require(throws: ModelFileError.self) { try NSManagedObjectModel(validatingContentsOf: url) }.reason == "no _XCCurrentVersionName key")
        try Data("<plist><dict><key>_XCCurrentVersionName".utf8).write(to: url.appendingPathComponent(".xccurrentversion"))
        #expect(try #require(throws: ModelFileError.self) { try NSManagedObjectModel(validatingContentsOf: url) }.line == 1)
        // A bad old version fails the read too, as Xcode's model compiler fails the build.
        try Data(ModelFileFixtures.currentVersion("Zoo 2.xcdatamodel").utf8).write(to: url.appendingPathComponent(".xccurrentversion"))
        try Data("<model><entity/></model>".utf8).write(to: url.appendingPathComponent("Zoo.xcdatamodel/contents"))
        let old = try #require(throws: ModelFileError.self) { try NSManagedObjectModel(validatingContentsOf: url) }
        #expect(old.file.deletingLastPathComponent().lastPathComponent == "Zoo.xcdatamodel" && old.reason == "the attribute name is missing")
    }
}
