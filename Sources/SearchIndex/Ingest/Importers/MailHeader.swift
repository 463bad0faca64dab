import Foundation

/// Reading RFC 5322 header values: RFC 2047 encoded words, address lists, dates and
/// message identifiers. https://www.rfc-editor.org/rfc/rfc2047 and
/// https://www.rfc-editor.org/rfc/rfc5322#section-3.3
enum MailHeader {
  /// A mailbox: a display name (possibly empty) and an address (possibly empty).
  struct Mailbox: Sendable, Hashable {
    var name: String
    var address: String
  }

  /// `text` with each `=?charset?B?...?=` / `=?charset?Q?...?=` word decoded; white space
  /// between two encoded words goes. A word that does not decode stays as it is.
  static func decodeEncodedWords(_ text: String) -> String {
    guard text.contains("=?") else { return text }
    var result = ""
    var rest = Substring(text)
    var lastWasEncoded = false
    while let start = rest.range(of: "=?") {
      let before = rest[..<start.lowerBound]
      guard let (decoded, end) = encodedWord(rest[start.lowerBound...]) else {
        result += rest[..<start.upperBound]
        rest = rest[start.upperBound...]
        lastWasEncoded = false
        continue
      }
      if !(lastWasEncoded && before.allSatisfy({ $0 == " " || $0 == "\t" })) { result += before }
      result += decoded
      rest = rest[end...]
      lastWasEncoded = true
    }
    return result + rest
  }

  /// The encoded word `text` starts with, decoded, and where it ends.
  private static func encodedWord(_ text: Substring) -> (String, Substring.Index)? {
    let inner = text.dropFirst(2)
    let parts = inner.split(separator: "?", maxSplits: 3, omittingEmptySubsequences: false)
    guard parts.count == 4, parts[3].hasPrefix("="), !parts[0].isEmpty, parts[0].allSatisfy({ !$0.isWhitespace }),
      parts[2].allSatisfy({ !$0.isWhitespace })
    else { return nil }
    // RFC 2231 allows a language after the charset: UTF-8*en.
    let charset = String(parts[0].split(separator: "*").first ?? "")
    let payload = parts[2].utf8
    let bytes: [UInt8]
    switch parts[1].lowercased() {
    case "b": bytes = MIMEEntity.decodeBase64(payload)
    case "q": bytes = MIMEEntity.decodeQuotedPrintable(payload.map { $0 == UInt8(ascii: "_") ? 0x20 : $0 })
    default: return nil
    }
    return (TextDecoding.decode(bytes, charset: charset), parts[3].index(after: parts[3].startIndex))
  }

  /// The mailboxes of an address-list header (From, To, Cc): `Name <addr>`, `"Last, First"
  /// <addr>`, `addr (Name)`, bare `addr`, and groups (`team: a@x, b@x;`).
  static func mailboxes(_ value: String) -> [Mailbox] {
    var entries: [String] = []
    var current = ""
    var quoted = false, escaped = false
    var angle = 0, comment = 0
    for character in value {
      if escaped {
        escaped = false
      } else if character == "\\" && (quoted || comment > 0) {
        escaped = true
      } else if character == "\"" && comment == 0 {
        quoted.toggle()
      } else if !quoted {
        switch character {
        case "(": comment += 1
        case ")": comment = max(0, comment - 1)
        case "<" where comment == 0: angle += 1
        case ">" where comment == 0: angle = max(0, angle - 1)
        case "," where comment == 0 && angle == 0, ";" where comment == 0 && angle == 0:
          entries.append(current)
          current = ""
          continue
        case ":" where comment == 0 && angle == 0:
          // A group's name: its mailboxes follow.
          current = ""
          continue
        default: break
        }
      }
      current.append(character)
    }
    entries.append(current)
    return entries.compactMap(mailbox)
  }

