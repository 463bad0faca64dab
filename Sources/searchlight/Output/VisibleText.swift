/// Text from items or a model made safe for a terminal: a stored title or body can hold
/// control characters (an escape sequence that clears the screen or retitles the window, a
/// bell, a NUL), and printed raw they act on the reader's terminal instead of being read.
/// Every control character is shown as its Unicode control picture (ESC as ␛, NUL as ␀,
/// DEL as ␡) or, for the C1 range, as `<U+0085>`; tabs become a space.
enum VisibleText {
  /// `text` with every control character made visible; line breaks kept when `keepingLines`
  /// (a body printed over several lines, a CSV field), shown as ␊ and ␍ otherwise.
  static func visible(_ text: String, keepingLines: Bool = true) -> String {
    guard text.unicodeScalars.contains(where: needsChange) else { return text }
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      switch scalar.value {
      case 0x0A where keepingLines, 0x0D where keepingLines: out.append(scalar)
      case 0x09: out.append(" ")
      case 0x00...0x1F: out.append(Unicode.Scalar(0x2400 + scalar.value)!)
      case 0x7F: out.append("\u{2421}")
      case 0x80...0x9F: out.append(contentsOf: "<U+\(String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4))>".unicodeScalars)
      default: out.append(scalar)
      }
    }
    return String(out)
  }

  private static func needsChange(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }
}

extension String {
  fileprivate func leftPadded(to length: Int) -> String {
    count >= length ? self : String(repeating: "0", count: length - count) + self
  }
}
