import Foundation

/// Decides whether bytes are text and decodes them: UTF-8 first, UTF-16 with a byte order
/// mark, then Latin-1 (ISO 8859-1), which maps every byte to a character, so text that is not
/// UTF-8 is decoded rather than rejected. Bytes with a NUL or many other control characters
/// are binary.
package enum TextDecoding {
  /// How much of a file the sniffers look at.
  package static let sniffLength = 8192

  /// True when `bytes` (usually a file's first `sniffLength` bytes) look like text.
  package static func looksLikeText(_ bytes: some Collection<UInt8>) -> Bool {
    if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) { return true }
    // On the bytes in place where they are contiguous (`Data`, arrays): a byte at a time
    // through a collection's iterator was a tenth of indexing a folder of notes.
    if let answer = bytes.withContiguousStorageIfAvailable({ scan($0) }) { return answer }
    return scan(bytes)
  }

  private static func scan(_ bytes: some Sequence<UInt8>) -> Bool {
    var controls = 0
    var count = 0
    for byte in bytes {
      count += 1
      if byte == 0 { return false }
      // Tab, line feed, form feed, carriage return and escape appear in real text files
      // (escape in terminal-coloured logs); other C0 controls and DEL are a sign of binary.
      if byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0C && byte != 0x0D && byte != 0x1B || byte == 0x7F {
        controls += 1
      }
    }
    // A few stray controls are tolerated (a bell or a form feed in a short note), and one byte
    // in 100 in a longer file; more is not text.
    return controls * 100 <= max(count, 300)
  }

  /// The text of `data`, or nil when it is binary.
  package static func decode(_ data: Data) -> String? {
    if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) {
      return String(data: data, encoding: .utf16)
    }
    guard looksLikeText(data) else { return nil }
    if let text = String(validating: data, as: UTF8.self) { return text }
    var text = ""
    text.unicodeScalars.append(contentsOf: data.map { Unicode.Scalar($0) })
    return text
  }
}
