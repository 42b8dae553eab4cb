import Foundation
import Synchronization

// NSSecureCoding for predicates, expressions and sort descriptors, with the keys Apple's Foundation writes
// (checked against archives Apple wrote: docs/Predicates.md, "Archiving", has the table of classes and keys):
//
// - NSComparisonPredicate: NSLeftExpression, NSRightExpression, NSPredicateOperator — an operator object
//   (Apple's private NSPredicateOperator subclasses) with NSOperatorType and NSModifier, and per family
//   NSVariant + NSOptions (ordering), NSNegate + NSOptions (equality), NSFlags (LIKE, MATCHES, IN,
//   CONTAINS), NSFlags + NSPosition (BEGINSWITH, ENDSWITH), NSSelectorName (a custom selector).
// - NSCompoundPredicate: NSCompoundPredicateType, NSSubpredicates.
// - TRUEPREDICATE / FALSEPREDICATE: the classes NSTruePredicate / NSFalsePredicate, without keys.
// - NSExpression: NSExpressionType, then per type NSConstantValue; NSVariable; a key path as a function
//   expression (NSOperand, NSSelectorName "valueForKey:" or "valueForKeyPath:", NSArguments holding an
//   NSKeyPathSpecifierExpression, type 10, with NSKeyPath; type 3 on SELF, 4 on another operand);
//   NSSelectorName/NSArguments/NSOperand for functions (the operand of a built-in one a constant holding
//   the class _NSPredicateUtilities); NSLeftExpression/NSRightExpression for set expressions; NSCollection
//   for aggregates; NSExpression/NSVariable/NSSubpredicate for subqueries;
//   NSPredicate/NSTrueExpression/NSFalseExpression for TERNARY.
// - NSSortDescriptor: NSKey, NSAscending, NSSelector, NSReverseNullOrder.
//
// The class names Foundation's archiver writes here are ours; AppleClassTable.swift gives an archive
// Apple's. Decoding never evaluates anything and never trusts a value's type: every object is read with
// `decodeObject(of:forKey:)` and an explicit class list, every cast is checked, and a decoded predicate,
// expression or sort descriptor refuses evaluation until `allowEvaluation()`. Archives from outside should be
// read through `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)` for these classes (ArchiveValidation.swift),
// which checks the whole archive first, because swift-corelibs-foundation's unarchiver traps on some hostile
// input (docs/Predicates.md, "Archiving").

/// Whether a decoded predicate, expression or sort descriptor may be evaluated, opened by
/// `allowEvaluation()`. Each part of a decoded object (a subpredicate, an expression, an argument) has a
/// gate of its own, kept here by the part's position, so that every view of the same part shares one
/// permission: opening a gate opens its parts, as Apple's `allowEvaluation()` walks down the tree, and
/// opening a part leaves the whole closed.
package final class EvaluationGate: Sendable {
    private let allowed: Atomic<Bool>
    private let parts = Mutex<[Int: EvaluationGate]>([:])
    package convenience init() { self.init(open: false) }
    private init(open: Bool) { allowed = Atomic(open) }
    package var isOpen: Bool { allowed.load(ordering: .acquiring) }

    /// Opens this gate and those of the parts reached from it.
    package func open() {
        let opened = parts.withLock { parts in
            allowed.store(true, ordering: .releasing)
            return Array(parts.values)
        }
        for part in opened { part.open() }
    }

    /// A new gate, open if this one is now (for a predicate made from a decoded one: allowing either
    /// later does not allow the other).
    package func copy() -> EvaluationGate { EvaluationGate(open: isOpen) }

    /// The gate of the part at `position` (the same gate every time; open if this one is).
    package func part(_ position: Int) -> EvaluationGate {
        parts.withLock { parts in
            if let gate = parts[position] { return gate }
            let gate = EvaluationGate(open: isOpen)
            parts[position] = gate
            return gate
        }
    }
}

/// Why a predicate, expression or sort descriptor cannot be archived or unarchived. Darwin raises
/// `NSInvalidArgumentException` for the first kind and returns a `NSCoderReadCorruptError` for the second.
public struct PredicateArchivingError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, in words.
    public let message: String
    package init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Archived as Apple's `NSTruePredicate` (the class of `TRUEPREDICATE`).
