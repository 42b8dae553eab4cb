import Foundation
import OpenCoreData
import OpenCoreDataTesting
import Testing

/// `NSExpressionDescription.resultType`, the Swift form of `expressionResultType`: the type a dictionary
/// fetch reads the expression's value back as.
@Suite("NSExpressionDescription.resultType")
struct ExpressionDescriptionTests {
    @Test func resultTypeAndExpressionResultTypeAreOneValue() {
        let description = NSExpressionDescription()
        #expect(description.resultType == .undefined)
        description.resultType = .double
        #expect(description.expressionResultType == .doubleAttributeType)
        description.expressionResultType = .integer64AttributeType
        #expect(description.resultType == .integer64)
    }

    /// The average of integer prices read back as a double and as an integer, as `resultType` says.
    @Test func theFetchReadsTheValueAsTheResultType() throws {
        let store = TemporaryStore()
        defer { store.cleanUp() }
        let context = try store.container().viewContext
        for price: Int32 in [10, 11, 13] {
            let product = Products(context: context)
            product.name = "Сыр"
            product.price = price
        }
        try context.save()
        func average(_ type: NSAttributeDescription.AttributeType) throws -> Any? {
            let average = NSExpressionDescription()
            average.name = "average"
            average.expression = NSExpression(forFunction: "average:", arguments: [NSExpression(forKeyPath: "price")])
            average.resultType = type
            let request = NSFetchRequest<NSDictionary>(entityName: "Products")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = [average]
            return try context.fetch(request).first?["average"]
        }
        #expect((try average(.double) as? NSNumber)?.doubleValue == 34.0 / 3)
        #expect((try average(.integer64) as? NSNumber)?.int64Value == 11)
    }
}
