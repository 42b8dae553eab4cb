import Foundation

/// What the server sends a page. Every message is one JSON object with a `type`.
public enum ServerMessage: Sendable, Equatable {
    /// The whole table, sent when a page connects (and reconnects): `commit` is the last commit it shows.
    case snapshot(commit: Int, sections: [SectionData])
    /// One `controllerWillChangeContent` … `controllerDidChangeContent` batch.
    case batch(Batch)
    /// A message the server could not accept; nothing was changed.
    case error(ErrorReply)
    /// A message with a `ref` was saved, as commit `commit`.
    case ack(ref: Int, commit: Int)
    /// An edit was refused: the row changed (or was deleted) after the person began editing it.
    case conflict(Conflict)
    /// Whether the background writers run (sent on connecting and whenever a page pauses or resumes them).
    case writers(running: Bool, count: Int)

    /// The JSON text of the message.
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data: Data
        switch self {
        case .snapshot(let commit, let sections): data = try! encoder.encode(SnapshotBody(commit: commit, sections: sections))
        case .batch(let batch): data = try! encoder.encode(batch)
        case .error(let reply): data = try! encoder.encode(reply)
        case .ack(let ref, let commit): data = try! encoder.encode(AckBody(ref: ref, commit: commit))
        case .conflict(let conflict): data = try! encoder.encode(conflict)
        case .writers(let running, let count): data = try! encoder.encode(WritersBody(running: running, count: count))
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads a message back (the tests' side of the wire).
    public static func parse(_ text: String) throws -> ServerMessage {
        let data = Data(text.utf8)
        let decoder = JSONDecoder()
        switch try decoder.decode(TypeTag.self, from: data).type {
        case "snapshot":
            let body = try decoder.decode(SnapshotBody.self, from: data)
            return .snapshot(commit: body.commit, sections: body.sections)
        case "batch": return .batch(try decoder.decode(Batch.self, from: data))
        case "ack":
            let body = try decoder.decode(AckBody.self, from: data)
            return .ack(ref: body.ref, commit: body.commit)
        case "conflict": return .conflict(try decoder.decode(Conflict.self, from: data))
        case "writers":
            let body = try decoder.decode(WritersBody.self, from: data)
            return .writers(running: body.running, count: body.count)
        default: return .error(try decoder.decode(ErrorReply.self, from: data))
        }
    }

    private struct AckBody: Codable {
        var type = "ack"
        var ref: Int
        var commit: Int
    }

    private struct WritersBody: Codable {
        var type = "writers"
        var running: Bool
        var count: Int
    }

    private struct SnapshotBody: Codable {
        var type = "snapshot"
        var commit: Int
        var sections: [SectionData]
    }
}

struct TypeTag: Decodable { var type: String }

/// A batch of table changes in UIKit's coordinates: `deleteSections`, `deleteRows`, move sources and
/// reloads name positions before the batch; `insertSections`, `insertRows` and move targets positions
/// after it. Inserted, moved and reloaded rows carry their (new) data.
public struct Batch: Codable, Equatable, Sendable {
    public var type = "batch"
    /// The connection's batch number, from 1.
    public var seq: Int
    /// The commit this batch brings the table to.
    public var commit: Int
    /// When that commit was saved, in milliseconds since 1970 (for latency figures).
    public var savedAt: Double
    public var deleteSections: [Int] = []
    public var insertSections: [SectionInsert] = []
    public var deleteRows: [Position] = []
    public var insertRows: [RowChange] = []
    public var moves: [Move] = []
    public var reloads: [RowChange] = []

    /// An empty batch.
    public init(seq: Int, commit: Int, savedAt: Double) {
        self.seq = seq
        self.commit = commit
        self.savedAt = savedAt
    }

    /// A section insert: the new index and the section's name.
    public struct SectionInsert: Codable, Equatable, Sendable {
        public var index: Int
        public var name: String
    }

    /// A row insert or reload: where, and the row's data.
    public struct RowChange: Codable, Equatable, Sendable {
        public var at: Position
        public var row: RowData
    }

    /// A row move: from (old coordinates), to (new coordinates), and the row's new data.
    public struct Move: Codable, Equatable, Sendable {
        public var from: Position
        public var to: Position
        public var row: RowData
    }

    /// Whether the batch changes nothing.
    public var isEmpty: Bool {
        deleteSections.isEmpty && insertSections.isEmpty && deleteRows.isEmpty && insertRows.isEmpty && moves.isEmpty && reloads.isEmpty
    }
}

/// The server's answer to a message it could not accept.
public struct ErrorReply: Codable, Equatable, Sendable, Error {
    public var type = "error"
    /// What went wrong, for a person.
    public var message: String
    /// The problem with the input, for a program: `json`, `type`, `field`, `id`, `size`, `save`.
    public var problem: String
    /// The `ref` of the offending message, when it had one.
    public var ref: Int?

    /// An error reply.
    public init(message: String, problem: String, ref: Int? = nil) {
        self.message = message
        self.problem = problem
        self.ref = ref
    }
}

/// The server's answer to an edit whose row changed after the person began editing it: the save was
/// refused by the edit context's merge policy (`NSErrorMergePolicy`: an `NSMergeConflict`), nothing was
/// written, and the row is shown as it is now (`current`, nil when it was deleted). The server keeps the
/// edit open on the new version: sending the edit again saves the person's values over it.
public struct Conflict: Codable, Equatable, Sendable {
    public var type = "conflict"
    /// The refused edit's row.
    public var id: String
    /// The row as stored now; nil when another page or writer deleted it.
    public var current: RowData?
    /// What happened, for a person.
    public var message: String
    /// The `ref` of the refused edit.
    public var ref: Int?

    /// A conflict reply.
    public init(id: String, current: RowData?, message: String, ref: Int?) {
        (self.id, self.current, self.message, self.ref) = (id, current, message, ref)
    }
}
