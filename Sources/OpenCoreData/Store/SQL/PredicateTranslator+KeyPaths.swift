import Foundation

extension PredicateTranslator {
    /// The rows a key path is read from. Scope 0 is the fetched entity's table (`t0`), where every plain
    /// key path starts (inside a `SUBQUERY` too, as in memory). A to-many relationship read by `ANY`,
    /// `@count`, an aggregate or `SUBQUERY` opens a scope over its rows, closed into a subquery.
    struct Scope {
        let layout: EntityLayout
        let entityName: String
        /// The key of the scope's object: `t0.Z_PK`, a destination row's `Z_PK`, or the join table's
        /// column that holds it (so that comparing keys needs no join).
        let key: SQLExpression
        /// The alias whose columns are the object's; `nil` until a join table's destination is joined.
        var alias: String?
        /// A join table's destination table, joined when a column of it is first read.
        let destinationTable: String?
        /// The subquery's own table, its alias and the condition that ties it to the enclosing row
        /// (`nil` for scope 0).
        let table: String?
        let tableAlias: String?
        let correlation: SQLExpression?
        /// Tables joined inside the subquery (scope 0's joins are in the generation context).
        var joins: [SQLJoin] = []
        var joined: [[String]: String] = [:]
        /// The `SUBQUERY` variable naming the scope's object, or the placeholder of an `ANY` element.
        var variable: String?
        /// What the variable stands for when it is not the object (the value an `ANY` reads from it).
        var value: Operand?

        static func root(_ layout: EntityLayout, _ entityName: String) -> Scope {
            Scope(layout: layout, entityName: entityName, key: .column(alias: SQLGenerationContext.rootAlias, name: "Z_PK"),
                  alias: SQLGenerationContext.rootAlias, destinationTable: nil, table: nil, tableAlias: nil, correlation: nil)
        }
    }

    typealias Hop = ResolvedKeyPath.Hop

    /// A single-valued key path read from scope `s`'s object, as an operand (resolved by the plan).
    mutating func keyPathOperand(_ text: String, scope s: Int) throws -> Operand {
        let path = try keyPaths.single(text, from: scopes[s].layout, named: scopes[s].entityName)
        return try value(of: path, scope: s)
    }

    /// The value of a single-valued key path in scope `s`: a column (joined through to-ones), an
    /// object's key, or a scalar subquery (`@count`, aggregates).
    mutating func value(of path: ResolvedKeyPath, scope s: Int) throws -> Operand {
        switch path.terminal {
        case .attribute(_, let type, let column):
            guard let column else { throw unsupported("the transient key path \(path.text)") }
            let alias = self.alias(through: path.hops[...], scope: s)
            let value = SQLExpression.column(alias: alias, name: column)
            switch path.valueKey {
            case nil: return Operand(expression: value, kind: type.valueKind, nullable: true)
            case .length: return Operand(expression: .function(.utf16Length, [value]), kind: .number, nullable: true)
            case .uppercaseString: return Operand(expression: .function(.upper, [value]), kind: .string, nullable: true)
            case .lowercaseString: return Operand(expression: .function(.lower, [value]), kind: .string, nullable: true)
            }
        case .object:
            return objectKey(path.hops[...], scope: s)
        case .count:
            let owner = objectKey(path.hops.dropLast(), scope: s)
            let inner = try openToMany(path.hops.last!, owner: owner.expression)
            return Self.unlessNull(owner, Operand(expression: .scalar(closeScope(inner, .count, condition: nil)), kind: .number, nullable: false))
        case .aggregate(let function, let element):
            let owner = objectKey(path.hops.dropLast(), scope: s)
            let inner = try openToMany(path.hops.last!, owner: owner.expression)
            let v = try value(of: element, scope: inner)
            let selection: SQLSubquery.Selection
            switch function {
            case .sum: selection = .sum(v.expression)
            case .avg: selection = .average(v.expression)
            case .min: selection = .minimum(v.expression)
            case .max: selection = .maximum(v.expression)
            }
            let kind: ValueKind? = function == .sum || function == .avg ? .number : v.kind
            return Self.unlessNull(owner, Operand(expression: .scalar(closeScope(inner, selection, condition: nil)), kind: kind, nullable: function != .sum))
        }
    }

