import Foundation

/// The table of one entity hierarchy (single-table inheritance, as Core Data does): `Z_PK`, `Z_ENT`,
/// `Z_OPT`, then one column per persistent attribute of every entity in the hierarchy.
struct TableInfo {
    let name: String
    let rootEntityID: Int
    /// Attribute columns in table order, with the type that reads them back.
    let columns: [(name: String, type: NSAttributeType)]
    /// `t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZNAME, …`
    let selectList: String
    /// Per entity: for each storage slot, the position of its column in `selectList` (nil: transient).
    let slotPositions: [Int: [Int32?]]

    init(root: NSEntityDescription, entities: [NSEntityDescription]) {
        let layout = root.layout!
        name = layout.tableName
        rootEntityID = layout.entityID
        var columns: [(String, NSAttributeType)] = []
        var seen = Set<String>()
        let members = entities.filter { $0.layout.root === root }.sorted { $0.layout.entityID < $1.layout.entityID }
        for e in members {
            for (slot, column) in e.layout.columns.enumerated() {
                guard let column, seen.insert(column).inserted else { continue }
                columns.append((column, e.layout.attributes[slot].attributeType))
            }
        }
        self.columns = columns
        selectList = (["t0.Z_PK", "t0.Z_ENT", "t0.Z_OPT"] + columns.map { "t0.\($0.0)" }).joined(separator: ", ")
        var positions: [Int: [Int32?]] = [:]
        let index = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1.0, Int32($0 + 3)) })
        for e in members {
            positions[e.layout.entityID] = e.layout.columns.map { $0.flatMap { index[$0] } }
        }
        slotPositions = positions
    }

    var createSQL: String {
        "CREATE TABLE \(name) (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER"
            + columns.map { ", \($0.name)" + ($0.type.sqlType.isEmpty ? "" : " \($0.type.sqlType)") }.joined() + ")"
    }

    var indexSQL: String { "CREATE INDEX IF NOT EXISTS \(name)_Z_ENT_INDEX ON \(name) (Z_ENT)" }
}

/// The store's metadata row (`Z_METADATA`): store UUID, store type and the model's version hash.
struct StoreMetadata: Codable {
    var storeUUID: String
    var storeType: String
    var versionHash: String
}
