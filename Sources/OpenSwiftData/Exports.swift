// What a SwiftData app's model layer uses besides OpenSwiftData's own names: Foundation (`#Predicate`,
// `SortDescriptor`, `URL`…) and Observation (a model is `Observable`), as `import SwiftData` gives them on
// Apple platforms. OpenCoreData stays an implementation detail: an app imports it itself to reach a
// container's Core Data stack.
@_exported import Foundation
@_exported import Observation
// `@Attribute(.transformable(by:))` names a ValueTransformer class; Linux's Foundation has none.
@_exported import class OpenCoreData.ValueTransformer
