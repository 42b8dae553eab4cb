import Foundation

// Concrete setters of `@Managed` attribute properties for the types the concrete getters serve, beside
// the generic setter (NSManagedObject+Managed.swift): the same work, with the type's conversion to a
// stored value called directly instead of through the protocol (why: Benchmarks/README.md). Like the
// rest of the macro's plumbing they are public for the generated code only, not Core Data API.

extension _ManagedMacroSupport {
    /// The setter of a `String?` attribute property (the generic setter's work, without its dispatch).
    public static func set(_ object: NSManagedObject, _ value: String?, _ property: Property) {
        setAttributeValue(object, value._managedStorageValue.value, property)
    }

    /// The setter of a `String` attribute property (the generic setter's work, without its dispatch).
    public static func set(_ object: NSManagedObject, _ value: String, _ property: Property) {
        setAttributeValue(object, value._managedStorageValue.value, property)
    }

    /// The setter of an `Int16` attribute property (the generic setter's work, without its dispatch).
    public static func set(_ object: NSManagedObject, _ value: Int16, _ property: Property) {
        setAttributeValue(object, value._managedStorageValue.value, property)
    }

    /// The setter of an `Int32` attribute property (the generic setter's work, without its dispatch).
    public static func set(_ object: NSManagedObject, _ value: Int32, _ property: Property) {
        setAttributeValue(object, value._managedStorageValue.value, property)
    }

    /// The setter of an `Int64` attribute property (the generic setter's work, without its dispatch).
    public static func set(_ object: NSManagedObject, _ value: Int64, _ property: Property) {
        setAttributeValue(object, value._managedStorageValue.value, property)
    }

    /// The setter of an `Int` attribute property (the generic setter's work, without its dispatch).
    public static func set(_ object: NSManagedObject, _ value: Int, _ property: Property) {
        setAttributeValue(object, value._managedStorageValue.value, property)
    }

    /// The setter of a `Double` attribute property (the generic setter's work, without its dispatch),
    /// and of a `TimeInterval` one of a date attribute.
    public static func set(_ object: NSManagedObject, _ value: Double, _ property: Property) {
        setAttributeValue(object, value._managedStorageValue.value, property)
    }

    /// The setter of a `Float` attribute property (the generic setter's work, without its dispatch).
    public static func set(_ object: NSManagedObject, _ value: Float, _ property: Property) {
        setAttributeValue(object, value._managedStorageValue.value, property)
    }

    /// The setter of a `Bool` attribute property (the generic setter's work, without its dispatch).
    public static func set(_ object: NSManagedObject, _ value: Bool, _ property: Property) {
        setAttributeValue(object, value._managedStorageValue.value, property)
    }

    /// The setter of a `Date?` attribute property (the generic setter's work, without its dispatch).
    public static func set(_ object: NSManagedObject, _ value: Date?, _ property: Property) {
        setAttributeValue(object, value._managedStorageValue.value, property)
    }

    /// The setter of a `Data?` attribute property (the generic setter's work, without its dispatch).
    public static func set(_ object: NSManagedObject, _ value: Data?, _ property: Property) {
        setAttributeValue(object, value._managedStorageValue.value, property)
    }

    /// The setter of a `UUID?` attribute property (the generic setter's work, without its dispatch).
    public static func set(_ object: NSManagedObject, _ value: UUID?, _ property: Property) {
        setAttributeValue(object, value._managedStorageValue.value, property)
    }

    /// The setter of a `URL?` attribute property (the generic setter's work, without its dispatch).
    public static func set(_ object: NSManagedObject, _ value: URL?, _ property: Property) {
        setAttributeValue(object, value._managedStorageValue.value, property)
    }

    /// The setter of a `Decimal?` attribute property (the generic setter's work, without its dispatch).
    public static func set(_ object: NSManagedObject, _ value: Decimal?, _ property: Property) {
        setAttributeValue(object, value._managedStorageValue.value, property)
    }
}