  private static func mailbox(_ entry: String) -> Mailbox? {
    let text = entry.trimming(" \t\r\n")
    guard !text.isEmpty else { return nil }
    if let open = text.lastIndex(of: "<"), let close = text[open...].firstIndex(of: ">") {
      let address = text[text.index(after: open)..<close].trimming(" \t")
      let name = displayName(text[..<open])
      return name.isEmpty && address.isEmpty ? nil : Mailbox(name: name, address: address)
    }
    // addr (Name)
    var address = ""
    var name = ""
    var depth = 0
    for character in text {
      switch character {
      case "(":
        if depth > 0 { name.append(character) }
        depth += 1
      case ")":
        depth -= 1
        if depth > 0 { name.append(character) }
      default:
        if depth > 0 { name.append(character) } else if !character.isWhitespace { address.append(character) }
      }
    }
    name = decodeEncodedWords(name.trimming(" \t"))
    guard address.contains("@") else {
      let plain = displayName(Substring(text))
      return plain.isEmpty ? nil : Mailbox(name: plain, address: "")
    }
    return Mailbox(name: name, address: address)
  }

  /// A display name: quotes and escapes removed, encoded words decoded, white space collapsed.
  private static func displayName(_ raw: Substring) -> String {
    var name = ""
    var escaped = false
    for character in raw {
      if escaped {
        name.append(character)
        escaped = false
      } else if character == "\\" {
        escaped = true
      } else if character != "\"" {
        name.append(character)
      }
    }
    let decoded = decodeEncodedWords(name)
    return decoded.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }).joined(separator: " ")
  }

  /// A Message-ID without its angle brackets, nil when empty.
  static func messageIdentifier(_ value: String) -> String? {
    let text = value.trimming(" \t")
    if let open = text.firstIndex(of: "<"), let close = text[open...].firstIndex(of: ">") {
      let inner = text[text.index(after: open)..<close].trimming(" \t")
      return inner.isEmpty ? nil : inner
    }
    return text.isEmpty ? nil : text
  }

  /// An RFC 5322 date (`Tue, 1 Dec 2026 09:30:00 +0100`, also with obsolete zone names,
  /// two-digit years, no seconds or a comment), nil when it is not one.
  static func date(_ value: String) -> Date? {
    // Comments (a zone's name, "(CET)") go first.
    var plain = ""
    var depth = 0
    for character in value {
      if character == "(" { depth += 1 } else if character == ")" { depth = max(0, depth - 1) } else if depth == 0 { plain.append(character) }
    }
    var tokens = plain.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," || $0 == "\r" || $0 == "\n" }).map(String.init)
    if let first = tokens.first, first.allSatisfy(\.isLetter) { tokens.removeFirst() }
    guard tokens.count >= 4, let day = Int(tokens[0]), let month = months[tokens[1].prefix(3).lowercased()],
      var year = Int(tokens[2])
    else { return nil }
    if tokens[2].count == 2 { year += year < 50 ? 2000 : 1900 } else if tokens[2].count == 3 { year += 1900 }
    let clock = tokens[3].split(separator: ":").map { Int($0) }
    guard clock.count == 2 || clock.count == 3, clock.allSatisfy({ $0 != nil }) else { return nil }
    let hour = clock[0]!, minute = clock[1]!, second = clock.count == 3 ? clock[2]! : 0
    guard (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
      (1000...9999).contains(year)
    else { return nil }
    let offset = tokens.count > 4 ? zoneOffset(tokens[4]) : 0
    guard let offset else { return nil }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(secondsFromGMT: 0)!
    let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: min(second, 59))
    guard let utc = calendar.date(from: components), calendar.component(.day, from: utc) == day else { return nil }
    return utc.addingTimeInterval(TimeInterval(-offset))
  }

  private static let months: [String: Int] = [
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
  ]

  /// Seconds east of UTC for `+hhmm`/`-hhmm` or an obsolete zone name; unknown names are
  /// UTC, as RFC 5322 §4.3 says.
  private static func zoneOffset(_ zone: String) -> Int? {
    if let sign = zone.first, sign == "+" || sign == "-" {
      let digits = zone.dropFirst()
      guard digits.count == 4, let value = Int(digits) else { return nil }
      let seconds = (value / 100) * 3600 + (value % 100) * 60
      return sign == "-" ? -seconds : seconds
    }
    let hours = ["ut": 0, "utc": 0, "gmt": 0, "z": 0, "edt": -4, "est": -5, "cdt": -5, "cst": -6, "mdt": -6, "mst": -7, "pdt": -7, "pst": -8]
    return (hours[zone.lowercased()] ?? 0) * 3600
  }
}
