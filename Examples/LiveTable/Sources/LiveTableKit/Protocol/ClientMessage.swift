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
    /// `{"type":"begin","id":…}`: a person started editing the row; the server keeps the row as it is now
    /// in a context of its own, so that the edit's save is checked against it (optimistic locking).
    case begin(id: String, ref: Int?)
    /// `{"type":"end","id":…}`: the person left the edit without saving.
    case end(id: String)
    /// `{"type":"writers","running":…}`: pauses or resumes the background writers.
    case writers(running: Bool)
    /// `{"type":"view","sort":"name"|"price","ascending":…,"search":…}`: the page's controller sorts the
    /// rows of each section by that key and shows the products whose name contains the search text.
    case view(View)

    /// How a page's controller sorts and filters.
    public struct View: Equatable, Sendable {
        /// The attribute rows are sorted by within a section: `name` or `price`.
        public var sort: String
        public var ascending: Bool
        /// Text the name contains (case and diacritics ignored); empty shows every product.
        public var search: String

        /// A view.
        public init(sort: String = "name", ascending: Bool = true, search: String = "") {
            (self.sort, self.ascending, self.search) = (sort, ascending, search)
        }

        /// The attributes a view may sort by.
        public static let sortKeys = ["name", "price"]
    }

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
        case .add(_, let ref), .edit(_, _, let ref), .delete(_, let ref), .begin(_, let ref): ref
        case .end, .writers, .view: nil
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
        case .begin(let id, let ref): (wire.type, wire.id, wire.ref) = ("begin", id, ref)
        case .end(let id): (wire.type, wire.id) = ("end", id)
        case .writers(let running): (wire.type, wire.running) = ("writers", running)
        case .view(let view): (wire.type, wire.sort, wire.ascending, wire.search) = ("view", view.sort, view.ascending, view.search)
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
    var running: Bool?
    var sort: String?
    var ascending: Bool?
    var search: String?
}

/// The wire form of an edit's fields.
struct WireFields: Codable {
    var name: String?
    var price: Double?
    var category: String?
}
