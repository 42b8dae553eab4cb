import Foundation

/// A dictionary-result fetch: `propertiesToFetch` (attribute names and key paths through to-one
/// relationships such as `"classification.family"`, property descriptions — a to-one relationship gives
/// its destination's `NSManagedObjectID` — or expression descriptions such as `max:(price)`),
/// `returnsDistinctResults`, `propertiesToGroupBy` (the same kinds of keys), `havingPredicate` (on those
/// keys, see ``HavingPredicate``). Each dictionary's key is the
/// key path as given, or the expression description's name. Keys whose value is `nil` are left out of
/// each dictionary, as in Core Data.
struct DictionaryFetch {
    let plan: FetchPlan
    let properties: [Any]
    let distinct: Bool
    let groupBy: [Any]?
    let having: NSPredicate?

    init<T>(plan: FetchPlan, request: NSFetchRequest<T>) {
        self.plan = plan
        // By default every stored attribute; a composite's elements under their key paths (`address.city`).
        self.properties = request.propertiesToFetch ?? plan.layout.properties.filter {
            $0 is NSAttributeDescription && !$0.isTransient && !($0 is NSCompositeAttributeDescription)
        }.map(\.name)
        self.distinct = request.returnsDistinctResults
        self.groupBy = request.propertiesToGroupBy
        self.having = request.havingPredicate
    }

    private static let functions = ["sum:", "min:", "max:", "average:", "count:"]

    /// Each property as a column of the store's fetch, with the key it has in the dictionaries.
    private func column(_ property: Any, use: KeyPathUse) throws -> (key: String, column: DictionaryColumns.Column) {
        let entityName = plan.entity.name ?? "?"
        let resolver = KeyPathResolver(use: use)
        if let expression = property as? NSExpressionDescription {
            guard let e = expression.expression, case .function(let name, let args) = e.node, args.count == 1,
                  Self.functions.contains(name), case .keyPath(let key) = args[0] else {
                throw CoreDataError(NSCoreDataError, "unsupported expression in \(use == .propertiesToFetch ? "propertiesToFetch" : "propertiesToGroupBy") of \(entityName): \(expression.expression?.description ?? "nil")")
            }
            let path = try resolver.single(key, from: plan.layout, named: entityName)
            guard case .attribute = path.terminal else {
                throw CoreDataError(NSCoreDataError, "unsupported expression in propertiesToFetch of \(entityName): \(name) of \(key), which is not an attribute")
            }
            return (expression.name, .aggregate(function: name, path, type: expression.expressionResultType))
        }
        let name = (property as? NSPropertyDescription)?.name ?? (property as? String) ?? ""
        let path = try resolver.single(name, from: plan.layout, named: entityName)
        switch path.terminal {
        case .attribute: return (name, .keyPath(path))
        case .object: return (name, .object(path))
        case .count, .aggregate:
            throw CoreDataError(NSCoreDataError, "unsupported keypath \(name) in entity \(entityName)\(use.placeSuffix): use an NSExpressionDescription",
                                userInfo: [NSValidationKeyErrorKey: name])
        }
    }

    /// The dictionaries' keys and the columns the store fetches for them.
    func resolve() throws -> (keys: [String], columns: DictionaryColumns) {
        let resolved = try properties.map { try column($0, use: .propertiesToFetch) }
        let groups = try groupBy.map { try $0.map { p -> (key: String, column: DictionaryColumns.Column) in
            let c = try column(p, use: .propertiesToGroupBy)
            if case .aggregate = c.column { throw CoreDataError(NSCoreDataError, "propertiesToGroupBy takes attributes and to-one relationships, not expressions") }
            return c
        } }
        var columns = DictionaryColumns(columns: resolved.map(\.column), distinct: distinct, groupBy: groups?.map(\.column))
        if let having {
            guard let groups else {
                throw CoreDataError(NSCoreDataError, "a havingPredicate requires propertiesToGroupBy (fetch of entity \(plan.entity.name ?? "?"): \(having.predicateFormat))")
            }
            let names = Dictionary((groups + resolved).map { ($0.key, $0.column) }, uniquingKeysWith: { _, fetched in fetched })
            columns.having = try HavingPredicate.resolve(having, names: names, entityName: plan.entity.name ?? "?")
        }
        return (resolved.map(\.key), columns)
    }

    /// The fetch's dictionaries, in the store's order. Each is a plain `NSDictionary` (see
    /// Benchmarks/README.md, figure 2, for why not a subclass with shared keys): built straight from the
    /// store's row buffer with `init(objects:forKeys:count:)`, its keys shared by every row. Read in `scope`.
    func run(on coordinator: NSPersistentStoreCoordinator, in scope: StoreReadScope) throws -> [NSDictionary] {
        let (names, columns) = try resolve()
        let hasObjects = columns.columns.contains { if case .object = $0 { return true } else { return false } }
        let identifier = hasObjects ? try coordinator.storeIdentifier(root: plan.layout.rootEntityID) : ""
        let model = coordinator.managedObjectModel
        let keys: [NSObject] = names.map { DictionaryResultKey(key: $0) }
        let objects = UnsafeMutablePointer<AnyObject>.allocate(capacity: keys.count)
        let present = UnsafeMutablePointer<NSObject>.allocate(capacity: keys.count)
        defer { objects.deallocate(); present.deallocate() }
        var dictionaries: [NSDictionary] = []
        try coordinator.fetchColumns(plan, columns, in: scope) { row in
            var count = 0
            for (i, value) in row.enumerated() {
                let object: AnyObject?
                if let ref = value.objectRef, let entity = model.entity(number: ref.entityID) {
                    object = NSManagedObjectID(entity: entity, key: ref.key, storeIdentifier: identifier)
                } else {
                    object = Self.object(value)
                }
                guard let object else { continue }
                (objects + count).initialize(to: object)
                (present + count).initialize(to: keys[i])
                count += 1
            }
            dictionaries.append(NSDictionary(objects: objects, forKeys: present, count: count))
            objects.deinitialize(count: count)
            present.deinitialize(count: count)
        }
        return dictionaries
    }

    /// A value as a Foundation object (`NSString`, `NSNumber`, …, as Core Data's dictionaries hold), or
    /// `nil` for a nil value (left out of the dictionary).
    private static func object(_ value: Value) -> AnyObject? {
        switch value {
        case .null: return nil
        case .string(let s): return NSString(string: s)
        case .int(let i): return NSNumber(value: i)
        case .double(let d): return NSNumber(value: d)
        case .bool(let b): return NSNumber(value: b)
        case .decimal(let d): return NSDecimalNumber(decimal: d)
        case .date(let d): return NSDate(timeIntervalSinceReferenceDate: d.timeIntervalSinceReferenceDate)
        case .data(let d): return NSData(data: d)
        default: return value.anyValue.map { $0 as AnyObject }
        }
    }
}