    /// `NULL` when the owner of a to-many is (a nil to-one on the way: `classification.animals.@count`
    /// is nil for an animal without a classification, as in memory), else the value.
    static func unlessNull(_ owner: Operand, _ value: Operand) -> Operand {
        guard owner.nullable else { return value }
        return Operand(expression: .caseWhen(.isNull(owner.expression), then: .null, else: value.expression), kind: value.kind, nullable: true)
    }

    /// The key of the object at the end of `hops` (to-ones) from scope `s`'s object: the scope's key, or
    /// the foreign key column that names it (no join for the last hop).
    mutating func objectKey(_ hops: ArraySlice<Hop>, scope s: Int) -> Operand {
        guard let last = hops.last else {
            return Operand(expression: scopes[s].key, kind: .object(root: scopes[s].layout.rootEntityID), nullable: false)
        }
        let alias = self.alias(through: hops.dropLast(), scope: s)
        return Operand(expression: .column(alias: alias, name: Self.foreignKey(last)),
                       kind: .object(root: last.destination.layout.rootEntityID), nullable: true)
    }

    /// The foreign key column of a to-one hop.
    static func foreignKey(_ hop: Hop) -> String {
        guard case .foreignKey(let column, _) = hop.relationship.storage else {
            preconditionFailure("\(hop.name) is not a stored to-one relationship")
        }
        return column
    }

    /// The alias of the table reached from scope `s`'s object through to-one `hops`, joined outer once
    /// per distinct path.
    mutating func alias(through hops: ArraySlice<Hop>, scope s: Int) -> String {
        var alias = baseAlias(s)
        var path: [String] = []
        for hop in hops {
            path.append(hop.name)
            let key = SQLExpression.column(alias: alias, name: Self.foreignKey(hop))
            let table = hop.destination.layout.tableName
            if s == 0 {
                alias = context.join(path, table: table, key: key)
            } else if let existing = scopes[s].joined[path] {
                alias = existing
            } else {
                alias = context.newAlias()
                scopes[s].joins.append(SQLJoin(kind: .leftOuter, table: table, alias: alias, key: key))
                scopes[s].joined[path] = alias
            }
        }
        return alias
    }

    /// The alias whose columns are scope `s`'s object, joining a join table's destination when needed.
    mutating func baseAlias(_ s: Int) -> String {
        if let alias = scopes[s].alias { return alias }
        let alias = context.newAlias()
        scopes[s].joins.append(SQLJoin(kind: .inner, table: scopes[s].destinationTable!, alias: alias, key: scopes[s].key))
        scopes[s].alias = alias
        return alias
    }

    /// Opens a scope over the objects a to-many relationship holds for the object whose key is `owner`.
    mutating func openToMany(_ hop: Hop, owner: SQLExpression, variable: String? = nil) throws -> Int {
        let destination = hop.destination.layout!
        let name = hop.destination.name ?? "?"
        let alias = context.newAlias()
        let scope: Scope
        switch hop.relationship.storage {
        case .inverseForeignKey(let column, _):
            scope = Scope(layout: destination, entityName: name, key: .column(alias: alias, name: "Z_PK"), alias: alias,
                          destinationTable: nil, table: destination.tableName, tableAlias: alias,
                          correlation: .compare(.column(alias: alias, name: column), .equal, owner), variable: variable)
        case .joinTable(let join):
            scope = Scope(layout: destination, entityName: name, key: .column(alias: alias, name: join.destinationColumn), alias: nil,
                          destinationTable: destination.tableName, table: join.name, tableAlias: alias,
                          correlation: .compare(.column(alias: alias, name: join.sourceColumn), .equal, owner), variable: variable)
        case .foreignKey, .none:
            throw unsupported("the relationship \(hop.name) as a to-many")
        }
        scopes.append(scope)
        return scopes.count - 1
    }

    /// Closes the innermost scope (`s`) into a subquery selecting `selection` of the rows that meet `condition`.
    mutating func closeScope(_ s: Int, _ selection: SQLSubquery.Selection, condition: SQLExpression?) -> SQLSubquery {
        precondition(s == scopes.count - 1 && s > 0, "scopes close innermost first")
        let scope = scopes.removeLast()
        return SQLSubquery(selection: selection, table: scope.table!, alias: scope.tableAlias!, joins: scope.joins,
                           correlation: scope.correlation!, condition: condition == .literal(true) ? nil : condition)
    }

    /// The innermost scope whose variable is `name`.
    func scope(ofVariable name: String) -> Int? {
        scopes.indices.last { scopes[$0].variable == name }
    }
}
