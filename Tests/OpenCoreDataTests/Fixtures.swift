import Foundation
import OpenCoreData
import OpenCoreDataTesting

func makeProductsModel() -> NSManagedObjectModel { SeedModel.make() }

let productNames = SeedModel.productNames

@discardableResult
func insertProducts(_ context: NSManagedObjectContext, count: Int, seed: UInt64 = 42) -> [Products] {
    SeedModel.insertProducts(context, count: count, seed: seed)
}
