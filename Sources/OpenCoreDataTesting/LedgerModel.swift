import OpenCoreData

/// A model for concurrency and crash tests: `Entry` rows written in batches, and `Counter` rows that
/// several contexts increment (`a` by one writer, `b` by another).
public enum LedgerModel {
    public static func make() -> NSManagedObjectModel {
        NSManagedObjectModel(entities: [
            NSEntityDescription(name: "Entry", properties: [
                NSAttributeDescription(name: "batch", type: .integer64AttributeType, optional: false),
                NSAttributeDescription(name: "index", type: .integer64AttributeType, optional: false),
                NSAttributeDescription(name: "text", type: .stringAttributeType),
            ]),
            NSEntityDescription(name: "Counter", properties: [
                NSAttributeDescription(name: "slot", type: .integer64AttributeType, optional: false, defaultValue: 0),
                NSAttributeDescription(name: "a", type: .integer64AttributeType, optional: false, defaultValue: 0),
                NSAttributeDescription(name: "b", type: .integer64AttributeType, optional: false, defaultValue: 0),
                NSAttributeDescription(name: "lastBatch", type: .integer64AttributeType, optional: false, defaultValue: 0),
            ]),
        ])
    }

    /// Entries written per save by the crash writer.
    public static let entriesPerBatch = 5
    /// Entries written per batch insert by the crash writer's batch mode (`ocd-crash-writer --batch`).
    public static let entriesPerBatchRequest = 400
}
