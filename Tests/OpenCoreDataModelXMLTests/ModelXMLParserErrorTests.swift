import Foundation
@testable import OpenCoreDataModelXML
import Testing

/// Every error the model file parser gives, with the line and column it points at.
@Suite struct ModelXMLParserErrorTests {
    struct Failure: CustomTestStringConvertible, Sendable {
        let bytes: [UInt8]
        let message: String
        let line: Int
        let column: Int

        init(_ text: String, _ message: String, _ line: Int = 1, _ column: Int) {
            self.init(bytes: Array(text.utf8), message, line, column)
        }

        init(bytes: [UInt8], _ message: String, _ line: Int = 1, _ column: Int) {
            self.bytes = bytes
            self.message = message
            self.line = line
            self.column = column
        }

        var testDescription: String { message }
    }

    static let documentFailures: [Failure] = [
        Failure(bytes: [0x3C, 0x61, 0x00, 0x2F, 0x3E], "a NUL character (the file is not text)", 1, 3),
        Failure(bytes: [0x3C, 0x61, 0x3E, 0xC3, 0x28, 0x3C, 0x2F, 0x61, 0x3E], "the file is not valid UTF-8 (model files are UTF-8)", 1, 4),
        Failure("", "the file is empty (expected an XML element)", 1, 1),
        Failure("<!-- only a comment -->\n", "the file is empty (expected an XML element)", 2, 1),
        Failure("model", "expected the root element, found \"model\"", 1, 1),
        Failure("<a/><b/>", "unexpected \"<b/>\" after the root element </a>", 1, 5),
        Failure("<a/>text", "unexpected \"text\" after the root element </a>", 1, 5),
        Failure("<?xml version=\"1.0\"encoding=\"UTF-8\"?><a/>", "expected \"?>\" to end the XML declaration, found \"encoding=\"UT\"", 1, 20),
        Failure("<?xml version=\"1.0\"", "the XML declaration is not closed", 1, 1),
        Failure("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a/>", "the encoding \"ISO-8859-1\" is not supported (model files are UTF-8)", 1, 1),
        Failure("<?xml version=\"1.0\" =\"x\"?><a/>", "expected an attribute name in the XML declaration, found \"=\"x\"?><a/>\"", 1, 21),
        Failure("<!DOCTYPE model [<!ENTITY e \"x\">]><model/>", "a DOCTYPE with an internal subset (entity declarations are not allowed in a model file)", 1, 17),
        Failure("<!DOCTYPE model", "the DOCTYPE is not closed (missing \">\")", 1, 1),
        Failure("<?pi never closed\n<a/>", "a processing instruction is not closed (missing \"?>\")", 1, 1),
        Failure("<!-- a -- b --><a/>", "\"--\" inside a comment", 1, 8),
        Failure("<a/>\n<!-- open", "a comment is not closed (missing \"-->\")", 2, 1),
    ]

    static let elementFailures: [Failure] = [
        Failure("< a/>", "expected an element name after \"<\", found \" a/>\"", 1, 2),
        Failure("<a>\n  <1/></a>", "expected an element name after \"<\", found \"1/></a>\"", 2, 4),
        Failure("<a b=\"1\"", "the file ends inside the tag <a>", 1, 1),
        Failure("<a b=\"1\"c=\"2\"/>", "expected a space, \">\" or \"/>\" in the tag <a>, found \"c=\"2\"/>\"", 1, 9),
        Failure("<a b=\"1\" b=\"2\"/>", "the attribute b appears twice in <a>", 1, 10),
        Failure("<a><b/>", "the file ends before </a> (the element opened at line 1 is not closed)", 1, 8),
        Failure("<a>\n<b></a>", "</a> closes <b> (opened at line 2)", 2, 4),
        Failure("<a></ a>", "expected an element name after \"</\", found \" a>\"", 1, 6),
        Failure("<a></a b>", "expected \">\" to end </a>, found \"b>\"", 1, 8),
        Failure("<a><!ELEMENT x></a>", "unexpected \"<!ELEMENT x>\" inside <a>", 1, 4),
        Failure("<a>x ]]> y</a>", "\"]]>\" in text", 1, 8),
        Failure("<a><![CDATA[ open</a>", "a CDATA section is not closed (missing \"]]>\")", 1, 4),
        Failure("<a><?pi open</a>", "a processing instruction is not closed (missing \"?>\")", 1, 4),
        Failure("<a><!-- open</a>", "a comment is not closed (missing \"-->\")", 1, 4),
        Failure(String(repeating: "<a>", count: ModelXMLParser.maximumDepth + 1), "elements nest more than 64 deep", 1, 3 * ModelXMLParser.maximumDepth + 1),
    ]

    static let attributeAndReferenceFailures: [Failure] = [
        Failure("<a =\"1\"/>", "expected an attribute name in <a>, found \"=\"1\"/>\"", 1, 4),
        Failure("<a b/>", "expected \"=\" after the attribute b in <a>, found \"/>\"", 1, 5),
        Failure("<a b=1/>", "expected a quoted value for the attribute b in <a>, found \"1/>\"", 1, 6),
        Failure("<a b=\"1/>", "the value of the attribute b in <a> is not closed (missing \")", 1, 6),
        Failure("<a b='1/>", "the value of the attribute b in <a> is not closed (missing ')", 1, 6),
        Failure("<a b=\"x<y\"/>", "\"<\" in the value of the attribute b (write &lt;)", 1, 8),
        Failure("<a b=\"fish & chips\"/>", "\"&\" does not start a reference (write &amp; for \"&\")", 1, 12),
        Failure("<a>fish & chips</a>", "\"&\" does not start a reference (write &amp; for \"&\")", 1, 9),
        Failure("<a>&nbsp;</a>", "unknown entity &nbsp; (a model file uses only &lt; &gt; &amp; &quot; &apos; and character references)", 1, 4),
        Failure("<a>&#0;</a>", "&#0; is not a valid character", 1, 4),
        Failure("<a>&#xD800;</a>", "&#xD800; is not a valid character", 1, 4),
        Failure("<a>&#x110000;</a>", "&#x110000; is not a valid character", 1, 4),
        Failure("<a>&#12a;</a>", "&#12a; is not a valid character", 1, 4),
        Failure("<a b=\"&#xZZ;\"/>", "&#xZZ; is not a valid character", 1, 7),
    ]

    @Test(arguments: documentFailures) func documentErrors(_ failure: Failure) { expect(failure) }
    @Test(arguments: elementFailures) func elementErrors(_ failure: Failure) { expect(failure) }
    @Test(arguments: attributeAndReferenceFailures) func attributeAndReferenceErrors(_ failure: Failure) { expect(failure) }

    private func expect(_ failure: Failure, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let root = try ModelXMLParser.parse(Data(failure.bytes))
            Issue.record("parsed, to <\(root.name)>; expected: \(failure.message)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.message == failure.message, sourceLocation: sourceLocation)
            #expect((error.line, error.column) == (failure.line, failure.column), "\(failure.message)", sourceLocation: sourceLocation)
        }
    }

    @Test func columnsCountUnicodeScalarsNotBytes() {
        expect(Failure("<a é=\"1\" é=\"2\"/>", "the attribute é appears twice in <a>", 1, 10))
        expect(Failure("<a>\u{1F600}é&bad;</a>", "unknown entity &bad; (a model file uses only &lt; &gt; &amp; &quot; &apos; and character references)", 1, 6))
    }
}
