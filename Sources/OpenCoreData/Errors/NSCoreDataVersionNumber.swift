// Core Data's version numbers (`CoreDataDefines.h`), under their Core Data names.

/// Mirrors `NSCoreDataVersionNumber`: the version of Core Data whose behaviour this library follows, as a
/// number comparable with the constants below. It is the framework version Core Data writes into new stores'
/// metadata (`NSPersistenceFrameworkVersion`), the newest among the Apple-written stores the project tests
/// against (1344).
public let NSCoreDataVersionNumber: Double = 1344

/// Mirrors `NSCoreDataVersionNumber10_4`.
public let NSCoreDataVersionNumber10_4: Double = 46.0
/// Mirrors `NSCoreDataVersionNumber10_4_3`.
public let NSCoreDataVersionNumber10_4_3: Double = 77.0
/// Mirrors `NSCoreDataVersionNumber10_5`.
public let NSCoreDataVersionNumber10_5: Double = 185.0
/// Mirrors `NSCoreDataVersionNumber10_5_3`.
public let NSCoreDataVersionNumber10_5_3: Double = 186.0
/// Mirrors `NSCoreDataVersionNumber10_6`.
public let NSCoreDataVersionNumber10_6: Double = 246.0
/// Mirrors `NSCoreDataVersionNumber10_6_2`.
public let NSCoreDataVersionNumber10_6_2: Double = 250.0
/// Mirrors `NSCoreDataVersionNumber10_6_3`.
public let NSCoreDataVersionNumber10_6_3: Double = 251.0
/// Mirrors `NSCoreDataVersionNumber10_7`.
public let NSCoreDataVersionNumber10_7: Double = 358.4
/// Mirrors `NSCoreDataVersionNumber10_7_2`.
public let NSCoreDataVersionNumber10_7_2: Double = 358.12
/// Mirrors `NSCoreDataVersionNumber10_7_3`.
public let NSCoreDataVersionNumber10_7_3: Double = 358.13
/// Mirrors `NSCoreDataVersionNumber10_7_4`.
public let NSCoreDataVersionNumber10_7_4: Double = 358.14
/// Mirrors `NSCoreDataVersionNumber10_8`.
public let NSCoreDataVersionNumber10_8: Double = 407.5
/// Mirrors `NSCoreDataVersionNumber10_8_2`.
public let NSCoreDataVersionNumber10_8_2: Double = 407.7
/// Mirrors `NSCoreDataVersionNumber10_9`.
public let NSCoreDataVersionNumber10_9: Double = 481.0
/// Mirrors `NSCoreDataVersionNumber10_9_2`.
public let NSCoreDataVersionNumber10_9_2: Double = 481.1
/// Mirrors `NSCoreDataVersionNumber10_9_3`.
public let NSCoreDataVersionNumber10_9_3: Double = 481.3
/// Mirrors `NSCoreDataVersionNumber10_10`.
public let NSCoreDataVersionNumber10_10: Double = 526.0
/// Mirrors `NSCoreDataVersionNumber10_10_2`.
public let NSCoreDataVersionNumber10_10_2: Double = 526.1
/// Mirrors `NSCoreDataVersionNumber10_10_3`.
public let NSCoreDataVersionNumber10_10_3: Double = 526.2
/// Mirrors `NSCoreDataVersionNumber10_11`.
public let NSCoreDataVersionNumber10_11: Double = 640.0
/// Mirrors `NSCoreDataVersionNumber10_11_3`.
public let NSCoreDataVersionNumber10_11_3: Double = 641.3
/// Mirrors `NSCoreDataVersionNumber_iPhoneOS_3_0`.
public let NSCoreDataVersionNumber_iPhoneOS_3_0: Double = 241.0
/// Mirrors `NSCoreDataVersionNumber_iPhoneOS_3_1`.
public let NSCoreDataVersionNumber_iPhoneOS_3_1: Double = 248.0
/// Mirrors `NSCoreDataVersionNumber_iPhoneOS_3_2`.
public let NSCoreDataVersionNumber_iPhoneOS_3_2: Double = 310.2
/// Mirrors `NSCoreDataVersionNumber_iPhoneOS_4_0`.
public let NSCoreDataVersionNumber_iPhoneOS_4_0: Double = 320.5
/// Mirrors `NSCoreDataVersionNumber_iPhoneOS_4_1`.
public let NSCoreDataVersionNumber_iPhoneOS_4_1: Double = 320.11
/// Mirrors `NSCoreDataVersionNumber_iPhoneOS_4_2`.
public let NSCoreDataVersionNumber_iPhoneOS_4_2: Double = 320.15
/// Mirrors `NSCoreDataVersionNumber_iPhoneOS_4_3`.
public let NSCoreDataVersionNumber_iPhoneOS_4_3: Double = 320.17
/// Mirrors `NSCoreDataVersionNumber_iPhoneOS_5_0`.
public let NSCoreDataVersionNumber_iPhoneOS_5_0: Double = 386.1
/// Mirrors `NSCoreDataVersionNumber_iPhoneOS_5_1`.
public let NSCoreDataVersionNumber_iPhoneOS_5_1: Double = 386.5
/// Mirrors `NSCoreDataVersionNumber_iPhoneOS_6_0`.
public let NSCoreDataVersionNumber_iPhoneOS_6_0: Double = 419.0
/// Mirrors `NSCoreDataVersionNumber_iPhoneOS_6_1`.
public let NSCoreDataVersionNumber_iPhoneOS_6_1: Double = 419.1
/// Mirrors `NSCoreDataVersionNumber_iPhoneOS_7_0`.
public let NSCoreDataVersionNumber_iPhoneOS_7_0: Double = 479.1
/// Mirrors `NSCoreDataVersionNumber_iPhoneOS_7_1`.
public let NSCoreDataVersionNumber_iPhoneOS_7_1: Double = 479.3
/// Mirrors `NSCoreDataVersionNumber_iPhoneOS_8_0`.
public let NSCoreDataVersionNumber_iPhoneOS_8_0: Double = 519.0
/// Mirrors `NSCoreDataVersionNumber_iPhoneOS_8_3`.
public let NSCoreDataVersionNumber_iPhoneOS_8_3: Double = 519.15
/// Mirrors `NSCoreDataVersionNumber_iPhoneOS_9_0`.
public let NSCoreDataVersionNumber_iPhoneOS_9_0: Double = 640.0
/// Mirrors `NSCoreDataVersionNumber_iPhoneOS_9_2`.
public let NSCoreDataVersionNumber_iPhoneOS_9_2: Double = 641.4
/// Mirrors `NSCoreDataVersionNumber_iPhoneOS_9_3`.
public let NSCoreDataVersionNumber_iPhoneOS_9_3: Double = 641.6
