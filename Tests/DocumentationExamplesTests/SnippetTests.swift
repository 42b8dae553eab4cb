import Foundation
import Testing

/// Holds the DocC articles to the examples: every ```swift block of an article (Sources/*/*.docc/*.md)
/// is, line for line, a region of this target's sources between a `// doc: id` line and `// end-doc`,
/// and every region is shown by an article. The regions are compiled, and run by the tests around them,
/// so an article cannot show code that does not compile or does something else than it says.
@Suite("Documentation: the articles' code is the tested code")
struct SnippetTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let catalogs = ["Sources/OpenCoreData/OpenCoreData.docc",
                           "Sources/OpenCoreDataPredicates/OpenCoreDataPredicates.docc",
                           "Sources/OpenSwiftData/OpenSwiftData.docc"]

    /// A block of an article: where it is and its normalised lines.
    struct Block { var place: String; var lines: [String] }

    /// The Swift blocks of every article of both catalogs.
    static func articleBlocks() throws -> [Block] {
        var blocks: [Block] = []
        for catalog in catalogs {
            let folder = packageRoot.appendingPathComponent(catalog)
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where name.hasSuffix(".md") {
                let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                var current: [String]?
                var startLine = 0
                for (number, line) in text.components(separatedBy: "\n").enumerated() {
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    if current == nil, trimmed == "```swift" {
                        current = []
                        startLine = number + 1
                    } else if current != nil, trimmed == "```" {
                        blocks.append(Block(place: "\(catalog)/\(name):\(startLine)", lines: normalised(current!)))
                        current = nil
                    } else {
                        current?.append(line)
                    }
                }
            }
        }
        return blocks
    }

    /// The `// doc: id` … `// end-doc` regions of this target's Swift files, by id.
    static func regions() throws -> [String: [String]] {
        let folder = packageRoot.appendingPathComponent("Tests/DocumentationExamplesTests")
        var regions: [String: [String]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where name.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            var current: (id: String, lines: [String])?
            for line in text.components(separatedBy: "\n") {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("// doc: ") {
                    current = (String(trimmed.dropFirst("// doc: ".count)), [])
                } else if trimmed == "// end-doc", let region = current {
                    #expect(regions[region.id] == nil, "two regions are named \(region.id) (\(name))")
                    regions[region.id] = normalised(region.lines)
                    current = nil
                } else {
                    current?.lines.append(line)
                }
            }
            #expect(current == nil, "\(name): region \(current?.id ?? "") has no // end-doc")
        }
        return regions
    }

    /// Lines without trailing spaces, the indentation they share, and blank lines at either end.
    static func normalised(_ lines: [String]) -> [String] {
        var lines = lines.map { line in
            var line = Substring(line)
            while line.last == " " { line.removeLast() }
            return String(line)
        }
        while lines.first?.isEmpty == true { lines.removeFirst() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        let indent = lines.filter { !$0.isEmpty }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return lines.map { $0.isEmpty ? $0 : String($0.dropFirst(indent)) }
    }

    @Test func everyArticleBlockIsATestedRegion() throws {
        let regions = try Self.regions()
        let blocks = try Self.articleBlocks()
        #expect(blocks.count >= 20)
        for block in blocks where !regions.values.contains(block.lines) {
            Issue.record("""
                \(block.place): this Swift block is no region of Tests/DocumentationExamplesTests (copy it there \
                between // doc: and // end-doc, in a test that runs it):
                \(block.lines.joined(separator: "\n"))
                """)
        }
    }

    @Test func everyRegionIsShownByAnArticle() throws {
        let shown = try Self.articleBlocks().map(\.lines)
        for (id, lines) in try Self.regions().sorted(by: { $0.key < $1.key }) where !shown.contains(lines) {
            Issue.record("region \(id) is in no article as it stands in the tests (an article changed or lost it)")
        }
    }

    @Test func normalisingKeepsRelativeIndentation() {
        #expect(Self.normalised(["", "    if x {  ", "        y()", "    }", ""]) == ["if x {", "    y()", "}"])
    }
}
