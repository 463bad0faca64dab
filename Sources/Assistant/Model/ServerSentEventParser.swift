/// Incremental parser for `text/event-stream` bodies (the WHATWG server-sent events format).
///
/// Bytes are fed as they arrive, in pieces that may split lines, CRLF pairs or multi-byte
/// characters anywhere; complete events come out as soon as their terminating blank line
/// has arrived, which is what lets text reach the user token by token.
struct ServerSentEventParser {
  /// One dispatched event. `type` is the `event:` field, "message" when absent.
  struct Event: Sendable, Equatable {
    var type: String
    /// `data:` lines joined with "\n", as the format specifies.
    var data: String
  }

  /// A single event this large means a broken or hostile server, not a model answer.
  static let maximumEventBytes = 16 * 1024 * 1024

  private var line: [UInt8] = []
  private var dataLines: [String] = []
  private var pendingBytes = 0
  private var eventType = ""
  private var sawData = false
  /// A CR ended the previous piece; an LF starting the next piece belongs to it.
  private var skipLeadingLF = false

  init() {}

  /// Consumes a piece of the body and returns the events it completed.
  mutating func feed(_ bytes: some Sequence<UInt8>) throws(ModelError) -> [Event] {
    var events: [Event] = []
    for byte in bytes {
      if skipLeadingLF {
        skipLeadingLF = false
        if byte == 0x0A { continue }
      }
      switch byte {
      case 0x0A:
        if let event = endLine() { events.append(event) }
      case 0x0D:
        skipLeadingLF = true
        if let event = endLine() { events.append(event) }
      default:
        line.append(byte)
        pendingBytes += 1
        if pendingBytes > Self.maximumEventBytes {
          throw .malformed(problem: "server-sent event larger than \(Self.maximumEventBytes) bytes", excerpt: ModelError.excerpt(String(decoding: line.prefix(1000), as: UTF8.self)))
        }
      }
    }
    return events
  }

  /// Flushes an event the server left unterminated when it closed the connection. The
  /// format says to drop it, but servers that end on `data: [DONE]\n` without the blank
  /// line exist, and losing their last event would lose the end of the answer.
  mutating func finish() -> [Event] {
    var events: [Event] = []
    if !line.isEmpty, let event = endLine() { events.append(event) }
    if let event = endLine() { events.append(event) }
    return events
  }

  private mutating func endLine() -> Event? {
    defer { line.removeAll(keepingCapacity: true) }
    if line.isEmpty {
      return dispatch()
    }
    if line.first == UInt8(ascii: ":") {
      // A comment, which servers send as keep-alive; it carries nothing.
      return nil
    }
    let text = String(decoding: line, as: UTF8.self)
    let field: Substring
    var value: Substring
    if let colon = text.firstIndex(of: ":") {
      field = text[..<colon]
      value = text[text.index(after: colon)...]
      if value.first == " " { value = value.dropFirst() }
    } else {
      field = Substring(text)
      value = ""
    }
    switch field {
    case "data":
      dataLines.append(String(value))
      sawData = true
    case "event":
      eventType = String(value)
    default:
      // `id` and `retry` matter only to reconnecting browsers; unknown fields are
      // ignored as the format requires.
      break
    }
    return nil
  }

  private mutating func dispatch() -> Event? {
    defer {
      dataLines.removeAll()
      eventType = ""
      sawData = false
      pendingBytes = 0
    }
    guard sawData else { return nil }
    return Event(type: eventType.isEmpty ? "message" : eventType, data: dataLines.joined(separator: "\n"))
  }
}
