import Foundation

/// Checks a keyed archive before swift-corelibs-foundation's `NSKeyedUnarchiver` sees it. On Linux that
/// unarchiver traps (`fatalError`) where Darwin's returns an error: a class outside the allowed list, a class
/// that does not adopt `NSSecureCoding`, a reference cycle (unbounded recursion), a Foundation object whose
/// keys have the wrong types (forced casts). So the archive is read as a property list first and walked from
/// its root: every object must be of a class expected where it is referenced (a predicate where a predicate
/// belongs, a value where a constant belongs), every reference in range, no cycles, at most
/// ``maximumDepth`` levels, ``maximumObjects`` objects and ``maximumBytes`` bytes.
package struct ArchiveValidator {
    package static let maximumDepth = 256
    package static let maximumObjects = 100_000
    package static let maximumBytes = 16 << 20

    package enum Kind: Int { case predicate, expression, predicateOperator, sortDescriptor, value, string, expressionOrString }

    /// The classes each kind of object may be, by the names an archive gives them: this module's (what
    /// Foundation's archiver writes on Linux) and Apple's (`AppleClassTable`).
    static let ours: [Kind: [String: AnyClass]] = {
        var table: [Kind: [String: AnyClass]] = [.predicate: [:], .expression: [:], .predicateOperator: [:], .sortDescriptor: [:]]
        let classes: [AnyClass] = [NSComparisonPredicate.self, NSCompoundPredicate.self, NSTruePredicate.self, NSFalsePredicate.self,
                                   NSExpression.self, PredicateOperatorArchive.self, NSSortDescriptor.self]
        for (name, cls): (String, AnyClass) in classes.map({ (NSStringFromClass($0), $0) }) + AppleClassTable.decodingClasses {
            let kind: Kind = cls is NSPredicate.Type ? .predicate : cls is NSExpression.Type ? .expression
                : cls is NSSortDescriptor.Type ? .sortDescriptor : .predicateOperator
            table[kind]![name] = cls
        }
        return table
    }()

    static let scalarKeys: Set<String> = ["NSExpressionType", "NSOperatorType", "NSModifier", "NSOptions", "NSNegate",
                                          "NSCompoundPredicateType", "NSAscending", "NSReverseNullOrder", "OCDDecimal", "NSVariant", "NSPosition",
                                          "NSFlags"]
    static let keyKinds: [String: Kind] = [
        "NSLeftExpression": .expression, "NSRightExpression": .expression, "NSOperand": .expression,
        "NSTrueExpression": .expression, "NSFalseExpression": .expression, "NSExpression": .expression,
        "NSPredicate": .predicate, "NSSubpredicate": .predicate, "NSPredicateOperator": .predicateOperator,
        "NSConstantValue": .value, "NSKeyPath": .string, "NSSelectorName": .string, "NSKey": .string,
        "NSSelector": .string, "OCDSymbol": .string, "NSVariable": .expressionOrString,
    ]
    static let arrayKeys: [String: Kind] = ["NSSubpredicates": .predicate, "NSArguments": .expression, "NSCollection": .expression]

    let objects: [Any]
    var state: [Int: Bool] = [:] // false: being visited, true: done
    var visited = 0

    /// Validates `data`; throws ``PredicateArchivingError`` for anything the decoder must not see.
    static func validate(_ data: Data, root kind: Kind) throws {
        guard data.count <= maximumBytes else { throw PredicateArchivingError("the archive is larger than \(maximumBytes) bytes") }
        do { try BinaryPropertyListScreen.check(Array(data)) } catch {
            throw PredicateArchivingError("the archive is not a keyed archive's property list: \(error)")
        }
        let plist: Any
        do { plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) } catch {
            throw PredicateArchivingError("the archive is not a property list")
        }
        guard let top = plist as? [String: Any], top["$archiver"] as? String == "NSKeyedArchiver",
              top["$version"] is NSNumber,
              let objects = top["$objects"] as? [Any], let topObjects = top["$top"] as? [String: Any],
              let root = uid(topObjects["root"]) else {
            throw PredicateArchivingError("the archive is not a keyed archive with a root object")
        }
        guard objects.count <= maximumObjects else { throw PredicateArchivingError("the archive holds more than \(maximumObjects) objects") }
        var validator = ArchiveValidator(objects: objects)
        try validator.check(root, as: kind, depth: 0)
    }

    static func corrupt(_ message: String) -> PredicateArchivingError {
        PredicateArchivingError("the archive is corrupt or not allowed: \(message)")
    }

    /// The class name of the object at `index` (a dictionary with `$class`), or `nil` for a plain value.
    func className(_ object: [String: Any]) throws -> String {
        guard let ref = Self.uid(object["$class"]), ref > 0, ref < objects.count,
              let classDict = objects[ref] as? [String: Any], let name = classDict["$classname"] as? String else {
            throw Self.corrupt("an object without a valid class")
        }
        return name
    }

    mutating func check(_ index: Int, as kind: Kind, depth: Int) throws {
        guard index >= 0, index < objects.count else { throw Self.corrupt("reference \(index) out of range") }
        guard depth <= Self.maximumDepth else { throw Self.corrupt("nested more than \(Self.maximumDepth) levels") }
        if index == 0 { return } // $null
        // An object shared by several references is checked once for each kind it is read as.
        let visit = index * 8 + kind.rawValue
        if state[visit] == true { return }
        if state[index * 8 + 7] == false { throw Self.corrupt("a reference cycle at object \(index)") }
        visited += 1
        guard visited <= Self.maximumObjects else { throw Self.corrupt("too many objects") }
        state[index * 8 + 7] = false
        defer { state[index * 8 + 7] = nil; state[visit] = true }
        let object = objects[index]
        guard let dict = object as? [String: Any] else {
            // An inline value: a string, number, data or date of the property list.
            switch kind {
            case .string, .expressionOrString:
                guard object is String else { throw Self.corrupt("object \(index) should be a string") }
            case .value:
                guard object is String || object is NSNumber || object is Data else { throw Self.corrupt("object \(index) is not a value") }
            default: throw Self.corrupt("object \(index) should be an object")
            }
            return
        }
        let name = try className(dict)
        switch kind {
        case .value:
            try checkFoundationValue(dict, name: name, depth: depth)
        case .string:
            throw Self.corrupt("object \(index) should be a string")
        case .expressionOrString, .predicate, .expression, .predicateOperator, .sortDescriptor:
            let expected: Kind = kind == .expressionOrString ? .expression : kind
            guard Self.ours[expected]?[name] != nil else { throw Self.corrupt("class \(name) is not allowed here") }
            for (key, value) in dict where key != "$class" {
                if Self.scalarKeys.contains(key) {
                    guard value is NSNumber else { throw Self.corrupt("\(key) is not a number") }
                } else if let k = Self.keyKinds[key] {
                    guard let ref = Self.uid(value) else { throw Self.corrupt("\(key) is not a reference") }
                    try check(ref, as: k, depth: depth + 1)
                } else if let k = Self.arrayKeys[key] {
                    guard let ref = Self.uid(value) else { throw Self.corrupt("\(key) is not a reference") }
                    try checkArray(ref, of: k, depth: depth + 1)
                }
                // Other keys are never read.
            }
        }
    }

    /// An `NSArray` whose elements are of `kind`.
    mutating func checkArray(_ index: Int, of kind: Kind, depth: Int) throws {
        guard index > 0, index < objects.count, let dict = objects[index] as? [String: Any] else {
            throw Self.corrupt("an array is missing")
        }
        let name = try className(dict)
        guard name == "NSArray" || name == "NSMutableArray" else { throw Self.corrupt("\(name) where an array belongs") }
        try checkElements(dict, of: kind, depth: depth)
    }

    mutating func checkElements(_ dict: [String: Any], of kind: Kind, depth: Int) throws {
        guard let refs = dict["NS.objects"] as? [Any], refs.count <= Self.maximumObjects else { throw Self.corrupt("NS.objects is missing") }
        for ref in refs {
            guard let i = Self.uid(ref), i > 0 else { throw Self.corrupt("an element is not a reference") }
            try check(i, as: kind, depth: depth + 1)
        }
    }

    /// The Foundation classes a constant may be made of, with the keys swift-corelibs-foundation reads.
    mutating func checkFoundationValue(_ dict: [String: Any], name: String, depth: Int) throws {
        switch name {
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet":
            try checkElements(dict, of: .value, depth: depth)
        case "NSDate":
            guard dict["NS.time"] is NSNumber else { throw Self.corrupt("NSDate without NS.time") }
        case "NSUUID":
            guard let bytes = dict["NS.uuidbytes"] as? Data, bytes.count == 16 else { throw Self.corrupt("NSUUID without 16 bytes") }
        case "NSURL":
            guard Self.uid(dict["NS.base"]) == 0, let r = Self.uid(dict["NS.relative"]), r > 0, r < objects.count,
                  let text = objects[r] as? String, URL(string: text) != nil else { throw Self.corrupt("an NSURL that is not absolute") }
        case "NSString", "NSMutableString":
            guard dict["NS.string"] is String else { throw Self.corrupt("NSString without NS.string") }
        case "NSData", "NSMutableData":
            guard dict["NS.data"] is Data else { throw Self.corrupt("NSData without NS.data") }
        default:
            throw Self.corrupt("class \(name) is not allowed in a constant")
        }
    }

    /// The index a `CF$UID` reference holds (Foundation's `_NSKeyedArchiverUID`, read through `Mirror`,
    /// because its value is not public on Linux).
    package static func uid(_ value: Any?) -> Int? {
        guard let value, String(describing: type(of: value)) == "_NSKeyedArchiverUID" else { return nil }
        for child in Mirror(reflecting: value).children where child.label == "value" {
            if let v = child.value as? UInt32 { return Int(v) }
        }
        return nil
    }
}

