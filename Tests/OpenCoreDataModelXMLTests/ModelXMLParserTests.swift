import Foundation
@testable import OpenCoreDataModelXML
import Testing

/// What the model file parser accepts: each construct of its grammar (ModelXMLParser.swift), the values
/// and positions it reports. ModelXMLParserErrorTests has the errors.
@Suite struct ModelXMLParserTests {
    func parse(_ text: String) throws -> ModelXMLElement {
        try ModelXMLParser.parse(Data(text.utf8))
    }

    @Test func aModelFileAsXcodeWritesIt() throws {
        let root = try parse("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic">
                <entity name="Animal" representedClassName="Animal" syncable="YES" codeGenerationType="class">
                    <attribute name="legs" optional="YES" attributeType="Integer 16" defaultValueString="4" usesScalarValueType="YES"/>
                    <relationship name="zoos" toMany="YES" deletionRule="Nullify" destinationEntity="Zoo" inverseName="animals" inverseEntity="Zoo"/>
                </entity>
                <elements>
                    <element name="Animal" positionX="-63" positionY="-18" width="128" height="89"/>
                </elements>
            </model>
            """)
        #expect(root.name == "model")
        #expect(root.attributes.map(\.name) == ["type", "documentVersion", "minimumToolsVersion"], "attributes in file order")
        #expect(root.children.map(\.name) == ["entity", "elements"])
        let entity = root.children[0]
        #expect(entity.attribute("representedClassName") == "Animal")
        #expect(entity.attribute("parentEntity") == nil)
        #expect(entity.children.map(\.name) == ["attribute", "relationship"])
        #expect(entity.children[0].attribute("attributeType") == "Integer 16")
        #expect(entity.children[1].attribute("inverseName") == "animals")
        #expect((entity.line, entity.column) == (3, 5))
        #expect((entity.children[1].line, entity.children[1].column) == (5, 9))
    }

    @Test func theDeclarationIsOptionalAndItsEncodingMayBeSpelledEitherWay() throws {
        #expect(try parse("<a/>").name == "a")
        #expect(try parse("<?xml version=\"1.0\"?><a/>").name == "a")
        #expect(try parse("<?xml version='1.0' encoding='utf8'?><a/>").name == "a")
        #expect(try parse("<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<a/>").name == "a")
    }

    @Test func aByteOrderMarkIsSkipped() throws {
        #expect(try parse("\u{FEFF}<?xml version=\"1.0\"?><a/>").name == "a")
    }

    @Test func commentsProcessingInstructionsAndADoctypeMayStandAroundTheRoot() throws {
        let root = try parse("""
            <?xml version="1.0"?>
            <!-- before -->
            <?xcode keep?>
            <!DOCTYPE model SYSTEM "model.dtd">
            <!-- after the doctype -->
            <model/>
            <!-- after the root -->
            <?end?>

            """)
        #expect(root.name == "model")
        #expect(root.line == 6)
    }

    @Test func attributeValuesTakeEitherQuoteAndSpacesAroundTheEqualsSign() throws {
        let root = try parse("<a one=\"1\" two='2' three = \"3\"\n\tfour\t=\t'4'/>")
        #expect(root.attributes.map(\.name) == ["one", "two", "three", "four"])
        #expect(root.attributes.map(\.value) == ["1", "2", "3", "4"])
        #expect(try parse("<a b='say \"hi\"' c=\"it's\"/>").attributes.map(\.value) == ["say \"hi\"", "it's"])
    }

    @Test func referencesAreReplacedInAttributesAndText() throws {
        let root = try parse("<a v=\"&lt;&gt;&amp;&quot;&apos;&#65;&#x42;&#x1F600;\">x &lt; y &amp;&#10;z</a>")
        #expect(root.attribute("v") == "<>&\"'AB\u{1F600}")
        #expect(root.text == "x < y &\nz")
    }

    @Test func whitespaceInAttributeValuesIsNormalisedUnlessWrittenAsAReference() throws {
        let root = try parse("<a v=\"one\ttwo\nthree\r\nfour\" w=\"&#9;&#10;&#13;\"/>")
        #expect(root.attribute("v") == "one two three  four")
        #expect(root.attribute("w") == "\t\n\r")
    }

    @Test func anElementsTextIsItsOwnCharacterDataAndCDATA() throws {
        let root = try parse("<a>one<b>inner</b> two<![CDATA[ <three> & ]]><!-- no --><?pi no?></a>")
        #expect(root.text == "one two <three> & ")
        #expect(root.children.first?.text == "inner")
        #expect(try parse("<a></a>").text == "")
        #expect(try parse("<a>]]</a>").text == "]]", "\"]]\" without \">\" is text")
    }

    @Test func aClosingTagMayHaveSpaceBeforeItsBracket() throws {
        #expect(try parse("<a><b></b  ></a\n>").children.count == 1)
    }

    @Test func namesTakeLettersDigitsAndPunctuationXMLAllows() throws {
        let root = try parse("<x:model_1.a-b é=\"1\" _n=\"2\"/>")
        #expect(root.name == "x:model_1.a-b")
        #expect(root.attributes.map(\.name) == ["é", "_n"])
    }

    @Test func positionsAreLinesAndColumnsOfUnicodeScalars() throws {
        let root = try parse("<a>\n  <b/><c/>\n\u{E9}\u{1F600}<d/></a>")
        #expect(root.children.map { [$0.line, $0.column] } == [[2, 3], [2, 7], [3, 3]])
        #expect((root.line, root.column) == (1, 1))
    }

    @Test func elementsMayNestAsDeepAsTheLimit() throws {
        let depth = ModelXMLParser.maximumDepth
        let text = String(repeating: "<a>", count: depth - 1) + "<a/>" + String(repeating: "</a>", count: depth - 1)
        var element = try parse(text)
        var levels = 1
        while let child = element.children.first { element = child; levels += 1 }
        #expect(levels == depth)
    }
}
