import OpenCoreData

/// The entity `Sample` that the SQL-against-memory tests and the SQL fuzz target draw predicates over:
/// two strings, two integers, a double, a boolean and a date, all optional.
public enum SampleModel {
    /// `Sample` with its seven attributes, and any `extra` ones.
    public static func make(adding extra: [NSAttributeDescription] = []) -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [NSEntityDescription(name: "Sample", properties: [
            NSAttributeDescription(name: "s", type: .stringAttributeType),
            NSAttributeDescription(name: "t", type: .stringAttributeType),
            NSAttributeDescription(name: "i", type: .integer64AttributeType),
            NSAttributeDescription(name: "j", type: .integer16AttributeType),
            NSAttributeDescription(name: "d", type: .doubleAttributeType),
            NSAttributeDescription(name: "b", type: .booleanAttributeType),
            NSAttributeDescription(name: "dt", type: .dateAttributeType),
        ] + extra)])
    }
}