extension ArchiveValidator {
    /// The root a class of this library's archived objects is read as: `.predicate` for `NSPredicate` and
    /// its subclasses, `.expression`, `.sortDescriptor`; `nil` for other classes.
    package static func rootKind(of cls: AnyClass) -> Kind? {
        if cls is NSPredicate.Type { return .predicate }
        if cls is NSExpression.Type { return .expression }
        if cls is NSSortDescriptor.Type { return .sortDescriptor }
        return nil
    }

    /// The root a class named in an archive (Apple's name or this module's) is read as, or `nil`.
    package static func rootKind(ofClassNamed name: String) -> Kind? {
        [Kind.predicate, .expression, .sortDescriptor].first { ours[$0]?[name] != nil }
    }

    /// Validates `data` and decodes its root as `kind` (see ``unarchive(_:root:as:)``), for callers that
    /// hold the class at run time (transformable attribute values, `NSSecureUnarchiveFromDataTransformer`).
    package static func unarchive(_ data: Data, root kind: Kind) throws -> NSObject? {
        try unarchive(data, root: kind, as: NSObject.self)
    }

    /// Validates, then decodes with Foundation's unarchiver (secure coding, Apple's class names mapped to
    /// this library's classes by ``AppleClassTable/decodingClasses``), returning an error instead of trapping.
    static func unarchive<T: NSObject>(_ data: Data, root kind: Kind, as cls: T.Type) throws -> T? {
        try validate(data, root: kind)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = true
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        for entry in AppleClassTable.decodingClasses { unarchiver.setClass(entry.1, forClassName: entry.0) }
        let allowed: [AnyClass] = Array(Set((ours[kind] ?? [:]).values.map { ObjectIdentifier($0) })).compactMap { id in
            (ours[kind] ?? [:]).values.first { ObjectIdentifier($0) == id }
        }
        let object = unarchiver.decodeObject(of: allowed, forKey: NSKeyedArchiveRootObjectKey)
        unarchiver.finishDecoding()
        if let error = unarchiver.error { throw error }
        guard let object else { return nil }
        guard let typed = object as? T else {
            throw PredicateArchivingError("the archive holds \(type(of: object)), not \(T.self)")
        }
        return typed
    }
}

