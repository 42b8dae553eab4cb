import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting

/// Random predicates over ``GraphModel``'s relationships, as format strings with arguments: key paths
/// through to-ones (depth 1–2), `ANY`/`ALL`/`NONE`, `@count`, the aggregates, `SUBQUERY`, `IN` and
/// `CONTAINS` over to-manys and over their `UNION`/`INTERSECT`/`MINUS` with constants, comparisons with objects and object IDs (saved, unsaved, of another
/// entity, nil), `SELF`, compounds. Every predicate it makes is valid for a fetch of its entity.
struct GraphPredicateGenerator {
    enum Kind: Equatable { case string, int, double, date, object(String) }

    /// The model as the generator sees it: attributes, to-ones and to-manys with their destinations.
    static let attributes: [String: [(String, Kind)]] = [
        "Kingdom": [("name", .string), ("age", .int)],
        "Classification": [("order", .string), ("rank", .int)],
        "Animal": [("name", .string), ("weight", .double), ("legs", .int), ("born", .date)],
        "Zoo": [("name", .string), ("capacity", .int)],
    ]
    static let toOnes: [String: [(String, String)]] = [
        "Classification": [("kingdom", "Kingdom")], "Animal": [("classification", "Classification")],
    ]
    static let toManys: [String: [(String, String)]] = [
        "Kingdom": [("classifications", "Classification")], "Classification": [("animals", "Animal")],
        "Animal": [("zoos", "Zoo")], "Zoo": [("animals", "Animal")],
    ]
    static let entities = ["Kingdom", "Classification", "Animal", "Zoo"]

    var rng: SeededRandom
    /// Saved objects by entity (for object and ID arguments), and one unsaved object per entity.
    let objects: [String: [NSManagedObject]]
    let unsaved: [String: NSManagedObject]

    // MARK: - Key paths

    /// A single-valued key path of `entity`: an attribute, through up to `depth` to-ones, or a to-many's
    /// `@count` or aggregate.
    mutating func single(_ entity: String, depth: Int = 2) -> (path: String, kind: Kind) {
        let toOnes = Self.toOnes[entity] ?? []
        switch rng.int(0...9) {
        case 0...4:
            let (name, kind) = rng.pick(Self.attributes[entity]!)
            return (name, kind)
        case 5...6 where depth > 0 && !toOnes.isEmpty:
            let (name, destination) = rng.pick(toOnes)
            let rest = single(destination, depth: depth - 1)
            return ("\(name).\(rest.path)", rest.kind)
        case 7:
            return ("\(rng.pick(Self.toManys[entity]!).0).@count", .int)
        case 8, 9:
            let (name, destination) = rng.pick(Self.toManys[entity]!)
            let (attribute, kind) = attributePath(destination, depth: depth > 0 ? 1 : 0)
            let function: String
            switch kind {
            case .int, .double: function = rng.pick(["@sum", "@avg", "@min", "@max"])
            default: function = rng.pick(["@min", "@max"])
            }
            let resultKind: Kind = function == "@avg" ? .double : kind
            return ("\(name).\(function).\(attribute)", resultKind)
        default:
            let (name, kind) = rng.pick(Self.attributes[entity]!)
            return (name, kind)
        }
    }

    /// An attribute of `entity`, through up to `depth` to-ones.
    mutating func attributePath(_ entity: String, depth: Int) -> (String, Kind) {
        if depth > 0, let toOnes = Self.toOnes[entity], rng.chance(0.3) {
            let (name, destination) = rng.pick(toOnes)
            let (rest, kind) = attributePath(destination, depth: depth - 1)
            return ("\(name).\(rest)", kind)
        }
        return rng.pick(Self.attributes[entity]!)
    }

    /// A to-one key path (depth 1–2) ending at an object, and the entity of that object.
    mutating func objectPath(_ entity: String) -> (String, String)? {
        guard let toOnes = Self.toOnes[entity] else { return nil }
        let (name, destination) = rng.pick(toOnes)
        if rng.chance(0.3), let (rest, end) = objectPath(destination) { return ("\(name).\(rest)", end) }
        return (name, destination)
    }