final class NSTruePredicate: NSPredicate, @unchecked Sendable {
    required init(node: PredicateNode) { super.init(node: node) }
    required init?(coder: NSCoder) {
        super.init(node: .constant(true))
        archiveGate = EvaluationGate()
    }
}

/// Archived as Apple's `NSFalsePredicate` (the class of `FALSEPREDICATE`).
final class NSFalsePredicate: NSPredicate, @unchecked Sendable {
    required init(node: PredicateNode) { super.init(node: node) }
    required init?(coder: NSCoder) {
        super.init(node: .constant(false))
        archiveGate = EvaluationGate()
    }
}

/// The operator object of an archived comparison (Apple's private `NSPredicateOperator` family; a custom
/// selector comparison's is `NSCustomPredicateOperator`, with the selector's name under `NSSelectorName`).
final class PredicateOperatorArchive: NSObject, NSSecureCoding, @unchecked Sendable {
    static var supportsSecureCoding: Bool { true }
    let type: UInt
    let modifier: UInt
    let options: UInt
    let selector: String?

    init(type: UInt, modifier: UInt, options: UInt, selector: String? = nil) {
        self.type = type
        self.modifier = modifier
        self.options = options
        self.selector = selector
    }

    required init?(coder: NSCoder) {
        guard let type = PredicateCoding.unsigned(coder, "NSOperatorType"),
              let modifier = PredicateCoding.unsigned(coder, "NSModifier"),
              let options = PredicateCoding.unsigned(coder, "NSOptions"),
              let flags = PredicateCoding.unsigned(coder, "NSFlags") else { return nil }
        self.type = type
        self.modifier = modifier
        // The string, IN and CONTAINS operators keep their options as NSFlags, the others as NSOptions.
        self.options = coder.containsValue(forKey: "NSOptions") ? options : flags
        selector = PredicateCoding.string(coder, "NSSelectorName")
    }

    /// The keys of Apple's operator class for `type` (`_newOperatorWithType:modifier:options:`): ordering
    /// operators add `NSVariant` (the type) and `NSOptions`, `==`/`!=` `NSNegate` and `NSOptions`, `LIKE`,
    /// `MATCHES`, `BEGINSWITH`, `ENDSWITH`, `IN`, `CONTAINS` `NSFlags` (`BEGINSWITH`/`ENDSWITH` also
    /// `NSPosition`, 0 or 1), a custom selector `NSSelectorName`; `BETWEEN` nothing (Darwin drops its options:
    /// ours are written as `NSOptions` when there are any, which Darwin ignores).
    func encode(with coder: NSCoder) {
        coder.encode(Int(type), forKey: "NSOperatorType")
        coder.encode(Int(modifier), forKey: "NSModifier")
        switch type {
        case 0...3:
            coder.encode(Int(type), forKey: "NSVariant")
            coder.encode(Int(options), forKey: "NSOptions")
        case 4, 5:
            coder.encode(type == 5, forKey: "NSNegate")
            coder.encode(Int(options), forKey: "NSOptions")
        case 6, 7, 10, 99:
            coder.encode(Int(options), forKey: "NSFlags")
        case 8, 9:
            coder.encode(Int(options), forKey: "NSFlags")
            coder.encode(type == 9 ? 1 : 0, forKey: "NSPosition")
        case 11:
            coder.encode(NSString(string: selector ?? ""), forKey: "NSSelectorName")
        default:
            if options != 0 { coder.encode(Int(options), forKey: "NSOptions") }
        }
    }
}