extension NSKeyedUnarchiver {
    /// Mirrors `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)` for this library's predicates
    /// (`NSPredicate`, `NSComparisonPredicate`, `NSCompoundPredicate`). The archive is checked before
    /// Foundation decodes it (``PredicateArchivingError`` for a corrupt, truncated or hostile archive:
    /// unexpected classes, cycles, deep nesting, huge counts), Apple's class names (`NSComparisonPredicate`,
    /// `NSKeyPathExpression`, …) decode as this library's classes, and the result refuses evaluation until
    /// `allowEvaluation()`.
    public static func unarchivedObject<T: NSPredicate>(ofClass cls: T.Type, from data: Data) throws -> T? {
        try ArchiveValidator.unarchive(data, root: .predicate, as: cls)
    }

    /// Mirrors `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)` for this library's `NSExpression`, with
    /// the checks of the predicate form.
    public static func unarchivedObject<T: NSExpression>(ofClass cls: T.Type, from data: Data) throws -> T? {
        try ArchiveValidator.unarchive(data, root: .expression, as: cls)
    }

    /// Mirrors `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)` for this library's `NSSortDescriptor`,
    /// with the checks of the predicate form.
    public static func unarchivedObject<T: NSSortDescriptor>(ofClass cls: T.Type, from data: Data) throws -> T? {
        try ArchiveValidator.unarchive(data, root: .sortDescriptor, as: cls)
    }
}