    /// A key path through one to-many (after up to one to-one): the prefix up to the to-many, its
    /// destination entity.
    mutating func toManyPath(_ entity: String) -> (String, String) {
        if let toOnes = Self.toOnes[entity], rng.chance(0.25) {
            let (name, destination) = rng.pick(toOnes)
            let (rest, end) = rng.pick(Self.toManys[destination]!)
            return ("\(name).\(rest)", end)
        }
        return rng.pick(Self.toManys[entity]!)
    }

    // MARK: - Values

    mutating func constant(_ kind: Kind, _ args: inout [Any]) -> String {
        if rng.chance(0.08) { return "nil" }
        switch kind {
        case .string:
            args.append(rng.pick(GraphModel.strings))
        case .int:
            args.append(rng.int(-1...8))
        case .double:
            args.append(Double(rng.int(-8...60)) / 4)
        case .date:
            args.append(Date(timeIntervalSinceReferenceDate: Double(rng.int(0...6)) * 1000))
        case .object(let entity):
            args.append(objectArgument(entity))
        }
        return "%@"
    }

    /// An object or object ID of `entity` (mostly saved ones; sometimes unsaved, of another entity, nil).
    mutating func objectArgument(_ entity: String) -> Any {
        switch rng.int(0...11) {
        case 0: return NSNull()
        case 1: return unsaved[entity]!
        case 2: return rng.pick(objects[rng.pick(Self.entities)]!).objectID
        default:
            let object = rng.pick(objects[entity]!)
            return rng.chance(0.5) ? object : object.objectID
        }
    }

    // MARK: - Comparisons

    mutating func comparison(_ kind: Kind, _ path: String, _ args: inout [Any]) -> String {
        if case .object(let entity) = kind {
            switch rng.int(0...4) {
            case 0: return "\(path) \(rng.pick(["==", "!="])) nil"
            case 1:
                args.append((0..<rng.int(0...3)).map { _ in objectArgument(entity) })
                return "\(path) IN %@"
            default: return "\(path) \(rng.pick(["==", "!="])) \(constant(kind, &args))"
            }
        }
        let options = kind == .string ? rng.pick(["", "", "[c]", "[d]", "[cd]"]) : ""
        switch rng.int(0...9) {
        case 0...4:
            return "\(path) \(rng.pick(["==", "!=", "<", "<=", ">", ">="]))\(options) \(constant(kind, &args))"
        case 5 where kind == .string:
            args.append(rng.pick(["a", "B", "c", "z", "ко", "é", ""]))
            return "\(path) \(rng.pick(["BEGINSWITH", "ENDSWITH", "CONTAINS"]))\(options) %@"
        case 6 where kind == .string:
            args.append(rng.pick(["*a*", "b*", "?", "*", "кол*"]))
            return "\(path) LIKE\(options) %@"
        case 7:
            let items = (0..<rng.int(1...3)).map { _ in constant(kind, &args) }
            return "\(path) IN\(options) {\(items.joined(separator: ", "))}"
        case 8 where kind != .string:
            return "\(path) BETWEEN {\(constant(kind, &args)), \(constant(kind, &args))}"
        default:
            return "\(path) \(rng.pick(["==", "!="])) nil"
        }
    }

