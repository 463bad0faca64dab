import Foundation

/// One RFC 5322 message or MIME body part: unfolded header fields and the body bytes, with
/// what reading its text needs (content type, transfer encoding, charset).
/// https://www.rfc-editor.org/rfc/rfc5322 and https://www.rfc-editor.org/rfc/rfc2045
struct MIMEEntity {
  /// Header fields in order: lowercased name, unfolded value (not yet RFC 2047 decoded).
  var fields: [(name: String, value: String)] = []
  /// The body, as bytes on the wire.
  var body: ArraySlice<UInt8>

  /// How deeply multiparts and attached messages are followed.
  static let maximumDepth = 16

  /// Splits `bytes` into header fields and body at the first empty line (or the first line
  /// that is not a header field).
  init(_ bytes: ArraySlice<UInt8>) {
    var index = bytes.startIndex
    var current: (name: String, value: [UInt8])?
    func flush(_ fields: inout [(name: String, value: String)]) {
      if let field = current {
        fields.append((field.name, TextDecoding.headerText(field.value).trimming(" \t")))
      }
      current = nil
    }
    var bodyStart = bytes.endIndex
    while index < bytes.endIndex {
      let lineEnd = bytes[index...].firstIndex(of: 0x0A) ?? bytes.endIndex
      var line = bytes[index..<lineEnd]
      if line.last == 0x0D { line = line.dropLast() }
      let next = lineEnd < bytes.endIndex ? lineEnd + 1 : lineEnd
      if line.isEmpty {
        bodyStart = next
        break
      }
      if line.first == 0x20 || line.first == 0x09 {
        // A folded line continues the field before it (RFC 5322 §2.2.3).
        if current != nil {
          current!.value.append(0x20)
          current!.value.append(contentsOf: line.drop(while: { $0 == 0x20 || $0 == 0x09 }))
        }
      } else if let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
        line[..<colon].allSatisfy({ $0 > 0x20 && $0 < 0x7F })
      {
        flush(&fields)
        current = (String(decoding: line[..<colon], as: UTF8.self).lowercased(), Array(line[(colon + 1)...]))
      } else {
        // Not a header field: the body starts here (a message without its blank line).
        bodyStart = index
        break
      }
      index = next
    }
    flush(&fields)
    body = bytes[bodyStart...]
  }

  /// The first field named `name` (lowercase).
  func field(_ name: String) -> String? { fields.first(where: { $0.name == name })?.value }

  /// Every field named `name` (lowercase), in order.
  func allFields(_ name: String) -> [String] { fields.filter { $0.name == name }.map(\.value) }

  /// The media type (`text/plain` when none is given) and its parameters, lowercased names.
  var contentType: (type: String, parameters: [String: String]) {
    guard let value = field("content-type") else { return ("text/plain", [:]) }
    let (type, parameters) = Self.parameters(of: value)
    return (type.isEmpty || !type.contains("/") ? "text/plain" : type, parameters)
  }

  /// The file name an attachment gives (Content-Disposition filename, else Content-Type name).
  var fileName: String? {
    let disposition = field("content-disposition").map(Self.parameters(of:))?.1
    let name = disposition?["filename"] ?? contentType.parameters["name"]
    return name.map(MailHeader.decodeEncodedWords).flatMap { $0.isEmpty ? nil : $0 }
  }

  /// Whether the part is marked as an attachment.
  var isAttachment: Bool {
    field("content-disposition").map(Self.parameters(of:))?.0 == "attachment"
  }

  /// The body with its transfer encoding (quoted-printable, base64) undone.
  var decodedBody: [UInt8] {
    switch field("content-transfer-encoding")?.lowercased().trimming(" \t") {
    case "quoted-printable"?: Self.decodeQuotedPrintable(body)
    case "base64"?: Self.decodeBase64(body)
    default: Array(body)
    }
  }

  /// The decoded body as text, in the charset the part names.
  var text: String { TextDecoding.decode(decodedBody, charset: contentType.parameters["charset"]) }

