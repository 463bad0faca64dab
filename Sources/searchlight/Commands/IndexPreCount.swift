import Foundation
import SearchIndex

/// The cheap estimate of how many items an `index` run will read, for its progress total:
/// one per note file, one per non-empty line of JSON Lines, one per `From ` line of an mbox.
/// Unknown (nil) for standard input and JSON arrays, whose items are not counted without
/// parsing them.
enum IndexPreCount {
  static func items(in files: [DocumentFile?]) -> Int? {
    var total = 0
    for file in files {
      guard let file, let count = items(in: file) else { return nil }
      total += count
    }
    return total
  }

  static func items(in file: DocumentFile) -> Int? {
    switch file.pathExtension {
    case "jsonl", "ndjson": return lines(of: file.path, arrayMeansUnknown: false)
    case "json": return lines(of: file.path, arrayMeansUnknown: true)
    case "mbox": return messages(in: file.path)
    default: return 1
    }
  }

  /// Lines with something other than white space; nil for a JSON array when asked.
  private static func lines(of path: String, arrayMeansUnknown: Bool) -> Int? {
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return 1 }
    return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Int? in
      var count = 0
      var lineHasText = false
      var sawText = false
      for byte in bytes {
        switch byte {
        case 0x0A:
          if lineHasText { count += 1 }
          lineHasText = false
        case 0x20, 0x09, 0x0D: break
        default:
          if !sawText {
            sawText = true
            if arrayMeansUnknown, byte == UInt8(ascii: "[") { return nil }
          }
          lineHasText = true
        }
      }
      return count + (lineHasText ? 1 : 0)
    }
  }

  /// Lines that start with `From ` (mbox message separators), at least one.
  private static func messages(in path: String) -> Int? {
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return 1 }
    let marker = Array("From ".utf8)
    return data.withUnsafeBytes { bytes -> Int? in
      var count = 0
      var atLineStart = true
      var index = 0
      while index < bytes.count {
        if atLineStart, index + marker.count <= bytes.count, zip(marker, bytes[index..<index + marker.count]).allSatisfy({ $0 == $1 }) {
          count += 1
        }
        atLineStart = bytes[index] == 0x0A
        index += 1
      }
      return max(count, 1)
    }
  }
}
