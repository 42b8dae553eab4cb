import Foundation

/// Why a model file could not be read or written: the file, the place in it (line, column and element,
/// when the error is about one) and the reason. Not in Core Data, whose `NSManagedObjectModel(contentsOf:)`
/// only returns `nil`; ``NSManagedObjectModel/init(validatingContentsOf:)`` throws it.
///
/// Its description reads like a compiler diagnostic:
/// `/app/Zoo.xcdatamodeld/Zoo.xcdatamodel/contents:12:9: <relationship name="zoos"> in entity Animal: the destination entity Zo is not in the model`.
public struct ModelFileError: Error, CustomStringConvertible, LocalizedError, Sendable {
    /// The file (or folder) at fault.
    public let file: URL
    /// The 1-based line of the element at fault, `nil` when the error is about the file as a whole.
    public let line: Int?
    /// The 1-based column (in characters) where the element at fault starts.
    public let column: Int?
    /// The element at fault and where it sits, such as `<attribute name="price"> in entity Product`.
    public let element: String?
    /// What is wrong.
    public let reason: String

    init(file: URL, line: Int? = nil, column: Int? = nil, element: String? = nil, reason: String) {
        self.file = file
        self.line = line
        self.column = column
        self.element = element
        self.reason = reason
    }

    public var description: String {
        var text = file.path
        if let line { text += ":\(line)" + (column.map { ":\($0)" } ?? "") }
        text += ": "
        if let element { text += element + ": " }
        return text + reason
    }

    public var errorDescription: String? { description }
}