package enum PredicateCoding {
    /// The expression type Apple gives the key inside a key-path expression.
    static let keyPathSpecifierType = 10
    /// The classes a constant value may be made of.
    static let valueClasses: [AnyClass] = [NSString.self, NSNumber.self, NSDate.self, NSData.self, NSUUID.self,
                                           NSURL.self, NSArray.self, NSSet.self]

    // MARK: Reading

    /// An unsigned integer stored under `key` (absent: 0); `nil` (and the coder failed) for anything else.
    static func unsigned(_ coder: NSCoder, _ key: String) -> UInt? {
        guard coder.containsValue(forKey: key) else { return 0 }
        let value = coder.decodeInteger(forKey: key)
        guard value >= 0 else { return fail(coder, "\(key) is negative") }
        return UInt(value)
    }

    static func fail<T>(_ coder: NSCoder, _ message: String) -> T? {
        coder.failWithError(NSError(domain: NSCocoaErrorDomain, code: CocoaError.coderReadCorrupt.rawValue,
                                    userInfo: [NSDebugDescriptionErrorKey: "cannot decode a predicate: \(message)"]))
        return nil
    }

    static func string(_ coder: NSCoder, _ key: String) -> String? {
        // A missing key must not be decoded: Foundation's unarchiver records an error and stops.
        guard coder.containsValue(forKey: key) else { return nil }
        let object = coder.decodeObject(of: [NSString.self], forKey: key)
        if let s = object as? String { return s }
        if let s = object as? NSString { return s as String }
        return nil
    }

    static func expression(_ coder: NSCoder, _ key: String) -> ExpressionNode? {
        guard let e = coder.decodeObject(of: [NSExpression.self], forKey: key) as? NSExpression else {
            return fail(coder, "\(key) is not an expression")
        }
        return e.node
    }

    static func expressions(_ coder: NSCoder, _ key: String) -> [ExpressionNode]? {
        guard let array = items(coder.decodeObject(of: [NSArray.self, NSExpression.self], forKey: key)) else {
            return fail(coder, "\(key) is not an array of expressions")
        }
        var nodes: [ExpressionNode] = []
        for item in array {
            guard let e = item as? NSExpression else { return fail(coder, "\(key) holds something other than expressions") }
            nodes.append(e.node)
        }
        return nodes
    }

    static let predicateClasses: [AnyClass] = [NSPredicate.self]

    /// The elements of a decoded array (an `NSArray` does not always cast to `[Any]` on Linux).
    static func items(_ object: Any?) -> [Any]? {
        if let a = object as? NSArray { return a.map { $0 } }
        return object as? [Any]
    }

    static func predicate(_ coder: NSCoder, _ key: String) -> PredicateNode? {
        guard let p = coder.decodeObject(of: predicateClasses, forKey: key) as? NSPredicate else {
            return fail(coder, "\(key) is not a predicate")
        }
        if case .block = p.node { return fail(coder, "block predicates cannot be decoded") }
        return p.node
    }

    static func decodeConstantPredicate(_ coder: NSCoder) -> Bool? {
        // A plain NSPredicate is archived as NSTruePredicate / NSFalsePredicate (their own initializers).
        fail(coder, "a plain NSPredicate has no archived form (Darwin writes NSTruePredicate or NSFalsePredicate)")
    }

    static func decodeComparison(_ coder: NSCoder) -> PredicateNode? {
        guard let left = expression(coder, "NSLeftExpression"), let right = expression(coder, "NSRightExpression") else { return nil }
        guard let op = coder.decodeObject(of: [PredicateOperatorArchive.self], forKey: "NSPredicateOperator") as? PredicateOperatorArchive else {
            return fail(coder, "NSPredicateOperator is missing")
        }
        guard let type = NSComparisonPredicate.Operator(rawValue: op.type) else {
            return fail(coder, "unknown operator type \(op.type)")
        }
        guard let modifier = NSComparisonPredicate.Modifier(rawValue: op.modifier) else {
            return fail(coder, "unknown modifier \(op.modifier)")
        }
        if type == .customSelector {
            guard let selector = op.selector, !selector.isEmpty else { return fail(coder, "a custom predicate operator without a selector") }
            return .comparison(ComparisonNode(left, type, right, modifier: modifier, selector: selector))
        }
        let options = NSComparisonPredicate.Options(rawValue: op.options & 7)
        return .comparison(ComparisonNode(left, type, right, modifier: modifier, options: options))
    }

    static func decodeCompound(_ coder: NSCoder) -> PredicateNode? {
        guard let type = unsigned(coder, "NSCompoundPredicateType"), let logical = NSCompoundPredicate.LogicalType(rawValue: type) else {
            return fail(coder, "unknown compound predicate type")
        }
        guard let array = items(coder.decodeObject(of: [NSArray.self] + predicateClasses, forKey: "NSSubpredicates")) else {
            return fail(coder, "NSSubpredicates is not an array")
        }
        var nodes: [PredicateNode] = []
        for item in array {
            guard let p = item as? NSPredicate else { return fail(coder, "NSSubpredicates holds something other than predicates") }
            nodes.append(p.node)
        }
        switch logical {
        case .and: return .and(nodes)
        case .or: return .or(nodes)
        case .not:
            guard nodes.count == 1 else { return fail(coder, "NOT takes one subpredicate, got \(nodes.count)") }
            return .not(nodes[0])
        }
    }

    static func decodeExpression(_ coder: NSCoder) -> ExpressionNode? {
        guard let rawType = unsigned(coder, "NSExpressionType") else { return nil }
        if rawType == UInt(keyPathSpecifierType) {
            guard let key = string(coder, "NSKeyPath") else { return fail(coder, "NSKeyPath is missing") }
            return .keyPath(key)
        }
        guard let type = NSExpression.ExpressionType(rawValue: rawType) else {
            return fail(coder, "unknown expression type \(rawType)")
        }
        switch type {
        case .constantValue:
            if let symbol = string(coder, "OCDSymbol") { return .symbol(symbol) }
            guard coder.containsValue(forKey: "NSConstantValue") else { return .constant(.null) }
            guard let object = coder.decodeObject(of: valueClasses, forKey: "NSConstantValue") else {
                return fail(coder, "NSConstantValue is not a value")
            }
            if coder.decodeBool(forKey: "OCDDecimal"), let text = object as? String, let d = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) {
                return .constant(.decimal(d))
            }
            return .constant(decodedValue(object))
        case .evaluatedObject: return .evaluatedObject
        case .anyKey: return .anyKey
        case .variable:
            guard let name = string(coder, "NSVariable") else { return fail(coder, "NSVariable is missing") }
            return .variable(name)
        case .keyPath:
            let operand: ExpressionNode = coder.containsValue(forKey: "NSOperand") ? (expression(coder, "NSOperand") ?? .anyKey) : .evaluatedObject
            guard coder.error == nil, let args = expressions(coder, "NSArguments"), args.count == 1 else {
                return fail(coder, "a key-path expression takes one argument")
            }
            let key: String
            switch args[0] {
            case .keyPath(let k), .constant(.string(let k)): key = k
            default: return fail(coder, "the argument of a key-path expression is not a key")
            }
            return operand == .evaluatedObject ? .keyPath(key) : .member(operand, key)
        case .function:
            guard let name = string(coder, "NSSelectorName"), let args = expressions(coder, "NSArguments") else {
                return fail(coder, "a function expression needs NSSelectorName and NSArguments")
            }
            // Darwin's NSKeyPathExpression on an operand other than SELF (`$x.name`) has the function type.
            if name == "valueForKey:" || name == "valueForKeyPath:", args.count == 1, case .keyPath(let key) = args[0] {
                let operand: ExpressionNode = coder.containsValue(forKey: "NSOperand") ? (expression(coder, "NSOperand") ?? .anyKey) : .evaluatedObject
                guard coder.error == nil else { return nil }
                return operand == .evaluatedObject ? .keyPath(key) : .member(operand, key)
            }
            if coder.containsValue(forKey: "NSOperand"), let receiver = expression(coder, "NSOperand"),
               !(receiver.isConstant), BuiltinFunctions.acceptsFUNCTION(name, argumentCount: args.count) {
                return .function("FUNCTION", [receiver, .constant(.string(name))] + args)
            }
            guard coder.error == nil, (try? BuiltinFunctions.check(name, argumentCount: args.count)) != nil else {
                return fail(coder, "unknown function \(name) with \(args.count) arguments")
            }
            return .function(name, args)
        case .unionSet, .intersectSet, .minusSet:
            guard let l = expression(coder, "NSLeftExpression"), let r = expression(coder, "NSRightExpression") else { return nil }
            let op: SetOperation = type == .unionSet ? .union : type == .intersectSet ? .intersect : .minus
            return .setOperation(op, l, r)
        case .aggregate:
            guard let items = expressions(coder, "NSCollection") else { return nil }
            return .aggregate(items)
        case .subquery:
            guard let collection = expression(coder, "NSExpression") else { return nil }
            let variableObject = coder.decodeObject(of: [NSString.self, NSExpression.self], forKey: "NSVariable")
            let variable: String
            if let s = variableObject as? String { variable = s }
            else if let e = variableObject as? NSExpression, case .variable(let v) = e.node { variable = v }
            else { return fail(coder, "the variable of a subquery is missing") }
            guard let predicate = predicate(coder, "NSSubpredicate") else { return nil }
            return .subquery(collection, variable, predicate)
        case .conditional:
            guard let p = predicate(coder, "NSPredicate"), let t = expression(coder, "NSTrueExpression"),
                  let f = expression(coder, "NSFalseExpression") else { return nil }
            return .conditional(p, t, f)
        case .block:
            return fail(coder, "block expressions cannot be decoded")
        case .fetchRequest:
            return fail(coder, "fetch request expressions cannot be decoded")
        }
    }

    /// A decoded constant: a property list's integer 1 may come back as the shared boolean `NSNumber`,
    /// so numbers are told apart by their type encoding (`c` for booleans).
    static func decodedValue(_ object: Any) -> Value {
        if let n = object as? NSNumber, !(n is NSDecimalNumber) {
            switch String(cString: n.objCType) {
            case "c", "B": return .bool(n.boolValue)
            case "f", "d": return .double(n.doubleValue)
            default: return .int(n.int64Value)
            }
        }
        if let a = object as? NSArray { return .array(a.map { decodedValue($0) }) }
        if let s = object as? NSSet { return .set(Set(s.allObjects.map { decodedValue($0) })) }
        return Value(any: object)
    }

    static func decodeSortDescriptor(_ coder: NSCoder) -> (String?, Bool, Selector?)? {
        let key = coder.containsValue(forKey: "NSKey") ? string(coder, "NSKey") : nil
        if coder.containsValue(forKey: "NSKey"), key == nil { return fail(coder, "NSKey is not a string") }
        let selectorName = coder.containsValue(forKey: "NSSelector") ? string(coder, "NSSelector") : nil
        if coder.containsValue(forKey: "NSSelector"), selectorName == nil { return fail(coder, "NSSelector is not a string") }
        return (key, coder.decodeBool(forKey: "NSAscending"), selectorName.map { Selector($0) })
    }

    // MARK: Writing

    /// Records an error on the archiver (`archivedData(withRootObject:…)` then throws it).
    static func refuse(_ coder: NSCoder, _ message: String) {
        if let archiver = coder as? NSKeyedArchiver, archiver.error == nil {
            archiver.error = PredicateArchivingError(message)
        }
    }

    static func encode(_ predicate: NSPredicate, with coder: NSCoder) {
        guard coder.allowsKeyedCoding else { return refuse(coder, "NSPredicates and NSExpressions cannot be encoded by non-keyed archivers") }
        switch predicate.node {
        case .constant: break // the class says it (NSTruePredicate / NSFalsePredicate)
        case .block: refuse(coder, "a block predicate (NSPredicate(block:)) cannot be archived")
        case .comparison(let c):
            encode(c.left, key: "NSLeftExpression", coder)
            encode(c.right, key: "NSRightExpression", coder)
            coder.encode(PredicateOperatorArchive(type: c.op.rawValue, modifier: c.modifier.rawValue, options: c.options.rawValue,
                                                  selector: c.op == .customSelector ? c.selector : nil),
                         forKey: "NSPredicateOperator")
        case .and(let ps), .or(let ps):
            coder.encode(ps.map { NSPredicate.wrap($0) } as NSArray, forKey: "NSSubpredicates")
            coder.encode(predicate.node.isAnd ? 1 : 2, forKey: "NSCompoundPredicateType")
        case .not(let p):
            coder.encode([NSPredicate.wrap(p)] as NSArray, forKey: "NSSubpredicates")
            coder.encode(0, forKey: "NSCompoundPredicateType")
        }
    }

    static func encode(_ node: ExpressionNode, key: String, _ coder: NSCoder) {
        coder.encode(NSExpression(node: node), forKey: key)
    }

    static func encode(_ expression: NSExpression, with coder: NSCoder) {
        guard coder.allowsKeyedCoding else { return refuse(coder, "NSPredicates and NSExpressions cannot be encoded by non-keyed archivers") }
        let node = expression.node
        func type(_ t: NSExpression.ExpressionType) { coder.encode(Int(t.rawValue), forKey: "NSExpressionType") }
        switch node {
        case .constant(let value):
            type(.constantValue)
            switch value {
            case .null: break
            case .decimal(let d):
                coder.encode(NSString(string: d.description), forKey: "NSConstantValue")
                coder.encode(true, forKey: "OCDDecimal")
            default:
                guard let object = archivable(value) else {
                    return refuse(coder, "the constant \(PredicatePrinter.format(node)) cannot be archived")
                }
                coder.encode(object, forKey: "NSConstantValue")
            }
        case .symbol(let s):
            type(.constantValue)
            coder.encode(NSString(string: s), forKey: "OCDSymbol")
        case .evaluatedObject: type(.evaluatedObject)
        case .anyKey: type(.anyKey)
        case .variable(let v):
            type(.variable)
            coder.encode(NSString(string: v), forKey: "NSVariable")
        case .keyPath(let k):
            // Darwin's NSKeyPathExpression on SELF (initWithKeyPath:): valueForKeyPath: only for a dotted path.
            type(.keyPath)
            encode(.evaluatedObject, key: "NSOperand", coder)
            coder.encode(NSString(string: k.contains(".") ? "valueForKeyPath:" : "valueForKey:"), forKey: "NSSelectorName")
            coder.encode(NSMutableArray(array: [ArchiveOnlyExpression(.keyPathSpecifier(k))]), forKey: "NSArguments")
        case .member(let base, let k):
            // On another operand (initWithOperand:andKeyPath:) Darwin's type is that of a function.
            type(.function)
            encode(base, key: "NSOperand", coder)
            coder.encode(NSString(string: "valueForKeyPath:"), forKey: "NSSelectorName")
            coder.encode(NSMutableArray(array: [ArchiveOnlyExpression(.keyPathSpecifier(k))]), forKey: "NSArguments")
        case .function(let name, let args):
            type(.function)
            if name == "FUNCTION", args.count >= 2, case .constant(.string(let selector)) = args[1] {
                encode(args[0], key: "NSOperand", coder)
                coder.encode(NSString(string: selector), forKey: "NSSelectorName")
                coder.encode(args.dropFirst(2).map { NSExpression(node: $0) } as NSArray, forKey: "NSArguments")
            } else {
                // Darwin's built-in functions are methods of the class _NSPredicateUtilities, their operand.
                coder.encode(ArchiveOnlyExpression(.predicateUtilities), forKey: "NSOperand")
                coder.encode(NSString(string: name), forKey: "NSSelectorName")
                coder.encode(args.map { NSExpression(node: $0) } as NSArray, forKey: "NSArguments")
            }
        case .setOperation(let op, let l, let r):
            type(op == .union ? .unionSet : op == .intersect ? .intersectSet : .minusSet)
            encode(l, key: "NSLeftExpression", coder)
            encode(r, key: "NSRightExpression", coder)
        case .aggregate(let items):
            type(.aggregate)
            coder.encode(items.map { NSExpression(node: $0) } as NSArray, forKey: "NSCollection")
        case .subquery(let collection, let variable, let predicate):
            type(.subquery)
            encode(collection, key: "NSExpression", coder)
            coder.encode(NSString(string: variable), forKey: "NSVariable")
            coder.encode(NSPredicate.wrap(predicate), forKey: "NSSubpredicate")
        case .fetch:
            refuse(coder, "\(PredicatePrinter.format(node)) cannot be archived: its fetch request and context are live objects")
        case .conditional(let p, let t, let f):
            type(.conditional)
            coder.encode(NSPredicate.wrap(p), forKey: "NSPredicate")
            encode(t, key: "NSTrueExpression", coder)
            encode(f, key: "NSFalseExpression", coder)
        }
    }

    /// A constant as the Foundation object an archive holds, or `nil` for one that has no archived form
    /// (an object of the caller's own type, a managed object).
    static func archivable(_ value: Value) -> NSObject? {
        switch value {
        case .null: return nil
        case .bool(let b): return NSNumber(value: b)
        case .int(let i): return NSNumber(value: i)
        case .double(let d): return NSNumber(value: d)
        case .decimal: return nil
        case .string(let s): return NSString(string: s)
        case .date(let d): return NSDate(timeIntervalSinceReferenceDate: d.timeIntervalSinceReferenceDate)
        case .data(let d): return NSData(data: d)
        case .uuid(let u): return NSUUID(uuidString: u.uuidString)
        case .url(let u): return NSURL(string: u.absoluteString)
        case .array(let items):
            var objects: [NSObject] = []
            for item in items { guard let o = archivable(item) else { return nil }; objects.append(o) }
            return NSArray(array: objects)
        case .set(let items):
            var objects: [NSObject] = []
            for item in items { guard let o = archivable(item) else { return nil }; objects.append(o) }
            return NSSet(array: objects)
        case .object: return nil
        case .collection(let c): return archivable(c.value.expanded)
        }
    }

    static func encode(_ descriptor: NSSortDescriptor, with coder: NSCoder) {
        if let key = descriptor.key { coder.encode(NSString(string: key), forKey: "NSKey") }
        coder.encode(descriptor.ascending, forKey: "NSAscending")
        coder.encode(NSString(string: descriptor.selector?.name ?? "compare:"), forKey: "NSSelector")
        coder.encode(false, forKey: "NSReverseNullOrder")
    }
}

