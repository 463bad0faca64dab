import Foundation
import SearchIndex

/// The cheap estimate of how many items an `index` run will read, for its progress total:
/// one per note file, one per non-empty line of JSON Lines, one per object of a JSON array
/// or of pretty-printed JSON, one per `From ` line of an mbox. Unknown (nil) for standard
/// input and for paths that are not regular files (devices, pipes).
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
    // A compressed document is one item; its mailbox's messages are not counted unread.
    if file.isCompressed { return file.pathExtension == "mbox" ? nil : 1 }
    switch file.pathExtension {
    case "jsonl", "ndjson": return lines(of: file.path, arrayMeansUnknown: false)
    case "json": return lines(of: file.path, arrayMeansUnknown: true) ?? objects(in: file.path)
    case "mbox": return messages(in: file.path)
    default: return 1
    }
  }

  /// Lines with something other than white space; nil when asked for a JSON array or an
  /// object whose first line is only its `{` (pretty-printed items, not one a line).
  private static func lines(of path: String, arrayMeansUnknown: Bool) -> Int? {
    var count = 0
    var lineHasText = false
    var sawText = false
    var unknown = false
    var firstLineIsABrace = false
    let read = forEachChunk(of: path) { bytes in
      for byte in bytes {
        switch byte {
        case 0x0A:
          if firstLineIsABrace {
            unknown = true
            return false
          }
          if lineHasText { count += 1 }
          lineHasText = false
        case 0x20, 0x09, 0x0D: break
        default:
          if !sawText {
            sawText = true
            if arrayMeansUnknown, byte == UInt8(ascii: "[") {
              unknown = true
              return false
            }
            firstLineIsABrace = arrayMeansUnknown && byte == UInt8(ascii: "{")
          } else {
            firstLineIsABrace = false
          }
          lineHasText = true
        }
      }
      return true
    }
    guard let read else { return nil }
    guard read else { return 1 }
    return unknown ? nil : count + (lineHasText ? 1 : 0)
  }

  /// The objects of a JSON array, or the top-level objects of pretty-printed JSON: each `{`
  /// outside strings at the array's depth (or at the top), so a million-item array has a
  /// progress total after one read of its bytes, without parsing them.
  private static func objects(in path: String) -> Int? {
    var count = 0
    var depth = 0
    var itemDepth: Int?
    var (inString, escaped) = (false, false)
    let read = forEachChunk(of: path) { bytes in
      for byte in bytes {
        if inString {
          if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
          continue
        }
        switch byte {
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "{"), UInt8(ascii: "["):
          if itemDepth == nil { itemDepth = byte == UInt8(ascii: "[") ? 1 : 0 }
          if byte == UInt8(ascii: "{"), depth == itemDepth { count += 1 }
          depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
        default: break
        }
      }
      return true
    }
    guard let read else { return nil }
    return read ? count : 1
  }

  /// Lines that start with `From ` (mbox message separators), at least one.
  private static func messages(in path: String) -> Int? {
    let marker = Array("From ".utf8)
    var count = 0
    // How much of the marker the current line has matched from its start; nil once the
    // line can no longer start with it.
    var matched: Int? = 0
    let read = forEachChunk(of: path) { bytes in
      for byte in bytes {
        if byte == 0x0A {
          matched = 0
        } else if let sofar = matched {
          if byte == marker[sofar] {
            matched = sofar + 1
            if sofar + 1 == marker.count {
              count += 1
              matched = nil
            }
          } else {
            matched = nil
          }
        }
      }
      return true
    }
    guard let read else { return nil }
    return read ? max(count, 1) : 1
  }

  /// Hands the file's bytes to `body` a megabyte at a time until it returns false; false
  /// when the file cannot be read, nil when it is not a regular file (a device such as
  /// `/dev/zero` never ends, and a pipe's bytes would be gone before the run reads them).
  /// Read, not mapped: a mapped file's pages count in the process's resident size, and a
  /// count of a 600 MB file made `index` peak at 600 MB before it had read an item.
  private static func forEachChunk(of path: String, _ body: (UnsafeRawBufferPointer) -> Bool) -> Bool? {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return false }
    guard status.st_mode & S_IFMT == S_IFREG else { return nil }
    let capacity = 1 << 20
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    defer { buffer.deallocate() }
    // Up to the size it had when opened: a file that grows meanwhile is counted as it was.
    var left = Int(status.st_size)
    while left > 0 {
      let got = read(descriptor, buffer, min(capacity, left))
      if got < 0 {
        if errno == EINTR { continue }
        return false
      }
      if got == 0 || !body(UnsafeRawBufferPointer(start: buffer, count: got)) { return true }
      left -= got
    }
    return true
  }
}
