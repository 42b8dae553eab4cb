import Foundation
@testable import OpenCoreData
@testable import OpenCoreDataPredicates
import OpenCoreDataTesting

/// Random models built in code, using every setting a model file keeps: entities with inheritance and
/// abstract parents, attributes of every type with every option, relationships of every shape (to-one,
/// to-many, many-to-many, one-to-one, ordered, self, no inverse, transient, counts, every delete rule),
/// fetched properties, indexes, constraints, fetch request templates and configurations. Names are
/// valid identifiers, so that the models also load into a store; free text (renaming identifiers,
/// userInfo, defaults, patterns) includes characters XML must escape.
struct RandomModelGenerator {
    var rng: SeededRandom
    private var counter = 0

    init(seed: UInt64) { rng = SeededRandom(seed: seed) }

    /// The entities' classes, spelled as model files spell them (with a module, with Xcode's leading dot
    /// for the current module): classes that exist, so that loading a random model finds them.
    static let classNames = ["NSManagedObject", NSStringFromClass(RandomModelObject.self), "." + NSStringFromClass(RandomModelObject.self),
                             NSStringFromClass(OtherRandomModelObject.self)]

    /// Text with markup characters, quotes, whitespace XML would normalise, and non-ASCII letters.
    mutating func freeText() -> String {
        let pieces = ["a", "Zoo", " ", "&", "<", ">", "\"", "'", "\t", "\n", "\r\n", "é", "日本", "🦒", "$", "%@", ";", "]]>", "--", "&amp;"]
        return (0..<rng.int(1...5)).map { _ in rng.pick(pieces) }.joined()
    }

    private mutating func name(_ prefix: String) -> String {
        counter += 1
        return prefix + String(counter)
    }

    private mutating func maybe(_ p: Double = 0.3) -> Bool { rng.chance(p) }

    private mutating func userInfo() -> [AnyHashable: Any]? {
        guard maybe(0.2) else { return nil }
        var info: [AnyHashable: Any] = [:]
        for _ in 0..<rng.int(1...3) { info[freeText()] = freeText() }
        return info
    }

    private mutating func common(_ p: NSPropertyDescription) {
        p.isOptional = maybe(0.6)
        if maybe(0.15) { p.renamingIdentifier = freeText() }
        if maybe(0.1) { p.versionHashModifier = freeText() }
        p.isIndexed = maybe(0.1)
        p.isIndexedBySpotlight = maybe(0.1)
        p.userInfo = userInfo()
    }

    static let derivations = ["now()", "canonical:(title)", "lowercase:(name)", "items.@count", "owner.name", "sum:(items.price)"]
    static let predicates = [
        "name == $NAME", "price > $MIN AND price < $MAX", "name BEGINSWITH[cd] \"A\\\"b\"", "ANY items.price > 3",
        "SUBQUERY(items, $i, $i.price > 5).@count > 0", "owner == $FETCH_SOURCE", "TRUEPREDICATE",
        "date > CAST(12345.5, \"NSDate\")", "tags CONTAINS \"<&>\"", "name IN {\"x\", \"y\"}",
    ]

    /// An attribute of a random type with random options.
    mutating func attribute() -> NSAttributeDescription {
        // (Composites are NSCompositeAttributeDescriptions with elements: CompositeAttributeTests writes those.)
        let type = rng.pick(ModelFileVocabulary.attributeTypes.map(\.type).filter { $0 != .compositeAttributeType })
        let a: NSAttributeDescription
        if maybe(0.1) {
            let derived = NSDerivedAttributeDescription()
            if maybe(0.8) { derived.derivationExpression = NSExpression(format: rng.pick(Self.derivations)) }
            a = derived
        } else {
            a = NSAttributeDescription()
        }
        a.name = name("a")
        a.attributeType = type
        common(a)
        a.isTransient = type == .undefinedAttributeType || type == .objectIDAttributeType || maybe(0.1)
        a.usesScalarValueType = maybe()
        a.allowsExternalBinaryDataStorage = maybe(0.1)
        a.preservesValueInHistoryOnDeletion = maybe(0.1)
        a.allowsCloudEncryption = maybe(0.1)
        if type == .transformableAttributeType || maybe(0.05) { a.valueTransformerName = maybe(0.5) ? "NSSecureUnarchiveFromData" : freeText() }
        if maybe(0.1) { a.attributeValueClassName = rng.pick(["[String]", "NSArray", "MyModule.Color", freeText()]) }
        if maybe(0.5) { a.defaultValue = defaultValue(type) }
        if let kind = ModelFileValues.boundKind(of: type), maybe(0.4) {
            let minimum = maybe(0.6) ? bound(kind, type) : nil
            let maximum = maybe(0.6) ? bound(kind, type) : nil
            let pattern = type == .stringAttributeType && maybe(0.4) ? rng.pick(["[A-Z].*", "^\\d{3}$", "a|b", freeText().replacingOccurrences(of: "\\", with: "")]) : nil
            let (predicates, codes) = ModelFileValues.validation(kind: kind, minimum: minimum, maximum: maximum, pattern: pattern)
            a.setValidationPredicates(predicates, codes: codes)
        }
        return a
    }

