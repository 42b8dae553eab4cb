import Foundation

/// Turns a page's bytes into a ``ClientMessage`` or an ``ErrorReply``; it never traps, whatever the bytes.
public enum MessageDecoder {
    /// The largest message accepted, in bytes.
    public static let maxSize = 16 * 1024
    /// Limits on the values (the store's model has no maximum; these keep the table readable).
    public static let maxNameLength = 100, maxCategoryLength = 40
    /// The prices accepted.
    public static let prices = 0...999_999

    /// Decodes one message.
    public static func decode(_ bytes: some Collection<UInt8>) -> Result<ClientMessage, ErrorReply> {
        guard bytes.count <= maxSize else {
            return .failure(ErrorReply(message: "message of \(bytes.count) bytes is over the limit of \(maxSize)", problem: "size"))
        }
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(bytes))
        } catch let error as DecodingError {
            return .failure(describe(error))
        } catch {
            return .failure(ErrorReply(message: "not a JSON object: \(error)", problem: "json"))
        }
        do {
            return .success(try message(wire))
        } catch let reply as ErrorReply {
            return .failure(reply)
        } catch {
            return .failure(ErrorReply(message: "\(error)", problem: "json", ref: wire.ref))
        }
    }

    private static func message(_ wire: Wire) throws -> ClientMessage {
        func fail(_ message: String, _ problem: String = "field") -> ErrorReply { ErrorReply(message: message, problem: problem, ref: wire.ref) }
        switch wire.type {
        case "add":
            guard let name = wire.name, let price = wire.price, let category = wire.category else {
                throw fail("add needs name, price and category")
            }
            let fields = try check(WireFields(name: name, price: price, category: category), fail)
            return .add(fields, ref: wire.ref)
        case "edit":
            guard let id = wire.id else { throw fail("edit needs an id", "id") }
            guard let wireFields = wire.fields, wireFields.name != nil || wireFields.price != nil || wireFields.category != nil else {
                throw fail("edit needs fields with a name, price or category")
            }
            let fields = try check(wireFields, fail)
            return .edit(id: id, fields, ref: wire.ref)
        case "delete":
            guard let id = wire.id else { throw fail("delete needs an id", "id") }
            return .delete(id: id, ref: wire.ref)
        case "begin":
            guard let id = wire.id else { throw fail("begin needs an id", "id") }
            return .begin(id: id, ref: wire.ref)
        case "end":
            guard let id = wire.id else { throw fail("end needs an id", "id") }
            return .end(id: id)
        case "writers":
            guard let running = wire.running else { throw fail("writers needs running (true or false)") }
            return .writers(running: running)
        case "view":
            let view = ClientMessage.View(sort: wire.sort ?? "name", ascending: wire.ascending ?? true, search: wire.search ?? "")
            guard ClientMessage.View.sortKeys.contains(view.sort) else { throw fail("sort must be one of \(ClientMessage.View.sortKeys.joined(separator: ", "))") }
            guard view.search.count <= maxNameLength else { throw fail("search must be at most \(maxNameLength) characters") }
            return .view(view)
        case let other:
            throw fail("unknown message type \(other.map { "\"\($0.prefix(40))\"" } ?? "(none)"): expected add, edit, delete, begin, end, writers or view", "type")
        }
    }

    /// The fields, checked; a price arrives as any JSON number and must be a whole one in range.
    private static func check(_ f: WireFields, _ fail: (String, String) -> ErrorReply) throws -> ClientMessage.Fields {
        if let name = f.name {
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, name.count <= maxNameLength else { throw fail("name must be 1 to \(maxNameLength) characters, not blank", "field") }
        }
        if let category = f.category {
            let trimmed = category.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, category.count <= maxCategoryLength else { throw fail("category must be 1 to \(maxCategoryLength) characters, not blank", "field") }
        }
        var price: Int?
        if let number = f.price {
            guard number.rounded() == number, number >= Double(prices.lowerBound), number <= Double(prices.upperBound) else {
                throw fail("price must be a whole number within \(prices.lowerBound)...\(prices.upperBound)", "field")
            }
            price = Int(number)
        }
        return ClientMessage.Fields(name: f.name, price: price, category: f.category)
    }

    private static func describe(_ error: DecodingError) -> ErrorReply {
        func path(_ c: DecodingError.Context) -> String { c.codingPath.map(\.stringValue).joined(separator: ".") }
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c):
            return c.codingPath.isEmpty
                ? ErrorReply(message: "a message is a JSON object", problem: "json")
                : ErrorReply(message: "field \(path(c)) has the wrong type", problem: "field")
        case .dataCorrupted(let c):
            return c.codingPath.isEmpty
                ? ErrorReply(message: "not valid JSON", problem: "json")
                : ErrorReply(message: "field \(path(c)) is malformed", problem: "field")
        case .keyNotFound(let key, _):
            return ErrorReply(message: "missing field \(key.stringValue)", problem: "field")
        @unknown default:
            return ErrorReply(message: "not a valid message", problem: "json")
        }
    }
}
