import Foundation
@testable import OpenCoreData

/// Model files written by hand in Xcode's format, and a scratch folder to put them in.
enum ModelFileFixtures {
    /// A library model using every element and attribute the reader knows.
    static let library = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="v7">
        <entity name="Item" representedClassName=".Item" isAbstract="YES" elementID="OldItem" versionHashModifier="2" codeGenerationType="class" syncable="YES">
            <attribute name="title" attributeType="String" minValueString="1" maxValueString="80" regularExpressionString="[A-Z].*" defaultValueString="Untitled" spotlightIndexingEnabled="YES"/>
            <attribute name="created" optional="YES" attributeType="Date" defaultDateTimeInterval="-725882400" minDateTimeInterval="-978307200" maxDateTimeInterval="1000000000" usesScalarValueType="NO"/>
            <attribute name="identifier" attributeType="UUID" defaultValueString="E621E1F8-C36C-495A-93FC-0C247A3E6E5F" usesScalarValueType="NO"/>
            <attribute name="canonicalTitle" optional="YES" attributeType="String" derived="YES" derivationExpression="canonical:(title)"/>
            <userInfo>
                <entry key="owner" value="catalog"/>
            </userInfo>
        </entity>
        <entity name="Book" representedClassName="Library.Book" parentEntity="Item" syncable="YES" codeGenerationType="category">
            <attribute name="pages" attributeType="Integer 16" minValueString="1" maxValueString="5000" defaultValueString="100" usesScalarValueType="YES"/>
            <attribute name="isbn" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES" indexed="YES"/>
            <attribute name="copies" optional="YES" attributeType="Integer 32" defaultValueString="-3" usesScalarValueType="NO" elementID="count" versionHashModifier="m">
                <userInfo>
                    <entry key="unit" value="copies &amp; prints"/>
                </userInfo>
            </attribute>
            <attribute name="rating" optional="YES" attributeType="Double" minValueString="0" maxValueString="5.5" defaultValueString="2.5" usesScalarValueType="YES"/>
            <attribute name="weight" optional="YES" attributeType="Float" defaultValueString="0.25" usesScalarValueType="NO"/>
            <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="19.99"/>
            <attribute name="inPrint" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>
            <attribute name="cover" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES" preserveAfterDeletion="YES"/>
            <attribute name="tags" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="[String]" allowsCloudEncryption="YES"/>
            <attribute name="homepage" optional="YES" attributeType="URI" defaultValueString="https://example.org/book"/>
            <attribute name="chapterCount" optional="YES" attributeType="Integer 32" derived="YES" derivationExpression="chapters.@count" usesScalarValueType="YES"/>
            <attribute name="scratch" optional="YES" transient="YES" attributeType="Undefined"/>
            <attribute name="source" optional="YES" transient="YES" attributeType="ObjectID"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
            <relationship name="chapters" toMany="YES" minCount="1" maxCount="40" deletionRule="Cascade" ordered="YES" destinationEntity="Chapter" inverseName="book" inverseEntity="Chapter"/>
            <relationship name="shelves" optional="YES" toMany="YES" deletionRule="Deny" destinationEntity="Shelf" inverseName="books" inverseEntity="Shelf" elementID="racks"/>
            <relationship name="related" optional="YES" toMany="YES" deletionRule="No Action" destinationEntity="Book"/>
            <fetchedProperty name="sameAuthor" optional="YES">
                <fetchRequest name="fetchedPropertyFetchRequest" entity="Book" predicateString="author == $FETCH_SOURCE.author AND SELF != $FETCH_SOURCE"/>
            </fetchedProperty>
            <fetchIndex name="byTitle">
                <fetchIndexElement property="title" type="Binary" order="ascending"/>
                <fetchIndexElement property="pages" type="Binary" order="descending"/>
            </fetchIndex>
            <fetchIndex name="byRating">
                <fetchIndexElement expression="rating" expressionType="Double" type="RTree" order="ascending"/>
            </fetchIndex>
            <uniquenessConstraints>
                <uniquenessConstraint>
                    <constraint value="isbn"/>
                </uniquenessConstraint>
                <uniquenessConstraint>
                    <constraint value="title"/>
                    <constraint value="author"/>
                </uniquenessConstraint>
            </uniquenessConstraints>
        </entity>
        <entity name="Author" representedClassName="Author" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
            <compoundIndexes>
                <compoundIndex>
                    <index value="name"/>
                </compoundIndex>
            </compoundIndexes>
        </entity>
        <entity name="Chapter" representedClassName="Chapter" syncable="YES">
            <attribute name="number" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
            <relationship name="book" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="chapters" inverseEntity="Book"/>
        </entity>
        <entity name="Shelf" representedClassName="Shelf" syncable="YES">
            <attribute name="label" optional="YES" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="shelves" inverseEntity="Book"/>
        </entity>
        <fetchRequest name="LongBooks" entity="Book" predicateString="pages &gt; $MIN_PAGES AND title BEGINSWITH[c] &quot;A&quot;" fetchLimit="10" fetchBatchSize="20" resultType="2" includeSubentities="YES" returnDistinctResults="YES"/>
        <fetchRequest name="AllAuthors" entity="Author"/>
        <configuration name="Local">
            <memberEntity name="Item"/>
            <memberEntity name="Book"/>
            <memberEntity name="Chapter"/>
        </configuration>
        <configuration name="Cloud" usedWithCloudKit="YES">
            <memberEntity name="Author"/>
            <memberEntity name="Shelf"/>
        </configuration>
        <elements>
            <element name="Book" positionX="-63" positionY="-18" width="128" height="344"/>
        </elements>
    </model>
    """

    /// ``library`` with `NSManagedObject` as every entity's class, for tests that load it into a store but
    /// do not look its classes up (the library's `Library.Book`, `Author`… exist nowhere).
    static var libraryOfPlainObjects: String {
        library.replacing(/representedClassName="[^"]*"/, with: #"representedClassName="NSManagedObject""#)
    }

    /// A two-entity model in the smallest form Xcode writes.
    static func small(attribute: String = "name", type: String = "String") -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Person" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="\(attribute)" optional="YES" attributeType="\(type)"/>
            </entity>
        </model>
        """
    }

    /// `.xccurrentversion` naming `version` (a folder name such as `"Zoo 2.xcdatamodel"`).
    static func currentVersion(_ version: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>_XCCurrentVersionName</key>
        \t<string>\(version)</string>
        </dict>
        </plist>
        """
    }
}

/// A scratch folder for model files, removed by `cleanUp()`.
struct ModelFolder {
    let directory: URL

    init() {
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("ocd-model-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    /// Writes `contents` as `name.xcdatamodel/contents` (under `parent`, a path relative to the folder).
    @discardableResult
    func version(_ name: String, contents: String, in parent: String? = nil) throws -> URL {
        var folder = directory
        if let parent { folder.appendPathComponent(parent) }
        folder.appendPathComponent(name + ".xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
        return folder
    }

    /// A `.xcdatamodeld` with the given versions (name → contents) and, unless `nil`, a `.xccurrentversion`.
    func bundle(_ name: String, versions: [(String, String)], current: String?) throws -> URL {
        let bundle = directory.appendingPathComponent(name + ".xcdatamodeld")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        for (version, contents) in versions { try self.version(version, contents: contents, in: name + ".xcdatamodeld") }
        if let current {
            try Data(ModelFileFixtures.currentVersion(current).utf8).write(to: bundle.appendingPathComponent(".xccurrentversion"))
        }
        return bundle
    }
}
