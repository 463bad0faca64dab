extension JSONValue {
  /// Compact JSON text (no spaces), keys in insertion order.
  public var compactText: String {
    var out: [UInt8] = []
    write(to: &out, pretty: false, indent: 0)
    return String(decoding: out, as: UTF8.self)
  }

  /// Indented JSON text for people.
  public var prettyText: String {
    var out: [UInt8] = []
    write(to: &out, pretty: true, indent: 0)
    return String(decoding: out, as: UTF8.self)
  }

  // The text is written as UTF-8 bytes and made a String once: appending many small
  // Strings (a key, a quote, a value) cost 80 instructions a byte of output, most of the
  // time of a JSON reply with a thousand items.
  func write(to out: inout [UInt8], pretty: Bool, indent: Int) {
    switch self {
    case .null: out.append(contentsOf: "null".utf8)
    case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
    case .number(let n): out.append(contentsOf: JSONValue.format(number: n).utf8)
    case .string(let s): JSONValue.writeString(s, to: &out)
    case .array(let elements):
      if elements.isEmpty { out.append(contentsOf: "[]".utf8); return }
      out.append(UInt8(ascii: "["))
      for (i, element) in elements.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        if pretty { JSONValue.newline(indent + 1, to: &out) }
        element.write(to: &out, pretty: pretty, indent: indent + 1)
      }
      if pretty { JSONValue.newline(indent, to: &out) }
      out.append(UInt8(ascii: "]"))
    case .object(let object):
      if object.count == 0 { out.append(contentsOf: "{}".utf8); return }
      out.append(UInt8(ascii: "{"))
      for (i, member) in object.members.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        if pretty { JSONValue.newline(indent + 1, to: &out) }
        JSONValue.writeString(member.key, to: &out)
        out.append(UInt8(ascii: ":"))
        if pretty { out.append(UInt8(ascii: " ")) }
        member.value.write(to: &out, pretty: pretty, indent: indent + 1)
      }
      if pretty { JSONValue.newline(indent, to: &out) }
      out.append(UInt8(ascii: "}"))
    }
  }

  private static func newline(_ indent: Int, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\n"))
    out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
  }

  /// Integers print without a fraction; other numbers use the shortest round-tripping form.
  public static func format(number n: Double) -> String {
    if !n.isFinite { return "null" }
    if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
    return "\(n)"
  }

  private static let hexDigits = Array("0123456789abcdef".utf8)

  static func writeString(_ s: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    // Runs of bytes that need no escape are appended whole: a record's long texts cost one
    // copy, not one append per scalar. Every byte that needs an escape is ASCII, so the
    // runs split only at character boundaries.
    var s = s
    s.withUTF8 { bytes in
      // Room for the whole text at once (geometrically, as appends would grow it): a long
      // text appended in runs would otherwise copy the record so far at every doubling.
      if bytes.count > out.capacity - out.count { out.reserveCapacity(max(out.count + bytes.count + 16, 2 * out.capacity)) }
      var runStart = 0
      for (offset, byte) in bytes.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
        if runStart < offset { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<offset])) }
        switch byte {
        case 0x22: out.append(contentsOf: #"\""#.utf8)
        case 0x5C: out.append(contentsOf: #"\\"#.utf8)
        case 0x0A: out.append(contentsOf: #"\n"#.utf8)
        case 0x0D: out.append(contentsOf: #"\r"#.utf8)
        case 0x09: out.append(contentsOf: #"\t"#.utf8)
        default:
          out.append(contentsOf: #"\u00"#.utf8)
          out.append(hexDigits[Int(byte >> 4)])
          out.append(hexDigits[Int(byte & 0xF)])
        }
        runStart = offset + 1
      }
      if runStart < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
    }
    out.append(UInt8(ascii: "\""))
  }
}
