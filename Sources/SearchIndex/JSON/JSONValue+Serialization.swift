extension JSONValue {
  /// Compact JSON text (no spaces), keys in insertion order.
  public var compactText: String {
    var out = ""
    write(to: &out, pretty: false, indent: 0)
    return out
  }

  /// Indented JSON text for people.
  public var prettyText: String {
    var out = ""
    write(to: &out, pretty: true, indent: 0)
    return out
  }

  func write(to out: inout String, pretty: Bool, indent: Int) {
    switch self {
    case .null: out += "null"
    case .bool(let b): out += b ? "true" : "false"
    case .number(let n): out += JSONValue.format(number: n)
    case .string(let s): JSONValue.writeString(s, to: &out)
    case .array(let elements):
      if elements.isEmpty { out += "[]"; return }
      out += "["
      for (i, element) in elements.enumerated() {
        if i > 0 { out += "," }
        if pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
        element.write(to: &out, pretty: pretty, indent: indent + 1)
      }
      if pretty { out += "\n" + String(repeating: "  ", count: indent) }
      out += "]"
    case .object(let object):
      if object.count == 0 { out += "{}"; return }
      out += "{"
      for (i, member) in object.members.enumerated() {
        if i > 0 { out += "," }
        if pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
        JSONValue.writeString(member.key, to: &out)
        out += pretty ? ": " : ":"
        member.value.write(to: &out, pretty: pretty, indent: indent + 1)
      }
      if pretty { out += "\n" + String(repeating: "  ", count: indent) }
      out += "}"
    }
  }

  /// Integers print without a fraction; other numbers use the shortest round-tripping form.
  public static func format(number n: Double) -> String {
    if !n.isFinite { return "null" }
    if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
    return "\(n)"
  }

  static func writeString(_ s: String, to out: inout String) {
    out += "\""
    // Runs of bytes that need no escape are appended whole: a record's long texts cost one
    // copy, not one append per scalar. Every byte that needs an escape is ASCII, so the
    // runs split only at character boundaries.
    var s = s
    s.withUTF8 { bytes in
      var runStart = 0
      for (offset, byte) in bytes.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
        if runStart < offset { out += String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<offset]), as: UTF8.self) }
        switch byte {
        case 0x22: out += "\\\""
        case 0x5C: out += "\\\\"
        case 0x0A: out += "\\n"
        case 0x0D: out += "\\r"
        case 0x09: out += "\\t"
        default:
          let hex = String(byte, radix: 16)
          out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
        runStart = offset + 1
      }
      if runStart < bytes.count { out += String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart...]), as: UTF8.self) }
    }
    out += "\""
  }
}
