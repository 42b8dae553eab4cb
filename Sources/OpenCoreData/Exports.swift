// The Core Data API re-exports the predicate language, so that `import OpenCoreData` (with or without
// `import Foundation`) gives our NSPredicate, NSSortDescriptor and friends in both types and calls.
@_exported import Foundation
@_exported import OpenCoreDataPredicates
@_exported import class OpenCoreDataPredicates.NSPredicate
@_exported import class OpenCoreDataPredicates.NSComparisonPredicate
@_exported import class OpenCoreDataPredicates.NSCompoundPredicate
@_exported import class OpenCoreDataPredicates.NSExpression
@_exported import class OpenCoreDataPredicates.NSSortDescriptor
@_exported import struct OpenCoreDataPredicates.Selector
@_exported import func OpenCoreDataPredicates.NSClassFromString
