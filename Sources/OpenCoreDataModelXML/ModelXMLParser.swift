import Foundation

/// An element of a model file: its name, attributes in file order, child elements and text, and where
/// it starts (1-based line and column, columns counted in Unicode scalars).
package struct ModelXMLElement {
    package let name: String
    package var attributes: [(name: String, value: String)] = []
    package var children: [ModelXMLElement] = []
    /// The element's own character data, child elements' text excluded.
    package var text: String = ""
    package let line: Int
    package let column: Int

    /// The value of an attribute, `nil` when the element does not have it.
    package func attribute(_ name: String) -> String? {
        attributes.first(where: { $0.name == name })?.value
    }
}

/// A syntax error: what is wrong and where (1-based line and column).
package struct ModelXMLSyntaxError: Error {
    package let message: String
    package let line: Int
    package let column: Int
}

/// A small, strict XML parser for the files Xcode writes in a model folder (`contents`,
/// `.xccurrentversion`). Written here rather than on Foundation's `XMLParser` so that every error carries
/// its line and column the same way on Linux and Darwin, no DTD is ever fetched or expanded, and the
/// parser's limits are ours (nesting depth, entity references). A module of its own, so that the class
/// generator (`ocd-codegen`, run by the OpenCoreDataCodegen plugin) reads model files with the same
/// parser without building the whole library a second time for the build machine.
///
/// Grammar (the subset of XML 1.0 these files use; UTF-8 only):
///
///     document     ::= [BOM] [xml-decl] misc* [doctype misc*] element misc*
///     xml-decl     ::= "<?xml" (S attribute)* S? "?>"
///     misc         ::= comment | pi | S
///     doctype      ::= "<!DOCTYPE" (any character but "[" or ">")* ">"      (an internal subset is refused)
///     element      ::= "<" name (S attribute)* S? ("/>" | ">" content "</" name S? ">")
///     attribute    ::= name S? "=" S? ("\"" [^<&"]* "\"" | "'" [^<&']* "'")  (with references)
///     content      ::= (element | chars | reference | comment | pi | cdata)*
///     reference    ::= "&" ("lt" | "gt" | "amp" | "quot" | "apos") ";" | "&#" digits ";" | "&#x" hex ";"
///     comment      ::= "<!--" (any text without "--") "-->"
///     pi           ::= "<?" name (any text) "?>"
///     cdata        ::= "<![CDATA[" (any text) "]]>"
///
/// Attribute values are normalised as XML requires: a literal tab, newline or carriage return becomes a
/// space (a writer keeps them with `&#9;`, `&#10;`, `&#13;`). Elements nest at most
/// ``maximumDepth`` deep; deeper is an error, never a stack overflow.
package struct ModelXMLParser {
    package static let maximumDepth = 64

    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0
    /// The byte offset where each line starts.
    private let lineStarts: [Int]

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var starts = [0]
        for (i, b) in bytes.enumerated() where b == UInt8(ascii: "\n") { starts.append(i + 1) }
        self.lineStarts = starts
    }

    /// Parses a whole document and returns its root element.
    package static func parse(_ data: Data) throws(ModelXMLSyntaxError) -> ModelXMLElement {
        var parser = ModelXMLParser(Array(data))
        try parser.checkUTF8()
        return try parser.parseDocument()
    }

    // MARK: Positions and errors

    private func location(_ offset: Int) -> (line: Int, column: Int) {
        // The last line start at or before the offset.
        var low = 0, high = lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        let start = lineStarts[low]
        let end = min(offset, bytes.count)
        var column = 1
        if start < end {
            for b in bytes[start..<end] where b & 0xC0 != 0x80 { column += 1 }
        }
        return (low + 1, column)
    }

    private func error(_ message: String, at offset: Int? = nil) -> ModelXMLSyntaxError {
        let (line, column) = location(offset ?? position)
        return ModelXMLSyntaxError(message: message, line: line, column: column)
    }

    /// What is at the current position, for messages: the next few characters, or "end of file".
    private var found: String {
        guard position < bytes.count else { return "end of file" }
        let end = min(bytes.count, position + 12)
        let text = String(decoding: bytes[position..<end], as: UTF8.self)
        return "\"" + text.prefix(while: { $0 != "\n" && $0 != "\r" }) + "\""
    }

    private func checkUTF8() throws(ModelXMLSyntaxError) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar.value == 0 { throw error("a NUL character (the file is not text)", at: offset) }
                offset += UTF8.width(scalar)
            case .emptyInput: return
            case .error: throw error("the file is not valid UTF-8 (model files are UTF-8)", at: offset)
            }
        }
    }

    // MARK: Lexical helpers

    private func peek(_ literal: String) -> Bool {
        let utf8 = Array(literal.utf8)
        guard position + utf8.count <= bytes.count else { return false }
        for (i, b) in utf8.enumerated() where bytes[position + i] != b { return false }
        return true
    }

    private mutating func expect(_ literal: String, _ what: String) throws(ModelXMLSyntaxError) {
        guard peek(literal) else { throw error("expected \(what), found \(found)") }
        position += literal.utf8.count
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = position
        while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
        return position > start
    }

    private static func isNameStart(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || b == UInt8(ascii: "_") || b == UInt8(ascii: ":") || b >= 0x80
    }

    private static func isNameByte(_ b: UInt8) -> Bool {
        isNameStart(b) || (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
    }

    /// name ::= name-start name-char*
    private mutating func parseName(_ what: String) throws(ModelXMLSyntaxError) -> String {
        guard position < bytes.count, Self.isNameStart(bytes[position]) else {
            throw error("expected \(what), found \(found)")
        }
        let start = position
        while position < bytes.count, Self.isNameByte(bytes[position]) { position += 1 }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// Skips to just past `terminator`; an error naming `what` if the file ends first.
    private mutating func skip(past terminator: String, _ what: String, from start: Int) throws(ModelXMLSyntaxError) {
        while position < bytes.count {
            if peek(terminator) { position += terminator.utf8.count; return }
            position += 1
        }
        throw error("\(what) is not closed (missing \"\(terminator)\")", at: start)
    }

    // MARK: Document structure

    /// document ::= [BOM] [xml-decl] misc* [doctype misc*] element misc*
    private mutating func parseDocument() throws(ModelXMLSyntaxError) -> ModelXMLElement {
        if peek("\u{FEFF}") { position += 3 }
        if peek("<?xml") {
            let after = position + 5
            if after < bytes.count, Self.isSpace(bytes[after]) || bytes[after] == UInt8(ascii: "?") {
                try parseDeclaration()
            }
        }
        try parseMisc()
        if peek("<!DOCTYPE") {
            let start = position
            position += 9
            while position < bytes.count, bytes[position] != UInt8(ascii: ">") {
                if bytes[position] == UInt8(ascii: "[") {
                    throw error("a DOCTYPE with an internal subset (entity declarations are not allowed in a model file)")
                }
                position += 1
            }
            guard position < bytes.count else { throw error("the DOCTYPE is not closed (missing \">\")", at: start) }
            position += 1
            try parseMisc()
        }
        guard peek("<") else {
            throw error(position >= bytes.count ? "the file is empty (expected an XML element)" : "expected the root element, found \(found)")
        }
        let root = try parseElement()
        try parseMisc()
        guard position >= bytes.count else { throw error("unexpected \(found) after the root element </\(root.name)>") }
        return root
    }

    /// xml-decl ::= "<?xml" (S attribute)* S? "?>"; only `encoding="UTF-8"` (or none) is accepted.
    private mutating func parseDeclaration() throws(ModelXMLSyntaxError) {
        let start = position
        position += 5
        var attributes: [(name: String, value: String)] = []
        while true {
            let spaced = skipSpace()
            if peek("?>") { position += 2; break }
            guard spaced else { throw error("expected \"?>\" to end the XML declaration, found \(found)") }
            attributes.append(try parseAttribute(in: "the XML declaration"))
            if position >= bytes.count { throw error("the XML declaration is not closed", at: start) }
        }
        if let encoding = attributes.first(where: { $0.name == "encoding" })?.value,
           !["utf-8", "utf8"].contains(encoding.lowercased()) {
            throw error("the encoding \"\(encoding)\" is not supported (model files are UTF-8)", at: start)
        }
    }

    /// misc ::= comment | pi | S
    private mutating func parseMisc() throws(ModelXMLSyntaxError) {
        while true {
            skipSpace()
            if peek("<!--") {
                try parseComment()
            } else if peek("<?") {
                let start = position
                position += 2
                try skip(past: "?>", "a processing instruction", from: start)
            } else {
                return
            }
        }
    }

    /// comment ::= "<!--" (any text without "--") "-->"
    private mutating func parseComment() throws(ModelXMLSyntaxError) {
        let start = position
        position += 4
        while position < bytes.count {
            if peek("--") {
                guard peek("-->") else { throw error("\"--\" inside a comment") }
                position += 3
                return
            }
            position += 1
        }
        throw error("a comment is not closed (missing \"-->\")", at: start)
    }

    /// element ::= "<" name (S attribute)* S? ("/>" | ">" content "</" name S? ">")
    private mutating func parseElement() throws(ModelXMLSyntaxError) -> ModelXMLElement {
        let start = position
        let (line, column) = location(start)
        position += 1  // "<"
        let name = try parseName("an element name after \"<\"")
        var element = ModelXMLElement(name: name, line: line, column: column)
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            throw error("elements nest more than \(Self.maximumDepth) deep", at: start)
        }
        while true {
            let spaced = skipSpace()
            if peek("/>") { position += 2; return element }
            if peek(">") { position += 1; break }
            guard position < bytes.count else { throw error("the file ends inside the tag <\(name)>", at: start) }
            guard spaced else { throw error("expected a space, \">\" or \"/>\" in the tag <\(name)>, found \(found)") }
            let attributeStart = position
            let attribute = try parseAttribute(in: "<\(name)>")
            if element.attribute(attribute.name) != nil {
                throw error("the attribute \(attribute.name) appears twice in <\(name)>", at: attributeStart)
            }
            element.attributes.append(attribute)
        }
        try parseContent(of: &element, openedAt: start)
        return element
    }

    /// content ::= (element | chars | reference | comment | pi | cdata)*, then "</" name S? ">"
    private mutating func parseContent(of element: inout ModelXMLElement, openedAt start: Int) throws(ModelXMLSyntaxError) {
        var text: [UInt8] = []
        while true {
            guard position < bytes.count else {
                throw error("the file ends before </\(element.name)> (the element opened at line \(element.line) is not closed)")
            }
            let b = bytes[position]
            if b == UInt8(ascii: "<") {
                if peek("</") {
                    let closeStart = position
                    position += 2
                    let name = try parseName("an element name after \"</\"")
                    guard name == element.name else {
                        throw error("</\(name)> closes <\(element.name)> (opened at line \(element.line))", at: closeStart)
                    }
                    skipSpace()
                    try expect(">", "\">\" to end </\(name)>")
                    element.text = String(decoding: text, as: UTF8.self)
                    return
                } else if peek("<!--") {
                    try parseComment()
                } else if peek("<![CDATA[") {
                    let cdataStart = position
                    position += 9
                    let contentStart = position
                    try skip(past: "]]>", "a CDATA section", from: cdataStart)
                    text += bytes[contentStart..<(position - 3)]
                } else if peek("<?") {
                    let piStart = position
                    position += 2
                    try skip(past: "?>", "a processing instruction", from: piStart)
                } else if peek("<!") {
                    throw error("unexpected \(found) inside <\(element.name)>")
                } else {
                    element.children.append(try parseElement())
                }
            } else if b == UInt8(ascii: "&") {
                text += Array(try parseReference().utf8)
            } else {
                if b == UInt8(ascii: ">"), peek(">"), text.count >= 2, text.suffix(2) == [0x5D, 0x5D] {
                    throw error("\"]]>\" in text")
                }
                text.append(b)
                position += 1
            }
        }
    }

    /// attribute ::= name S? "=" S? ("\"" value "\"" | "'" value "'")
    private mutating func parseAttribute(in tag: String) throws(ModelXMLSyntaxError) -> (name: String, value: String) {
        let name = try parseName("an attribute name in \(tag)")
        skipSpace()
        try expect("=", "\"=\" after the attribute \(name) in \(tag)")
        skipSpace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
            throw error("expected a quoted value for the attribute \(name) in \(tag), found \(found)")
        }
        let quote = bytes[position]
        let start = position
        position += 1
        var value: [UInt8] = []
        while true {
            guard position < bytes.count else {
                throw error("the value of the attribute \(name) in \(tag) is not closed (missing \(quote == 0x22 ? "\"" : "'"))", at: start)
            }
            let b = bytes[position]
            if b == quote { position += 1; break }
            switch b {
            case UInt8(ascii: "<"): throw error("\"<\" in the value of the attribute \(name) (write &lt;)")
            case UInt8(ascii: "&"): value += Array(try parseReference().utf8)
            case 0x09, 0x0A, 0x0D:
                value.append(0x20)
                position += 1
            default:
                value.append(b)
                position += 1
            }
        }
        return (name, String(decoding: value, as: UTF8.self))
    }

    /// reference ::= "&" ("lt" | "gt" | "amp" | "quot" | "apos") ";" | "&#" digits ";" | "&#x" hex ";"
    private mutating func parseReference() throws(ModelXMLSyntaxError) -> String {
        let start = position
        position += 1
        var body: [UInt8] = []
        while position < bytes.count, bytes[position] != UInt8(ascii: ";"), body.count < 12 {
            body.append(bytes[position])
            position += 1
        }
        guard position < bytes.count, bytes[position] == UInt8(ascii: ";") else {
            throw error("\"&\" does not start a reference (write &amp; for \"&\")", at: start)
        }
        position += 1
        let name = String(decoding: body, as: UTF8.self)
        switch name {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        case "apos": return "'"
        default: break
        }
        var code: UInt32?
        if name.hasPrefix("#x") {
            code = UInt32(name.dropFirst(2), radix: 16)
        } else if name.hasPrefix("#") {
            code = UInt32(name.dropFirst(), radix: 10)
        } else {
            throw error("unknown entity &\(name); (a model file uses only &lt; &gt; &amp; &quot; &apos; and character references)", at: start)
        }
        guard let code, code != 0, let scalar = Unicode.Scalar(code) else {
            throw error("&\(name); is not a valid character", at: start)
        }
        return String(Character(scalar))
    }
}
