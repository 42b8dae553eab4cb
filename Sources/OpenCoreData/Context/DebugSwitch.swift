import Foundation

/// A Core Data debug switch as launched: `argument N` on the command line (as Core Data's launch arguments,
/// on when N > 0), else `environment=N`.
func debugSwitch(_ argument: String, environment: String) -> Bool {
    let arguments = CommandLine.arguments
    if let i = arguments.firstIndex(of: argument), i + 1 < arguments.count {
        return (Int(arguments[i + 1]) ?? 0) > 0
    }
    return (Int(ProcessInfo.processInfo.environment[environment] ?? "") ?? 0) > 0
}
