import Foundation
import OpenCoreData

/// App code beside the generated Animal class (codegen "class"): a property read by name, as an app marks
/// one `@objc` for a controller's `sectionNameKeyPath` (`@objc` → `@KeyValue` is the port's change).
extension Animal {
    @KeyValue public var firstInitial: String? { commonName.map { String($0.prefix(1)) } }
}
