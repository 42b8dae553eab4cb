import Foundation

/// The file of a ``PropertyListStore``: a property list `{metadata, records}` (binary or XML), each record
/// `{entity, reference, values}` with values as property-list objects (references for relationships).
struct PropertyListStoreFile {
    /// The two formats, by store type.
    enum Kind {
        case binary, xml
        var storeType: String { self == .binary ? NSBinaryStoreType : NSXMLStoreType }
        var format: PropertyListSerialization.PropertyListFormat { self == .binary ? .binary : .xml }
        var name: String { self == .binary ? "binary" : "XML" }
    }
    struct Record {
        let entity: String
        let reference: String
        let values: [String: Any]
    }
    var metadata: [String: Any]
    var records: [Record]

    /// The file at `url`, or `nil` when there is none (a new store); a file that is not one throws.
    static func read(at url: URL, _ kind: Kind) throws -> PropertyListStoreFile? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data = try Data(contentsOf: url)
        if data.isEmpty { return nil }
        var format = PropertyListSerialization.PropertyListFormat.binary
        guard let plist = try? PropertyListSerialization.propertyList(from: data, format: &format) as? [String: Any], format == kind.format,
              let metadata = plist["metadata"] as? [String: Any], let records = plist["records"] as? [[String: Any]],
              metadata[NSStoreTypeKey] as? String == kind.storeType else {
            throw CoreDataError(NSPersistentStoreInvalidTypeError, "\(url.path) is not \(kind == .binary ? "a binary" : "an XML") store written by OpenCoreData.",
                                userInfo: [NSFilePathErrorKey: url.path])
        }
        return PropertyListStoreFile(metadata: metadata, records: try records.map { r in
            guard let entity = r["entity"] as? String, let reference = r["reference"] as? String, let values = r["values"] as? [String: Any] else {
                throw CoreDataError(NSPersistentStoreInvalidTypeError, "\(url.path) holds a malformed record.", userInfo: [NSFilePathErrorKey: url.path])
            }
            return Record(entity: entity, reference: reference, values: values)
        })
    }

    /// Writes the whole file: to a temporary file beside it, then renamed over it.
    func write(to url: URL, _ kind: Kind) throws {
        let plist: [String: Any] = [
            "metadata": metadata,
            "records": records.sorted { ($0.entity, $0.reference) < ($1.entity, $1.reference) }
                .map { ["entity": $0.entity, "reference": $0.reference, "values": $0.values] as [String: Any] },
        ]
        let data: Data
        do {
            data = try PropertyListSerialization.data(fromPropertyList: plist, format: kind.format, options: 0)
        } catch {
            throw CoreDataError(NSPersistentStoreSaveError, "cannot write the \(kind.name) store at \(url.path): its metadata or values are not property-list values (\(error.localizedDescription))",
                                userInfo: [NSUnderlyingErrorKey: error])
        }
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw CoreDataError(NSPersistentStoreSaveError, "cannot write the \(kind.name) store at \(url.path): \(error.localizedDescription)",
                                userInfo: [NSUnderlyingErrorKey: error, NSFilePathErrorKey: url.path])
        }
    }

    /// A node's value as a property-list object.
    static func encode(_ value: Any, _ property: NSPropertyDescription, reference: (NSManagedObjectID) -> String?) throws -> Any {
        if let relationship = property as? NSRelationshipDescription {
            func ref(_ member: Any) -> String? {
                (member as? NSAtomicStoreCacheNode).flatMap { reference($0.objectID) } ?? (member as? NSManagedObjectID).flatMap(reference)
            }
            guard relationship.isToMany else { return ref(value) ?? "" }
            return (NSManagedObject.toManyElements(value) ?? []).compactMap(ref)
        }
        guard let attribute = property as? NSAttributeDescription else { return value }
        let stored = attribute.attributeType == .transformableAttributeType
            ? try AttributeTransform(attribute: attribute).data(for: TransformableValue.slotValue(value), entityName: attribute.entity?.name ?? "?")
            : Value(any: value)
        switch stored {
        case .string(let s): return s
        case .int(let i): return NSNumber(value: i)
        // −0.0 as text: swift-corelibs-foundation's XML property-list writer prints it as 0.0.
        case .double(let d) where d == 0 && d.sign == .minus: return "-0.0"
        case .double(let d): return NSNumber(value: d)
        case .bool(let b): return NSNumber(value: b)
        case .date(let d): return NSNumber(value: d.timeIntervalSinceReferenceDate)  // an XML plist's dates keep whole seconds only
        case .data(let d): return d
        case .decimal(let d): return d.description
        case .uuid(let u): return u.uuidString
        case .url(let u): return u.absoluteString
        default:
            throw CoreDataError(NSPersistentStoreSaveError, "\(attribute.entity?.name ?? "?").\(attribute.name): a \(type(of: value)) cannot be written to a property-list store")
        }
    }

    /// A stored property-list object as a node's value (relationships as the nodes `nodes` finds).
    static func decode(_ stored: Any, _ property: NSPropertyDescription, nodes: (String) -> NSAtomicStoreCacheNode?, path: String) throws -> Any? {
        if let relationship = property as? NSRelationshipDescription {
            guard relationship.isToMany else { return (stored as? String).flatMap(nodes) }
            let members = ((stored as? [Any]) ?? []).compactMap { ($0 as? String).flatMap(nodes) }
            return relationship.isOrdered ? NSOrderedSet(array: members) : Set(members) as Any
        }
        guard let attribute = property as? NSAttributeDescription else { return stored }
        switch attribute.attributeType {
        case .decimalAttributeType: return (stored as? String).flatMap { Decimal(string: $0) }
        case .doubleAttributeType, .floatAttributeType: return (stored as? String).flatMap(Double.init) ?? stored
        case .dateAttributeType: return (stored as? NSNumber).map { Date(timeIntervalSinceReferenceDate: $0.doubleValue) }
        case .UUIDAttributeType: return (stored as? String).flatMap(UUID.init(uuidString:))
        case .URIAttributeType: return (stored as? String).flatMap(URL.init(string:))
        case .transformableAttributeType:
            guard let data = stored as? Data, let value = AttributeTransform(attribute: attribute).value(for: data) else {
                throw CoreDataError(NSPersistentStoreOperationError, "\(path): the value of \(attribute.name) cannot be turned back by its transformer")
            }
            return value.anyValue
        default: return stored
        }
    }
}