  /// The text of the message: text/plain preferred over text/html in multipart/alternative,
  /// the text parts of other multiparts joined, HTML reduced to its visible text, attached
  /// messages followed; and the names of attachments.
  func readableText() -> (text: String, attachments: [String]) {
    var texts: [String] = []
    var attachments: [String] = []
    collect(depth: 0, texts: &texts, attachments: &attachments)
    return (texts.map { $0.trimming(" \t\r\n") }.filter { !$0.isEmpty }.joined(separator: "\n\n"), attachments)
  }

  private func collect(depth: Int, texts: inout [String], attachments: inout [String]) {
    guard depth <= Self.maximumDepth else { return }
    let (type, parameters) = contentType
    if isAttachment {
      if let name = fileName { attachments.append(name) }
      return
    }
    if type.hasPrefix("multipart/") {
      let parts = Self.parts(of: body, boundary: parameters["boundary"] ?? "")
      if type == "multipart/alternative" {
        // The plain text, else the HTML, else the first nested multipart.
        let ranked = parts.map { part -> Int in
          let partType = part.contentType.type
          return part.isAttachment ? 0 : partType == "text/plain" ? 3 : partType == "text/html" ? 2 : partType.hasPrefix("multipart/") ? 1 : 0
        }
        if let best = ranked.max(), best > 0, let chosen = ranked.firstIndex(of: best) {
          parts[chosen].collect(depth: depth + 1, texts: &texts, attachments: &attachments)
        }
      } else {
        for part in parts { part.collect(depth: depth + 1, texts: &texts, attachments: &attachments) }
      }
    } else if type == "text/plain" || type == "text" {
      texts.append(text)
    } else if type == "text/html" {
      texts.append(HTMLDocument.parse(Array(text.utf8), encoding: "UTF-8").text)
    } else if type == "message/rfc822" || type == "message/global" {
      MIMEEntity(decodedBody[...]).collect(depth: depth + 1, texts: &texts, attachments: &attachments)
    } else if let name = fileName {
      attachments.append(name)
    }
  }

