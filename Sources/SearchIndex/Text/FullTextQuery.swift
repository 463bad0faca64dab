/// FTS5 query text built from words, never from raw input.
/// https://www.sqlite.org/fts5.html#full_text_query_syntax
public enum FullTextQuery {
  /// `text` as one FTS5 string: in double quotes, each quote doubled. FTS5 ends a query at a
  /// NUL byte, so a NUL (a separator to the tokenizer anyway) becomes a space. Byte-level,
  /// because every query pays for it (Foundation's `replacingOccurrences` cost more than the
  /// rest of compiling a text search).
  public static func quoted(_ text: String) -> String {
    let utf8 = text.utf8
    if !utf8.contains(where: { $0 == 0x22 || $0 == 0 }) { return "\"" + text + "\"" }
    var bytes: [UInt8] = [0x22]
    bytes.reserveCapacity(utf8.count + 8)
    for byte in utf8 {
      switch byte {
      case 0x22: bytes.append(0x22); bytes.append(0x22)
      case 0: bytes.append(0x20)
      default: bytes.append(byte)
      }
    }
    bytes.append(0x22)
    return String(decoding: bytes, as: UTF8.self)
  }
}
