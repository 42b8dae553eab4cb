import Foundation
import Testing

/// The shipped demos link the table batch rules and their models, not test support (#52, item 14): no symbol
/// of the module `OpenCoreDataTesting` is in their programs, and those of `TableUpdates` and `DemoModels` are.
@Suite struct DemoLinkTests {
    @Test(arguments: ["products", "zoo"])
    func aDemoProgramHasNoTestSupportInIt(_ program: String) throws {
        let binary = try #require(builtProgram(program), "\(program) is built with the tests")
        let bytes = try Data(contentsOf: binary)
        func mentions(module: String) -> Bool { bytes.range(of: Data("\(module.utf8.count)\(module)".utf8)) != nil }
        #expect(mentions(module: "TableUpdates"))
        #expect(mentions(module: "DemoModels"))
        #expect(!mentions(module: "OpenCoreDataTesting"))
    }
}
