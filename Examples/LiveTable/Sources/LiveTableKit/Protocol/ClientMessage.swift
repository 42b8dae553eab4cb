import Foundation

/// What a page sends: an insert, an edit or a delete, each with an optional `ref` that an error reply
/// echoes.
public enum ClientMessage: Equatable, Sendable {
    /// `{"type":"add","name":…,"price":…,"category":…}`
    case add(Fields, ref: Int?)
    /// `{"type":"edit","id":…,"fields":{…}}`: at least one of name, price, category.
    case edit(id: String, Fields, ref: Int?)
    /// `{"type":"delete","id":…}`
    case delete(id: String, ref: Int?)

    /// A row's editable values; `nil` leaves a value as it is (edit only).
    public struct Fields: Equatable, Sendable {
        public var name: String?
        public var price: Int?
        public var category: String?

        /// Fields with these values.
        public init(name: String? = nil, price: Int? = nil, category: String? = nil) {
            self.name = name
            self.price = price
            self.category = category
        }

    }

    /// The message's `ref`.
    public var ref: Int? {
        switch self {
        case .add(_, let ref), .edit(_, _, let ref), .delete(_, let ref): ref
        }
    }

    /// The JSON text of the message (the page's and the tests' side).
    public func json() -> String {
        var wire = Wire()
        switch self {
        case .add(let f, let ref): (wire.type, wire.name, wire.price, wire.category, wire.ref) = ("add", f.name, f.price.map(Double.init), f.category, ref)
        case .edit(let id, let f, let ref):
            (wire.type, wire.id, wire.fields, wire.ref) = ("edit", id, WireFields(name: f.name, price: f.price.map(Double.init), category: f.category), ref)
        case .delete(let id, let ref): (wire.type, wire.id, wire.ref) = ("delete", id, ref)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(wire), as: UTF8.self)
    }
}

/// The wire form of a page's message: every field optional, checked by `MessageDecoder`.
struct Wire: Codable {
    var type: String?
    var ref: Int?
    var id: String?
    var name: String?
    var price: Double?
    var category: String?
    var fields: WireFields?
}

/// The wire form of an edit's fields.
struct WireFields: Codable {
    var name: String?
    var price: Double?
    var category: String?
}
