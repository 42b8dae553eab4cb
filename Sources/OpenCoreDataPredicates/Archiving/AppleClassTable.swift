import Foundation

/// The classes Apple's Foundation archives predicates, expressions and sort descriptors as, and the
/// rewrite that gives an archive of this module's objects Apple's class table.
///
/// swift-corelibs-foundation's `NSKeyedArchiver` names an object's class by its Swift name
/// (`OpenCoreDataPredicates.NSComparisonPredicate`), and its `setClassName(_:for:)` never applies
/// (docs/Predicates.md). An archive's class table is the `$objects` entries that are class dictionaries,
/// `{$classname, $classes}`, which objects name by reference (`$class`). ``applesClassNames(_:)`` rewrites
/// it after encoding: each object of this module's classes gets the dictionary of the Apple class that
/// Darwin's Foundation would have written for it — one dictionary per class, as Darwin writes them, with
/// Darwin's `$classes` chain — chosen by the object's own keys where one of our classes stands for several
/// of Apple's (`NSExpressionType` and `NSSelectorName` for expressions, `NSOperatorType` for the
/// operator). Nothing else in the archive changes. Reading goes the other way by ``decodingClasses``, the
/// unarchiver's own class mapping (Foundation on Linux honours an unarchiver's `setClass(_:forClassName:)`),
/// so an archive from outside is never rewritten before it is checked.
package enum AppleClassTable {
    /// Each Apple class's superclass, up to `NSObject` (Darwin's `$classes` chains, as its archives write
    /// them: `NSKeyPathExpression` is an `NSFunctionExpression`, `NSLikePredicateOperator` an
    /// `NSMatchingPredicateOperator`, which is an `NSStringPredicateOperator`, as `NSSubstringPredicateOperator` is).
    static let superclass: [String: String] = {
        var table: [String: String] = [
            "NSPredicate": "NSObject", "NSExpression": "NSObject", "NSPredicateOperator": "NSObject", "NSSortDescriptor": "NSObject",
            "NSKeyPathExpression": "NSFunctionExpression", "NSStringPredicateOperator": "NSPredicateOperator",
            "NSMatchingPredicateOperator": "NSStringPredicateOperator", "NSLikePredicateOperator": "NSMatchingPredicateOperator",
            "NSSubstringPredicateOperator": "NSStringPredicateOperator",
        ]
        for p in ["NSComparisonPredicate", "NSCompoundPredicate", "NSTruePredicate", "NSFalsePredicate"] { table[p] = "NSPredicate" }
        for e in ["NSConstantValueExpression", "NSSelfExpression", "NSVariableExpression", "NSFunctionExpression",
                  "NSKeyPathSpecifierExpression", "NSSetExpression", "NSSubqueryExpression", "NSAggregateExpression",
                  "NSAnyKeyExpression", "NSTernaryExpression"] { table[e] = "NSExpression" }
        for o in ["NSComparisonPredicateOperator", "NSEqualityPredicateOperator", "NSInPredicateOperator",
                  "NSBetweenPredicateOperator", "NSCustomPredicateOperator"] { table[o] = "NSPredicateOperator" }
        return table
    }()

    /// Darwin's `$classes` of an Apple class: the class, its superclasses, `NSObject`.
    static func chain(_ name: String) -> [String] {
        var chain = [name]
        while let next = superclass[chain.last!] { chain.append(next) }
        return chain
    }

    /// The Apple class of an operator object of type `type` (Darwin's `_newOperatorWithType:…`).
    static func operatorClass(_ type: Int64) -> String? {
        switch type {
        case 0...3: return "NSComparisonPredicateOperator"
        case 4, 5: return "NSEqualityPredicateOperator"
        case 6: return "NSMatchingPredicateOperator"
        case 7: return "NSLikePredicateOperator"
        case 8, 9: return "NSSubstringPredicateOperator"
        case 10, 99: return "NSInPredicateOperator"
        case 11: return "NSCustomPredicateOperator"
        case 100: return "NSBetweenPredicateOperator"
        default: return nil
        }
    }

    /// The Apple class of an expression of type `type`: a function expression calling `valueForKey:` or
    /// `valueForKeyPath:` is Darwin's `NSKeyPathExpression` (type 3 on `SELF`, 4 on another operand).
    static func expressionClass(_ type: Int64, selector: String?) -> String? {
        switch type {
        case 0: return "NSConstantValueExpression"
        case 1: return "NSSelfExpression"
        case 2: return "NSVariableExpression"
        case 3: return "NSKeyPathExpression"
        case 4: return selector == "valueForKey:" || selector == "valueForKeyPath:" ? "NSKeyPathExpression" : "NSFunctionExpression"
        case 5, 6, 7: return "NSSetExpression"
        case 10: return "NSKeyPathSpecifierExpression"
        case 13: return "NSSubqueryExpression"
        case 14: return "NSAggregateExpression"
        case 15: return "NSAnyKeyExpression"
        case 20: return "NSTernaryExpression"
        default: return nil
        }
    }

    /// This module's archived classes, by the name swift-corelibs-foundation writes for them.
    enum Ours { case predicate(String), operatorObject, expression, sortDescriptor }
    static let ours: [String: Ours] = [
        NSStringFromClass(NSComparisonPredicate.self): .predicate("NSComparisonPredicate"),
        NSStringFromClass(NSCompoundPredicate.self): .predicate("NSCompoundPredicate"),
        NSStringFromClass(NSTruePredicate.self): .predicate("NSTruePredicate"),
        NSStringFromClass(NSFalsePredicate.self): .predicate("NSFalsePredicate"),
        NSStringFromClass(PredicateOperatorArchive.self): .operatorObject,
        NSStringFromClass(NSExpression.self): .expression,
        NSStringFromClass(NSSortDescriptor.self): .sortDescriptor,
    ]

    /// Apple's class names and the classes of this module they decode as (for an unarchiver's
    /// `setClass(_:forClassName:)`).
    static let decodingClasses: [(String, AnyClass)] = {
        superclass.keys.sorted().compactMap { name -> (String, AnyClass)? in
            switch name {
            case "NSComparisonPredicate": return (name, NSComparisonPredicate.self)
            case "NSCompoundPredicate": return (name, NSCompoundPredicate.self)
            case "NSTruePredicate": return (name, NSTruePredicate.self)
            case "NSFalsePredicate": return (name, NSFalsePredicate.self)
            case "NSSortDescriptor": return (name, NSSortDescriptor.self)
            case _ where name.hasSuffix("PredicateOperator") && name != "NSPredicateOperator" && name != "NSStringPredicateOperator":
                return (name, PredicateOperatorArchive.self)
            case _ where name.hasSuffix("Expression") && name != "NSExpression":
                return (name, NSExpression.self)
            default: return nil
            }
        }
    }()

    /// The class of this module an Apple class name stands for, or `nil`.
    package static func decodingClass(named name: String) -> AnyClass? {
        decodingClasses.first { $0.0 == name }?.1
    }

    /// Whether `cls` is one of the classes archived predicates and expressions are made of (a predicate,
    /// an expression, an operator object).
    package static func isPredicatePart(_ cls: AnyClass) -> Bool {
        cls is NSPredicate.Type || cls is NSExpression.Type || cls == PredicateOperatorArchive.self
    }

    /// Maps Apple's class names to this module's classes in `unarchiver` when `data` names any of them (a
    /// predicate inside an object of another class: Foundation on Linux would make its own, unrelated
    /// `NSComparisonPredicate` of the name).
    package static func mapApplesClasses(of data: Data, in unarchiver: NSKeyedUnarchiver) {
        guard ["Predicate", "Expression", "NSSortDescriptor"].contains(where: { data.range(of: Data($0.utf8)) != nil }) else { return }
        for entry in decodingClasses { unarchiver.setClass(entry.1, forClassName: entry.0) }
    }

    /// The Apple class of an archived object of one of our classes, by its keys where that takes them.
    static func appleClass(_ kind: Ours, _ object: [String: PropertyListTree], _ objects: [PropertyListTree]) -> String? {
        func integer(_ key: String) -> Int64 {
            if case .integer(let i)? = object[key] { return i }
            return -1
        }
        switch kind {
        case .predicate(let name): return name
        case .operatorObject: return operatorClass(integer("NSOperatorType"))
        case .expression:
            var selector: String?
            if case .uid(let i)? = object["NSSelectorName"], i < objects.count, case .string(let s) = objects[i] { selector = s }
            return expressionClass(integer("NSExpressionType"), selector: selector)
        case .sortDescriptor: return "NSSortDescriptor"
        }
    }

    /// `data`, a keyed archive, with Apple's class table for the objects of this module's classes (see the
    /// type's documentation). An archive without such objects comes back as it is.
    package static func applesClassNames(_ data: Data) throws -> Data {
        guard data.range(of: Data("OpenCoreDataPredicates.".utf8)) != nil else { return data }
        guard case .dictionary(var top) = try PropertyListTree(data), case .array(var objects)? = top["$objects"] else {
            throw PredicateArchivingError("not a keyed archive")
        }
        // The class names as written (entries are rewritten below while others still refer to them).
        var written: [Int: String] = [:]
        for (index, entry) in objects.enumerated() {
            if case .string(let name)? = entry["$classname"] { written[index] = name }
        }
        var rewritten: Set<Int> = []           // class dictionaries of ours already given an Apple class
        var classIndex: [String: Int] = [:]    // an Apple class → its dictionary
        for index in objects.indices {
            guard case .dictionary(var object) = objects[index], case .uid(let ref)? = object["$class"],
                  let name = written[ref], let kind = ours[name] else { continue }
            guard let apple = appleClass(kind, object, objects) else { throw PredicateArchivingError("object \(index) of class \(name) has no Apple class") }
            let entry = PropertyListTree.dictionary(["$classname": .string(apple), "$classes": .array(chain(apple).map { .string($0) })])
            let target: Int
            if let known = classIndex[apple] {
                target = known
            } else if !rewritten.contains(ref) {
                target = ref
                objects[ref] = entry
            } else {
                target = objects.count
                objects.append(entry)
            }
            rewritten.insert(target)
            classIndex[apple] = target
            object["$class"] = .uid(target)
            objects[index] = .dictionary(object)
        }
        top["$objects"] = .array(objects)
        return PropertyListTree.dictionary(top).binaryData()
    }
}

