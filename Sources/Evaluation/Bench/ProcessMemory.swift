import Foundation

/// Memory use of this process, from `/proc/self/status` (Linux).
package enum ProcessMemory {
  /// The peak resident set size (`VmHWM`) in bytes; nil where `/proc` is unavailable.
  package static var peakResidentBytes: Int64? { field("VmHWM") }

  /// The current resident set size (`VmRSS`) in bytes.
  package static var residentBytes: Int64? { field("VmRSS") }

  /// A `kB` field of `/proc/self/status`, in bytes.
  static func field(_ name: String) -> Int64? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
      let number = line.dropFirst(name.count + 1).split(whereSeparator: \.isWhitespace).first.flatMap { Int64($0) }
      return number.map { $0 * 1024 }
    }
    return nil
  }
}
