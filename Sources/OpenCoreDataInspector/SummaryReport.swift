import Foundation
import OpenCoreData

/// The text `ocd-store FILE [--model MODEL]` prints: the store's file, metadata, entity hashes, entities
/// with row counts and tables, then (with a model) the version that matches or what differs, then the
/// problems found.
package enum SummaryReport {
    package static func text(_ store: StoreSummary, _ comparison: ModelComparison? = nil) -> String {
        var sections = [header(store), metadata(store)]
        if let hashes = store.entityVersionHashes {
            sections.append("Entity version hashes (NSStoreModelVersionHashes)\n"
                            + TextTable.lines(hashes.sorted { $0.key < $1.key }.map { [$0.key, $0.value.base64EncodedString()] }))
        }
        sections.append(entities(store))
        sections.append("Tables\n" + TextTable.lines(store.tables.map { [$0.name, "\($0.rows)"] }))
        if let comparison { sections.append(models(comparison)) }
        if !store.problems.isEmpty {
            sections.append("Problems\n" + store.problems.map { "  " + $0 + "\n" }.joined())
        }
        return sections.joined(separator: "\n")
    }

    private static func header(_ store: StoreSummary) -> String {
        let file = store.file
        let journal = file.isWAL ? "WAL" : "rollback journal"
        let wal = file.walBytes.map { ", -wal file \($0) bytes" } ?? ""
        let lines = [
            ["Store file", store.path],
            ["SQLite", "page size \(file.pageSize), \(journal)\(wal), auto-vacuum \(file.autoVacuum ? "on" : "off"), user_version \(file.userVersion)"],
            ["Store type", store.metadata[NSStoreTypeKey].map(describe) ?? "(not recorded)"],
            ["Store UUID", store.uuid ?? store.metadata[NSStoreUUIDKey].map(describe) ?? "(not recorded)"],
            ["Framework", store.metadata["NSPersistenceFrameworkVersion"].map(describe) ?? "(not recorded)"],
        ]
        return TextTable.lines(lines, indent: "")
    }

    private static func metadata(_ store: StoreSummary) -> String {
        let version = store.metadataVersion.map { "Z_VERSION \($0), " } ?? ""
        let rows = store.metadata.filter { $0.key != NSStoreModelVersionHashesKey }.sorted { $0.key < $1.key }
        return "Metadata (Z_METADATA: \(version)Z_PLIST \(store.metadataFormat))\n"
            + TextTable.lines(rows.map { [$0.key, describe($0.value)] })
    }

    private static func entities(_ store: StoreSummary) -> String {
        let names = Dictionary(store.entities.map { ($0.number, $0.name) }, uniquingKeysWith: { a, _ in a })
        let rows = store.entities.map { e in
            ["\(e.number)", e.name, e.superNumber == 0 ? "-" : names[e.superNumber] ?? "\(e.superNumber)", "\(e.max)",
             e.table ?? "(missing)", e.rows.map { "\($0)" } ?? "?"]
        }
        return "Entities (Z_PRIMARYKEY)\n" + TextTable.lines([["Z_ENT", "entity", "parent", "Z_MAX", "table", "rows"]] + rows)
    }

    private static func models(_ comparison: ModelComparison) -> String {
        let file = URL(fileURLWithPath: comparison.modelPath).lastPathComponent
        let count = comparison.versions.count
        var text = "Model \(file)" + (count > 1 ? " (\(count) versions, current \"\(comparison.currentName)\")\n" : "\n")
        text += TextTable.lines(comparison.versions.map { v in
            [v.name, v.matches ? "matches the store" : "differs: " + v.differences.map(\.entity).joined(separator: ", ")]
        })
        if comparison.namesOnly {
            text += comparison.hasFormerModelHash
                ? "  (the store records OpenCoreData's former model hash, no entity version hashes: entities compared by name, and that hash)\n"
                : "  (the store records no entity version hashes: entities compared by name only)\n"
        }
        if let match = comparison.matching {
            return text + "The store matches model version \"\(match.name)\".\n"
        }
        guard let closest = comparison.closest else { return text }
        text += "No version matches the store; the closest is \"\(closest.name)\":\n"
        return text + TextTable.lines(closest.differences.map { [$0.entity, $0.explanation] })
    }

    /// A metadata value as text: strings as they are (`""` when empty), data as base64, lists in brackets.
    static func describe(_ value: Any) -> String {
        switch value {
        case let text as String: return text.isEmpty ? "\"\"" : text
        case let data as Data: return data.base64EncodedString()
        case let list as [Any]: return "[" + list.map { ($0 as? String).map { "\"\($0)\"" } ?? describe($0) }.joined(separator: ", ") + "]"
        case let dictionary as [String: Any]:
            return "{" + dictionary.sorted { $0.key < $1.key }.map { "\($0.key) = \(describe($0.value))" }.joined(separator: "; ") + "}"
        default: return "\(value)"
        }
    }
}

extension ModelComparison.Difference {
    /// The entity the difference is about ("(model)" for a whole-model hash).
    var entity: String {
        switch self {
        case .hashDiffers(let name, _, _), .onlyInStore(let name), .onlyInModel(let name): return name
        case .modelHashDiffers: return "(model hash)"
        }
    }

    /// What differs, in words.
    var explanation: String {
        switch self {
        case .hashDiffers(_, let store, let model):
            return "version hash differs: store \(store.base64EncodedString()), model \(model.base64EncodedString())"
        case .onlyInStore: return "in the store, not in the model"
        case .onlyInModel: return "in the model, not in the store"
        case .modelHashDiffers(let store, let model): return "OpenCoreData's former model hash differs: store \(store), model \(model)"
        }
    }
}