/// The parts of Darwin's archived expressions that no expression here is: the key inside a key-path
/// expression (`NSKeyPathSpecifierExpression`, expression type 10, `NSKeyPath`), and the operand of a
/// built-in function (a constant holding the class `_NSPredicateUtilities`: `NSConstantValueClassName`).
final class ArchiveOnlyExpression: NSExpression, @unchecked Sendable {
    enum Part { case keyPathSpecifier(String), predicateUtilities }
    let part: Part
    init(_ part: Part) {
        self.part = part
        // A node no parsed expression has, so that it is never equal to the expression holding it (an
        // archiver shares equal objects; sharing this one with its parent would write a cycle).
        switch part {
        case .keyPathSpecifier(let key): super.init(node: .function("\u{0}NSKeyPathSpecifier", [.constant(.string(key))]))
        case .predicateUtilities: super.init(node: .function("\u{0}_NSPredicateUtilities", []))
        }
    }
    /// Never called (the archive is made from a part). Written out because the compiler otherwise stubs it
    /// for the class's dispatch table with a thunk that calls itself (Swift 6.3.1 warned "function call
    /// causes an infinite recursion" here): as written, a dynamic `init(node:)` makes a valid object.
    override init(node: ExpressionNode) {
        self.part = .predicateUtilities
        super.init(node: node)
    }
    required init?(coder: NSCoder) { nil }
    override func encode(with coder: NSCoder) {
        switch part {
        case .keyPathSpecifier(let key):
            coder.encode(PredicateCoding.keyPathSpecifierType, forKey: "NSExpressionType")
            coder.encode(NSString(string: key), forKey: "NSKeyPath")
        case .predicateUtilities:
            coder.encode(0, forKey: "NSExpressionType")
            coder.encode(NSString(string: "_NSPredicateUtilities"), forKey: "NSConstantValueClassName")
        }
    }
    override var classForKeyedArchiver: AnyClass? { NSExpression.self }
}

extension PredicateNode {
    var isAnd: Bool { if case .and = self { return true } else { return false } }
}

extension ExpressionNode {
    var isConstant: Bool { if case .constant = self { return true } else { return false } }
}
