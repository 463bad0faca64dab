/// Digits grouped by threes with commas ("14,000", "8,327,055.486"), whatever the locale: the
/// command line's progress and counts, and the numbers an offline answer states.
package enum DigitGrouping {
  /// `text`, a number in ASCII digits (a leading "-", a fraction after "." kept as they are),
  /// with a comma between the thousands of its integer part.
  package static func grouped(_ text: String) -> String {
    let sign = text.hasPrefix("-") ? "-" : ""
    let unsigned = text.dropFirst(sign.count)
    let integer = unsigned.prefix { $0 != "." }
    var grouped = ""
    for (offset, digit) in integer.enumerated() {
      if offset > 0, (integer.count - offset) % 3 == 0 { grouped.append(",") }
      grouped.append(digit)
    }
    return sign + grouped + unsigned.dropFirst(integer.count)
  }

  package static func grouped(_ number: Int) -> String { grouped(String(number)) }
}
