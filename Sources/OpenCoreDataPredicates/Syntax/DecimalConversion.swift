import Foundation

/// Exact conversions between `Decimal` and `Double`, used wherever a decimal meets a double: the SQLite
/// store (which keeps decimals as 64-bit floats, as Core Data does), comparisons and arithmetic.
///
/// Foundation's own conversions are not exact on Linux: `NSDecimalNumber(decimal: 19.99).doubleValue` is
/// 19.990000000000002 and `Decimal(19.99 as Double)` is 19.98999999999999488. These go through the
/// shortest decimal text instead, so a decimal of up to 15 significant digits survives the round trip
/// Decimal → Double → Decimal unchanged, and a double compares with the decimal it was written as.
extension Decimal {
    /// The double nearest to this decimal (correctly rounded); NaN for `Decimal.nan`.
    package var nearestDouble: Double {
        guard !isNaN else { return .nan }
        return Double(description) ?? .nan
    }

    /// The decimal with the fewest digits that reads back as `value` (Swift prints a double that way:
    /// 19.99 is "19.99"); `nil` for NaN, infinities and magnitudes a `Decimal` cannot hold (beyond about
    /// 3.4e165).
    package init?(shortestDigitsOf value: Double) {
        guard value.isFinite else { return nil }
        guard let d = Decimal(string: "\(value)", locale: Locale(identifier: "en_US_POSIX")), !d.isNaN else { return nil }
        self = d
    }
}
