import Foundation

/// Mirrors Core Data's `NSFetchRequestResult`: what a fetch can return. On Linux it cannot be an `@objc`
/// protocol, so `NSFetchRequest`'s result type is unconstrained and checked when the fetch runs.
public protocol NSFetchRequestResult: AnyObject {}

extension NSDictionary: NSFetchRequestResult {}
extension NSNumber: NSFetchRequestResult {}
