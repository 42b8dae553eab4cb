import Foundation
import OpenCoreDataPredicates

// What ``NSManagedObject/description`` shows of each property.
extension NSManagedObject {
    /// A slot's value as the description shows it: a composite as its dictionary.
    func value(shownAt slot: Int) -> Value {
        layout.composite(atSlot: slot)?.value(in: values) ?? values[slot]
    }

    /// A value in a description: a relationship fault as such, objects by key, others as plain text.
    static func describe(_ value: Value) -> String {
        if value.isToManyFault { return "<relationship fault>" }
        if let ref = value.objectRef { return "\(ref.key)" }
        if let members = value.toManyMembers { return "(\(members.refs.map { "\($0.key)" }.joined(separator: ", ")))" }
        return PredicatePrinter.plainText(value)
    }
}
