import Foundation
import Logging
import Synchronization

/// Core Data's SQL debug switch: `-com.apple.CoreData.SQLDebug 1` on the command line (as Core Data's
/// launch argument) or `OPENCOREDATA_SQL_DEBUG=1` in the environment. SQL statements, their argument
/// types (never values) and fetch timings go to swift-log's logger `OpenCoreData.SQL` at debug level.
public enum SQLDebug {
    private static let state = Mutex<Bool>(debugSwitch("-com.apple.CoreData.SQLDebug", environment: "OPENCOREDATA_SQL_DEBUG"))

    /// Whether SQL logging is on for stores added from now on. Set it in code, or see the type's comment.
    public static var isEnabled: Bool {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    static var logger: Logger {
        var logger = Logger(label: "OpenCoreData.SQL")
        logger.logLevel = .debug
        return logger
    }
}