  /// The body parts of a multipart body: the text between `--boundary` lines, up to
  /// `--boundary--`. The preamble and epilogue are not parts.
  static func parts(of body: ArraySlice<UInt8>, boundary: String) -> [MIMEEntity] {
    guard !boundary.isEmpty else { return [] }
    let delimiter = Array("--\(boundary)".utf8)
    var parts: [MIMEEntity] = []
    var partStart: Int?
    var index = body.startIndex
    while index < body.endIndex {
      let lineEnd = body[index...].firstIndex(of: 0x0A) ?? body.endIndex
      let line = body[index..<lineEnd]
      if line.starts(with: delimiter) {
        let rest = line.dropFirst(delimiter.count)
        let isClose = rest.starts(with: [0x2D, 0x2D])
        let after = isClose ? rest.dropFirst(2) : rest
        if after.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
          if let start = partStart {
            // The line break before the delimiter belongs to the delimiter.
            var end = index
            if end > start, body[end - 1] == 0x0A { end -= 1 }
            if end > start, body[end - 1] == 0x0D { end -= 1 }
            parts.append(MIMEEntity(body[start..<max(start, end)]))
          }
          if isClose { return parts }
          partStart = lineEnd < body.endIndex ? lineEnd + 1 : lineEnd
        }
      }
      index = lineEnd < body.endIndex ? lineEnd + 1 : lineEnd
    }
    if let start = partStart, start < body.endIndex { parts.append(MIMEEntity(body[start...])) }
    return parts
  }

  /// A header value's main token (lowercased) and its `; name=value` parameters (names
  /// lowercased, quotes removed; RFC 2231 `name*=charset''text` decoded).
  static func parameters(of value: String) -> (String, [String: String]) {
    var pieces: [String] = []
    var current = ""
    var quoted = false
    var escaped = false
    for character in value {
      if escaped {
        current.append(character)
        escaped = false
      } else if character == "\\" && quoted {
        escaped = true
      } else if character == "\"" {
        quoted.toggle()
      } else if character == ";" && !quoted {
        pieces.append(current)
        current = ""
      } else {
        current.append(character)
      }
    }
    pieces.append(current)
    let main = pieces.removeFirst().trimming(" \t").lowercased()
    var parameters: [String: String] = [:]
    for piece in pieces {
      guard let equals = piece.firstIndex(of: "=") else { continue }
      var name = piece[..<equals].trimming(" \t").lowercased()
      var value = piece[piece.index(after: equals)...].trimming(" \t")
      if name.hasSuffix("*") {
        // RFC 2231: charset'language'percent-encoded text.
        name.removeLast()
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        if parts.count == 3 {
          let bytes = percentDecoded(parts[2])
          value = TextDecoding.decode(bytes, charset: String(parts[0]))
        }
      }
      if parameters[name] == nil { parameters[name] = value }
    }
    return (main, parameters)
  }

  private static func percentDecoded(_ text: Substring) -> [UInt8] {
    var bytes: [UInt8] = []
    var utf8 = Array(text.utf8)[...]
    while let byte = utf8.popFirst() {
      if byte == UInt8(ascii: "%"), utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
        bytes.append(value)
        utf8 = utf8.dropFirst(2)
      } else {
        bytes.append(byte)
      }
    }
    return bytes
  }

  /// Undoes quoted-printable (RFC 2045 §6.7): `=XX` is a byte, `=` at the end of a line joins
  /// it to the next; anything else (a stray `=`) is kept as it is.
  static func decodeQuotedPrintable(_ bytes: some Collection<UInt8>) -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count)
    let input = Array(bytes)
    var index = 0
    func hex(_ byte: UInt8) -> UInt8? {
      switch byte {
      case 0x30...0x39: byte - 0x30
      case 0x41...0x46: byte - 0x41 + 10
      case 0x61...0x66: byte - 0x61 + 10
      default: nil
      }
    }
    while index < input.count {
      let byte = input[index]
      guard byte == UInt8(ascii: "=") else {
        output.append(byte)
        index += 1
        continue
      }
      // A soft line break: '=' then optional white space then the line end.
      var after = index + 1
      while after < input.count, input[after] == 0x20 || input[after] == 0x09 { after += 1 }
      if after < input.count, input[after] == 0x0D || input[after] == 0x0A {
        if input[after] == 0x0D, after + 1 < input.count, input[after + 1] == 0x0A { after += 1 }
        index = after + 1
        continue
      }
      if after == input.count {
        index = after
        continue
      }
      if index + 2 < input.count, let high = hex(input[index + 1]), let low = hex(input[index + 2]) {
        output.append(high << 4 | low)
        index += 3
      } else {
        output.append(byte)
        index += 1
      }
    }
    return output
  }

  /// Undoes base64, ignoring line breaks and anything else outside the alphabet; a truncated
  /// last group gives the bytes it holds.
  static func decodeBase64(_ bytes: some Collection<UInt8>) -> [UInt8] {
    var values: [UInt8] = []
    values.reserveCapacity(bytes.count)
    for byte in bytes {
      switch byte {
      case 0x41...0x5A: values.append(byte - 0x41)
      case 0x61...0x7A: values.append(byte - 0x61 + 26)
      case 0x30...0x39: values.append(byte - 0x30 + 52)
      case UInt8(ascii: "+"), UInt8(ascii: "-"): values.append(62)
      case UInt8(ascii: "/"), UInt8(ascii: "_"): values.append(63)
      case UInt8(ascii: "="): break
      default: continue
      }
      if byte == UInt8(ascii: "=") { break }
    }
    var output: [UInt8] = []
    output.reserveCapacity(values.count * 3 / 4)
    var index = 0
    while index + 1 < values.count {
      let a = values[index], b = values[index + 1]
      output.append(a << 2 | b >> 4)
      if index + 2 < values.count {
        let c = values[index + 2]
        output.append((b & 0x0F) << 4 | c >> 2)
        if index + 3 < values.count { output.append((c & 0x03) << 6 | values[index + 3]) }
      }
      index += 4
    }
    return output
  }
}
