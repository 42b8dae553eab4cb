import Foundation
@testable import OpenCoreData
import OpenCoreDataTesting
import Testing

/// Where a row of objects holds its key, entity number, version and values (``TableInfo``): a table that
/// several entities share is read with `Z_ENT`; a table of one entity's rows is read without it, every
/// row of that entity (issue 51, item 3), in both stores' statements.
@Suite("A table's row of objects")
struct TableRowShapeTests {
    private static func table(_ model: NSManagedObjectModel, _ root: String) throws -> TableInfo {
        try model.freeze()
        return TableInfo(root: model.entitiesByName[root]!, entities: model.entities)
    }

    @Test func aSharedTableIsReadWithItsEntityColumn() throws {
        let table = try Self.table(makeProductsModel(), "Products")
        #expect(table.hasSubentities)
        #expect(table.selectList == "t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZPRICE, t0.ZNAME")
        #expect(table.entityColumn == 1)
        #expect(table.versionColumn == 2)
        #expect(table.endOfSelectList == 5)
        #expect(table.entityID { $0 == 1 ? 7 : -1 } == 7)
        #expect(table.keyColumns.count == 3)
    }

    @Test func aTableOfOneEntityIsReadWithoutIt() throws {
        let model = RelationshipModel.make()
        let table = try Self.table(model, "Classification")
        #expect(!table.hasSubentities)
        #expect(table.selectList == "t0.Z_PK, t0.Z_OPT, t0.ZFAMILY, t0.ZORDER")
        #expect(table.entityColumn == nil)
        #expect(table.versionColumn == 1)
        #expect(table.endOfSelectList == 4)
        #expect(table.entityID { _ in Issue.record("read Z_ENT"); return -1 } == model.entitiesByName["Classification"]!.layout.entityID)
        #expect(table.keyColumns.count == 2)
        // Each attribute's slot reads the column right after Z_OPT.
        let layout = model.entitiesByName["Classification"]!.layout!
        let positions = table.slotPositions[layout.entityID]!
        let family = layout.properties.firstIndex { $0.name == "family" }!, order = layout.properties.firstIndex { $0.name == "order" }!
        #expect(positions[family] == 2)
        #expect(positions[order] == 3)
    }

    @Test func postgresReadsATableOfOneEntityWithoutIt() throws {
        let model = RelationshipModel.make()
        let table = try Self.table(model, "Classification")
        let request = NSFetchRequest<NSManagedObject>(entityName: "Classification")
        request.sortDescriptors = [NSSortDescriptor(key: "order", ascending: true)]
        var context = SQLGenerationContext()
        let select = try SQLSelect(fetching: try FetchPlan(request, model: model), .objects(table.selectColumns), limited: true)
        #expect(try PostgresPrinter.sql(select, &context)
                == "SELECT t0.Z_PK, t0.Z_OPT, t0.ZFAMILY, t0.ZORDER FROM ZCLASSIFICATION t0 ORDER BY t0.ZORDER COLLATE \"C\" NULLS FIRST, t0.Z_PK NULLS FIRST")
    }
}