    /// One comparison about objects of `entity`; `variable` names a SUBQUERY variable of that entity to
    /// read key paths from (`$x.name`), with plain key paths still the evaluated object's (`outer`).
    mutating func comparison(_ entity: String, variable: String? = nil, outer: String, depth: Int, _ args: inout [Any]) -> String {
        let prefix = variable.map { "$\($0)." } ?? ""
        switch rng.int(0...14) {
        case 0...3:
            let (path, kind) = single(entity)
            return comparison(kind, prefix + path, &args)
        case 4:
            if let (path, end) = objectPath(entity) { return comparison(.object(end), prefix + path, &args) }
            fallthrough
        case 5:
            let me = variable.map { "$\($0)" } ?? "SELF"
            if rng.chance(0.5) {
                args.append((0..<rng.int(0...3)).map { _ in objectArgument(entity) })
                return "\(me) IN %@"
            }
            return "\(me) \(rng.pick(["==", "!="])) \(constant(.object(entity), &args))"
        case 6, 7:
            let quantifier = rng.pick(["ANY", "SOME", "ALL", "NONE"])
            let (toMany, destination) = toManyPath(entity)
            if rng.chance(0.2) {
                return "\(quantifier) \(prefix)\(toMany) \(rng.pick(["==", "!="])) \(constant(.object(destination), &args))"
            }
            let (path, kind) = single(destination, depth: 1)
            return "\(quantifier) " + comparison(kind, "\(prefix)\(toMany).\(path)", &args)
        case 8:
            let (toMany, destination) = toManyPath(entity)
            switch rng.int(0...2) {
            case 0: return "\(constant(.object(destination), &args)) IN \(prefix)\(toMany)"
            case 1: return "\(prefix)\(toMany) CONTAINS \(constant(.object(destination), &args))"
            default:
                let (attribute, kind) = rng.pick(Self.attributes[destination]!)
                return "\(constant(kind, &args)) IN\(kind == .string ? rng.pick(["", "[c]"]) : "") \(prefix)\(toMany).\(attribute)"
            }
        case 9 where depth < 2:
            let (toMany, destination) = toManyPath(entity)
            let name = "v\(depth)"
            let inner = predicate(destination, variable: name, outer: outer, depth: depth + 1, &args)
            return "SUBQUERY(\(prefix)\(toMany), $\(name), \(inner)).@count \(rng.pick(["==", ">", "<=", "!="])) \(rng.int(0...2))"
        case 10 where variable != nil:
            // A plain key path inside a SUBQUERY is the evaluated object's.
            let (path, kind) = single(outer, depth: 1)
            return comparison(kind, path, &args)
        case 12:
            // Set expressions as the collection of IN / CONTAINS (issue #17): SQL tests the sides' memberships.
            let (toMany, destination) = toManyPath(entity)
            let op = rng.pick(["UNION", "INTERSECT", "MINUS"])
            if rng.chance(0.5) {
                let others = (0..<rng.int(0...3)).map { _ in objectArgument(destination) }
                if rng.chance(0.5) {
                    let element = constant(.object(destination), &args)
                    args.append(others)
                    return "\(element) IN \(prefix)\(toMany) \(op) %@"
                }
                args.append(others)
                return "\(prefix)\(toMany) \(op) %@ CONTAINS \(constant(.object(destination), &args))"
            }
            let (attribute, kind) = rng.pick(Self.attributes[destination]!)
            let options = op == "UNION" && kind == .string ? rng.pick(["", "[c]"]) : ""
            let element = constant(kind, &args)
            let items = (0..<rng.int(0...2)).map { _ in constant(kind, &args) }
            return "\(element) IN\(options) \(prefix)\(toMany).\(attribute) \(op) {\(items.joined(separator: ", "))}"
        case 11:
            // Two key paths of one kind.
            let (a, kind) = single(entity)
            for _ in 0..<8 {
                let (b, other) = single(entity)
                if other == kind || (kind == .int && other == .double) || (kind == .double && other == .int) {
                    return "\(prefix)\(a) \(rng.pick(["==", "!=", "<", ">="])) \(prefix)\(b)"
                }
            }
            return comparison(kind, prefix + a, &args)
        default:
            let (path, kind) = single(entity)
            return comparison(kind, prefix + path, &args)
        }
    }

    mutating func predicate(_ entity: String, variable: String? = nil, outer: String, depth: Int, _ args: inout [Any]) -> String {
        switch depth > 2 ? 0 : rng.int(0...5) {
        case 3: return "(\(predicate(entity, variable: variable, outer: outer, depth: depth + 1, &args)) AND \(predicate(entity, variable: variable, outer: outer, depth: depth + 1, &args)))"
        case 4: return "(\(predicate(entity, variable: variable, outer: outer, depth: depth + 1, &args)) OR \(predicate(entity, variable: variable, outer: outer, depth: depth + 1, &args)))"
        case 5: return "NOT (\(predicate(entity, variable: variable, outer: outer, depth: depth + 1, &args)))"
        default: return comparison(entity, variable: variable, outer: outer, depth: depth, &args)
        }
    }

    /// A random entity and a predicate for fetching it.
    mutating func next() -> (entity: String, format: String, args: [Any]) {
        let entity = rng.pick(Self.entities)
        var args: [Any] = []
        let format = predicate(entity, outer: entity, depth: 0, &args)
        return (entity, format, args)
    }
}