    mutating func defaultValue(_ type: NSAttributeType) -> Any? {
        switch type {
        case .integer16AttributeType: return Int(Int16.random(in: .min ... .max, using: &rng))
        case .integer32AttributeType: return NSNumber(value: Int32.random(in: .min ... .max, using: &rng))
        case .integer64AttributeType: return Int64(bitPattern: rng.next())
        case .decimalAttributeType: return rng.pick([Decimal(string: "19.99")!, Decimal(-3), Decimal(string: "12345678901234.5678")!])
        case .doubleAttributeType: return rng.pick([0.1, -2.5e-7, 1e300, Double(rng.int(-1000...1000)), 0.0])
        case .floatAttributeType: return NSNumber(value: Float(rng.int(-100...100)) / 7)
        case .stringAttributeType: return maybe(0.2) ? "" : freeText()
        case .booleanAttributeType: return maybe(0.5)
        case .dateAttributeType: return Date(timeIntervalSinceReferenceDate: rng.pick([0, -725882400, 12345.678, 1e9]))
        case .UUIDAttributeType: return UUID(uuid: (UInt8(rng.int(0...255)), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, UInt8(rng.int(0...255))))
        case .URIAttributeType: return URL(string: rng.pick(["https://example.org/a?b=c&d=e", "file:///tmp/x", "mailto:a@b.c"]))
        default: return nil
        }
    }

