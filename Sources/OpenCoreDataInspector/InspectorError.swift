import Foundation

/// Why the inspector could not do what it was asked, with the exit status `ocd-store` ends with.
package enum InspectorError: Error, Equatable, CustomStringConvertible {
    /// The store file cannot be read: missing, a folder, not SQLite, not a Core Data store.
    case storeFile(String, String)
    /// The model file cannot be read.
    case modelFile(String, String)
    /// OpenCoreData refused to open the store with the model (the error it gave).
    case openRefused(String, String)
    /// The request is wrong: an unknown entity or key, a malformed `--where`.
    case request(String)

    /// The exit status: 1 for a file that cannot be read or opened, 64 (`EX_USAGE`, as the argument
    /// parser's own usage errors) for a request that cannot mean anything for this store.
    package var exitCode: Int32 {
        switch self {
        case .storeFile, .modelFile, .openRefused: return 1
        case .request: return 64
        }
    }

    /// What is wrong, without the file's name.
    var reason: String {
        switch self {
        case .storeFile(_, let why), .modelFile(_, let why), .openRefused(_, let why), .request(let why): return why
        }
    }

    /// The message, naming the file or the part of the request at fault.
    package var description: String {
        switch self {
        case .storeFile(let path, let why): return "cannot read the store \(path): \(why)"
        case .modelFile(let path, let why): return "cannot read the model \(path): \(why)"
        case .openRefused(let path, let why): return "OpenCoreData cannot open the store \(path): \(why)"
        case .request(let why): return why
        }
    }
}
