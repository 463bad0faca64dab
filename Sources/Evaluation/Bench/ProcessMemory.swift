import Foundation

/// Memory use of this process, from `/proc/self/status` (Linux).
package enum ProcessMemory {
  /// The peak resident set size (`VmHWM`) in bytes; nil where `/proc` is unavailable.
  package static var peakResidentBytes: Int64? { field("VmHWM") }

  /// Starts a new peak: `VmHWM` drops to the current resident size, so the next reading is
  /// the peak of what ran since (one phase of a benchmark, not the whole process). Writing
  /// 5 to `/proc/self/clear_refs` does this (Linux 4.0 and later); returns false where it
  /// cannot, and the peak then covers the process so far.
  @discardableResult
  package static func startNewPeak() -> Bool {
    guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
    defer { try? handle.close() }
    return (try? handle.write(contentsOf: Data("5".utf8))) != nil
  }

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