    mutating func bound(_ kind: ModelFileValues.BoundKind, _ type: NSAttributeType) -> Value {
        switch kind {
        case .length: return .int(Int64(rng.int(0...500)))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(rng.int(-1_000_000...1_000_000)) / 4))
        case .number:
            if [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType].contains(type) {
                return .int(Int64(rng.int(-30000...30000)))
            }
            return .double(Double(rng.int(-100_000...100_000)) / 8)
        }
    }

    /// A random model of `1...6` entities.
    mutating func model() -> NSManagedObjectModel {
        var entities: [NSEntityDescription] = []
        for _ in 0..<rng.int(1...6) {
            let e = NSEntityDescription()
            e.name = name("E")
            e.managedObjectClassName = rng.pick(Self.classNames)
            if maybe(0.2) { e.renamingIdentifier = freeText() }
            if maybe(0.1) { e.versionHashModifier = freeText() }
            if maybe(0.3) { e.codeGenerationType = rng.pick(["class", "category"]) }
            e.userInfo = userInfo()
            e.properties = (0..<rng.int(0...6)).map { _ in attribute() }
            if !entities.isEmpty, maybe(0.3) {
                let parent = rng.pick(entities)
                parent.subentities = parent.subentities + [e]
                if maybe(0.5) { parent.isAbstract = true }
            }
            entities.append(e)
        }
        for _ in 0..<rng.int(0...5) { addRelationship(among: entities) }
        for e in entities {
            if maybe(0.2) {
                let f = NSFetchedPropertyDescription()
                f.name = name("f")
                common(f)
                f.isTransient = false
                let request = NSFetchRequest<NSFetchRequestResult>()
                request.entity = rng.pick(entities)
                if maybe(0.8) { request.predicate = NSPredicate(format: rng.pick(Self.predicates)) }
                f.fetchRequest = request
                e.properties = e.properties.filter { $0.entity === e } + [f]
            }
            let attributes = e.properties.filter { $0 is NSAttributeDescription }
            if !attributes.isEmpty, maybe(0.3) {
                let elements: [NSFetchIndexElementDescription] = (0..<rng.int(1...3)).map { _ in
                    if maybe(0.2) {
                        let description = NSExpressionDescription()
                        description.expression = NSExpression(format: rng.pick(["price", "name", "lowercase:(name)"]))
                        description.expressionResultType = rng.pick([.stringAttributeType, .doubleAttributeType, .integer64AttributeType])
                        description.name = description.expression!.description
                        let element = NSFetchIndexElementDescription(property: description, collationType: rng.pick([.binary, .rTree]))
                        element.isAscending = maybe(0.5)
                        return element
                    }
                    let element = NSFetchIndexElementDescription(property: rng.pick(attributes), collationType: rng.pick([.binary, .rTree]))
                    element.isAscending = maybe(0.7)
                    return element
                }
                e.indexes = [NSFetchIndexDescription(name: name("index"), elements: elements)]
            }
            if !attributes.isEmpty, maybe(0.2) {
                e.uniquenessConstraints = [(0..<rng.int(1...2)).map { _ in rng.pick(attributes).name }]
            }
        }
        let model = NSManagedObjectModel(entities: entities)
        if maybe(0.3) { model.versionIdentifiers = [freeText()] }
        for _ in 0..<rng.int(0...3) {
            let request = NSFetchRequest<NSFetchRequestResult>()
            request.entity = rng.pick(entities)
            if maybe(0.8) { request.predicate = NSPredicate(format: rng.pick(Self.predicates)) }
            if maybe(0.3) { request.fetchLimit = rng.int(1...100) }
            if maybe(0.3) { request.fetchBatchSize = rng.int(1...50) }
            request.resultType = rng.pick([.managedObjectResultType, .managedObjectIDResultType, .dictionaryResultType, .countResultType])
            request.includesSubentities = maybe(0.7)
            request.includesPropertyValues = maybe(0.7)
            request.includesPendingChanges = maybe(0.7)
            request.returnsObjectsAsFaults = maybe(0.7)
            request.returnsDistinctResults = maybe(0.2)
            model.setFetchRequestTemplate(request, forName: name("Template"))
        }
        for _ in 0..<rng.int(0...2) {
            let members = entities.filter { _ in maybe(0.5) }
            model.setEntities(members, forConfigurationName: name("Config"))
        }
        return model
    }

    /// One relationship, or a pair of inverses, of a random shape between random entities.
    mutating func addRelationship(among entities: [NSEntityDescription]) {
        let source = rng.pick(entities), destination = rng.pick(entities)
        func make(_ toMany: Bool) -> NSRelationshipDescription {
            let r = NSRelationshipDescription()
            r.name = name("r")
            common(r)
            r.isTransient = maybe(0.05)
            r.maxCount = toMany ? rng.pick([0, 0, 0, 2, 5]) : 1
            r.minCount = maybe(0.2) ? min(rng.int(0...2), r.maxCount == 0 ? 2 : r.maxCount) : 0
            r.isOrdered = toMany && maybe(0.3)
            r.deleteRule = rng.pick([.nullifyDeleteRule, .cascadeDeleteRule, .denyDeleteRule, .noActionDeleteRule])
            return r
        }
        let forward = make(maybe(0.5))
        forward.destinationEntity = destination
        source.properties = source.properties.filter { $0.entity === source } + [forward]
        guard maybe(0.75) else { return }  // no inverse
        if source === destination, maybe(0.3) {
            forward.inverseRelationship = forward  // its own inverse (friends)
            return
        }
        let backward = make(maybe(0.5))
        backward.destinationEntity = source
        destination.properties = destination.properties.filter { $0.entity === destination } + [backward]
        forward.inverseRelationship = backward
        backward.inverseRelationship = forward
    }
}

/// The class of some random models' entities (any entity may have it: it declares no properties).
final class RandomModelObject: NSManagedObject {}
/// The class of other random models' entities.
final class OtherRandomModelObject: NSManagedObject {}
