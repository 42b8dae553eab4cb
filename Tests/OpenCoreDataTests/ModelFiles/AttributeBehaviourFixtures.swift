import Foundation
@testable import OpenCoreData

/// A model in Xcode's format using derived, transformable and external-storage attributes and fetch
/// indexes (AttributeBehaviourTests).
enum AttributeBehaviourFixtures {
    static let contents = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" systemVersion="23G93" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
        <entity name="Animal" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String" indexed="YES"/>
            <attribute name="classificationOrder" optional="YES" attributeType="Integer 32" derived="YES" derivationExpression="classification.order" usesScalarValueType="YES"/>
            <attribute name="zooCount" optional="YES" attributeType="Integer 32" derived="YES" derivationExpression="zoos.@count" usesScalarValueType="YES"/>
            <attribute name="photo" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
            <attribute name="tags" optional="YES" attributeType="Transformable" customClassName="[String]"/>
            <attribute name="colour" optional="YES" attributeType="Transformable" valueTransformerName="OCDTestColourTransformer" customClassName="TestColour"/>
            <relationship name="classification" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Classification" inverseName="animals" inverseEntity="Classification"/>
            <relationship name="zoos" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Zoo" inverseName="animals" inverseEntity="Zoo"/>
            <fetchIndex name="byName">
                <fetchIndexElement property="name" type="Binary" order="ascending"/>
            </fetchIndex>
            <fetchIndex name="byClassificationAndName">
                <fetchIndexElement property="classification" type="Binary" order="ascending"/>
                <fetchIndexElement property="name" type="Binary" order="descending"/>
            </fetchIndex>
        </entity>
        <entity name="Classification" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="order" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
            <attribute name="searchName" optional="YES" attributeType="String" derived="YES" derivationExpression="canonical:(name)"/>
            <attribute name="animalCount" attributeType="Integer 32" derived="YES" derivationExpression="animals.@count" usesScalarValueType="YES"/>
            <attribute name="modified" optional="YES" attributeType="Date" derived="YES" derivationExpression="now()" usesScalarValueType="NO"/>
            <relationship name="animals" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Animal" inverseName="classification" inverseEntity="Animal"/>
        </entity>
        <entity name="Zoo" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="animals" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Animal" inverseName="zoos" inverseEntity="Animal"/>
        </entity>
    </model>
    """

    static func model() throws -> NSManagedObjectModel {
        try NSManagedObjectModel(modelFileContents: Data(contents.utf8))
    }
}

/// A value of the app's own type, made storable by a custom transformer.
struct TestColour: Hashable {
    var red: UInt8, green: UInt8, blue: UInt8
}

/// `TestColour` ⇄ three bytes; refuses anything else (returns nil).
final class TestColourTransformer: ValueTransformer, @unchecked Sendable {
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? {
        guard let c = value as? TestColour else { return nil }
        return Data([c.red, c.green, c.blue])
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let d = value as? Data, d.count == 3 else { return nil }
        return TestColour(red: d[d.startIndex], green: d[d.startIndex + 1], blue: d[d.startIndex + 2])
    }
    static func register() {
        ValueTransformer.setValueTransformer(TestColourTransformer(), forName: NSValueTransformerName("OCDTestColourTransformer"))
    }
}