extension NSKeyedArchiver {
    /// Mirrors `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding:)` for this library's
    /// predicates (an overload of Foundation's, chosen for these classes without changing the call): the
    /// archive names Apple's classes (`NSComparisonPredicate`, `NSKeyPathExpression`,
    /// `NSEqualityPredicateOperator`, …, see `AppleClassTable`), so Apple's Foundation reads it.
    public static func archivedData(withRootObject object: NSPredicate, requiringSecureCoding: Bool) throws -> Data {
        try AppleClassTable.applesClassNames(archivedData(withRootObject: object as Any, requiringSecureCoding: requiringSecureCoding))
    }

    /// Mirrors `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding:)` for this library's
    /// `NSExpression`, naming Apple's classes as the predicate form does.
    public static func archivedData(withRootObject object: NSExpression, requiringSecureCoding: Bool) throws -> Data {
        try AppleClassTable.applesClassNames(archivedData(withRootObject: object as Any, requiringSecureCoding: requiringSecureCoding))
    }

    /// Mirrors `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding:)` for this library's
    /// `NSSortDescriptor`, naming Apple's class (`NSSortDescriptor`).
    public static func archivedData(withRootObject object: NSSortDescriptor, requiringSecureCoding: Bool) throws -> Data {
        try AppleClassTable.applesClassNames(archivedData(withRootObject: object as Any, requiringSecureCoding: requiringSecureCoding))
    }
}
