import Foundation

extension TextDecoding {
  /// The text of `bytes` in the charset a MIME part names (`UTF-8`, `ISO-8859-1`,
  /// `windows-1252`, `ISO-8859-15`, `UTF-16`, and what Foundation converts). ISO-8859-1 and
  /// US-ASCII are read as Windows-1252, as browsers do, since mail that says Latin-1 often
  /// holds Windows quotes. An unknown charset, or bytes that are not valid in the one named,
  /// are read as UTF-8 when they are valid UTF-8 and as Windows-1252 otherwise: never an error.
  static func decode(_ bytes: some Collection<UInt8>, charset: String?) -> String {
    let name = (charset ?? "").trimming(" \t\"'").lowercased()
    switch name {
    case "", "utf-8", "utf8", "us-ascii", "ascii", "ansi_x3.4-1968", "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1",
      "windows-1252", "cp1252", "x-cp1252":
      break
    case "iso-8859-15", "iso8859-15", "latin9", "latin-9":
      guard !isValidUTF8(bytes) || bytes.allSatisfy({ $0 < 0x80 }) else { return String(decoding: bytes, as: UTF8.self) }
      return latin9(bytes)
    default:
      if let encoding = foundationEncodings[name], let text = String(bytes: Array(bytes), encoding: encoding) { return text }
    }
    if ["iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "windows-1252", "cp1252", "x-cp1252"].contains(name),
      !bytes.allSatisfy({ $0 < 0x80 })
    {
      return windows1252(bytes)
    }
    return utf8OrWindows1252(bytes)
  }

  /// Header bytes as text: UTF-8 when valid (RFC 6532), else Windows-1252.
  static func headerText(_ bytes: some Collection<UInt8>) -> String { utf8OrWindows1252(bytes) }

  static func utf8OrWindows1252(_ bytes: some Collection<UInt8>) -> String {
    isValidUTF8(bytes) ? String(decoding: bytes, as: UTF8.self) : windows1252(bytes)
  }

  private static func isValidUTF8(_ bytes: some Collection<UInt8>) -> Bool {
    Array(bytes).withUnsafeBufferPointer(UTF8Validation.isValid)
  }

  /// Windows-1252: Latin-1 with printable characters in 0x80–0x9F (the five unassigned bytes
  /// keep their Latin-1 control characters).
  static func windows1252(_ bytes: some Collection<UInt8>) -> String {
    var text = ""
    text.unicodeScalars.reserveCapacity(bytes.count)
    for byte in bytes {
      if byte >= 0x80, byte <= 0x9F, let scalar = Unicode.Scalar(windows1252High[Int(byte - 0x80)]) {
        text.unicodeScalars.append(scalar)
      } else {
        text.unicodeScalars.append(Unicode.Scalar(byte))
      }
    }
    return text
  }

  /// ISO-8859-15: Latin-1 with the euro sign and seven other letters.
  private static func latin9(_ bytes: some Collection<UInt8>) -> String {
    let changes: [UInt8: UInt32] = [0xA4: 0x20AC, 0xA6: 0x160, 0xA8: 0x161, 0xB4: 0x17D, 0xB8: 0x17E, 0xBC: 0x152, 0xBD: 0x153, 0xBE: 0x178]
    var text = ""
    for byte in bytes {
      text.unicodeScalars.append(changes[byte].flatMap(Unicode.Scalar.init) ?? Unicode.Scalar(byte))
    }
    return text
  }

  private static let windows1252High: [UInt32] = [
    0x20AC, 0x81, 0x201A, 0x192, 0x201E, 0x2026, 0x2020, 0x2021, 0x2C6, 0x2030, 0x160, 0x2039, 0x152, 0x8D, 0x17D, 0x8F,
    0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x2DC, 0x2122, 0x161, 0x203A, 0x153, 0x9D, 0x17E, 0x178,
  ]

  private static let foundationEncodings: [String: String.Encoding] = [
    "utf-16": .utf16, "utf-16le": .utf16LittleEndian, "utf-16be": .utf16BigEndian,
    "iso-8859-2": .isoLatin2, "latin2": .isoLatin2, "windows-1250": .windowsCP1250, "cp1250": .windowsCP1250,
    "windows-1251": .windowsCP1251, "cp1251": .windowsCP1251, "windows-1253": .windowsCP1253,
    "windows-1254": .windowsCP1254, "shift_jis": .shiftJIS, "sjis": .shiftJIS, "euc-jp": .japaneseEUC,
    "iso-2022-jp": .iso2022JP, "macintosh": .macOSRoman,
  ]
}
