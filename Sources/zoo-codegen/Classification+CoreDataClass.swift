import Foundation
import OpenCoreData

/// Classification's codegen is "category" (Xcode's Category/Extension): the app writes the class, the
/// plugin writes Classification+CoreDataProperties.swift (its properties and `fetchRequest()`).
public class Classification: NSManagedObject {
    /// Something of the app's own beside the generated properties.
    public var label: String { [order, family].compactMap { $0 }.joined(separator: " / ") }
}
