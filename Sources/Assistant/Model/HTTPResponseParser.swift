import Foundation

/// Turns the bytes of one HTTP/1.1 response, as they arrive, into its head and the pieces of
/// its body: Content-Length, chunked (RFC 9112 §7.1) and close-delimited bodies.
///
/// It only parses: the socket, the timeouts and the errors a caller reports belong to
/// `SocketHTTPExchange`. Body pieces come out as soon as their bytes are in, so a server-sent
/// event stream reaches its parser one write at a time.
struct HTTPResponseParser {
  /// What a piece of input completed, in order.
  enum Output: Equatable {
    /// The final (non-1xx) status and headers; names lowercased, repeated names joined
    /// with ", ".
    case head(status: Int, headers: [String: String])
    case body(Data)
    /// The body is complete: the connection can be closed.
    case end
  }

  /// Why the bytes are not a usable response.
  enum Problem: Error, Equatable {
    /// The first bytes are not an HTTP/1.x status line and headers.
    case notHTTP(excerpt: String)
    /// The connection ended before the body did (a short Content-Length or chunked body).
    case truncated
    /// The connection ended before a complete head.
    case noHead(receivedBytes: Bool)
    /// A chunk size line that is not hexadecimal.
    case badChunk(String)
  }

  private enum Phase {
    case head
    case fixed(remaining: Int)
    case chunkSize
    case chunkData(remaining: Int)
    case chunkDataEnd
    case trailers
    case untilClose
    case done
  }

  /// A head longer than this is not a model server's.
  static let headLimit = 64 * 1024

  private var phase = Phase.head
  private var buffer: [UInt8] = []
  /// Start of the unread bytes in `buffer`.
  private var position = 0
  private var receivedAny = false

  /// True once the whole body has been read.
  var isComplete: Bool {
    if case .done = phase { return true }
    return false
  }

  /// True once a final head has been parsed.
  private(set) var sawHead = false

  mutating func feed(_ bytes: some Collection<UInt8>) throws(Problem) -> [Output] {
    if !bytes.isEmpty { receivedAny = true }
    if position > 0, position == buffer.count {
      buffer.removeAll(keepingCapacity: true)
      position = 0
    } else if position > 65536 {
      buffer.removeFirst(position)
      position = 0
    }
    buffer.append(contentsOf: bytes)
    var outputs: [Output] = []
    while try step(into: &outputs) {}
    return outputs
  }

  /// The connection was closed by the server: the end of a close-delimited body, or a
  /// truncated one.
  mutating func finish() throws(Problem) -> [Output] {
    switch phase {
    case .done:
      return []
    case .untilClose:
      phase = .done
      return [.end]
    case .head:
      throw .noHead(receivedBytes: receivedAny)
    default:
      throw .truncated
    }
  }

  /// Parses what it can of the buffer; false when it needs more bytes.
  private mutating func step(into outputs: inout [Output]) throws(Problem) -> Bool {
    switch phase {
    case .head:
      guard let end = find([13, 10, 13, 10]) else {
        if buffer.count - position > Self.headLimit { throw .notHTTP(excerpt: excerpt()) }
        return false
      }
      let text = String(decoding: buffer[position..<end], as: UTF8.self)
      position = end + 4
      let (status, headers) = try Self.parseHead(text)
      // 1xx heads (100 Continue, 103 Early Hints) precede the real one.
      if (100..<200).contains(status) { return true }
      sawHead = true
      outputs.append(.head(status: status, headers: headers))
      if status == 204 || status == 304 {
        finishBody(into: &outputs)
      } else if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
        phase = .chunkSize
      } else if let lengthText = headers["content-length"] {
        guard let length = Int(lengthText.split(separator: ",").first?.trimmingCharacters(in: .whitespaces) ?? ""), length >= 0 else {
          throw .notHTTP(excerpt: "content-length: \(lengthText)")
        }
        phase = .fixed(remaining: length)
        if length == 0 { finishBody(into: &outputs) }
      } else {
        phase = .untilClose
      }
      return true
    case .fixed(let remaining):
      let count = min(remaining, buffer.count - position)
      guard count > 0 else { return false }
      outputs.append(.body(take(count)))
      phase = .fixed(remaining: remaining - count)
      if remaining == count { finishBody(into: &outputs) }
      return true
    case .untilClose:
      let count = buffer.count - position
      guard count > 0 else { return false }
      outputs.append(.body(take(count)))
      return true
    case .chunkSize:
      guard let end = find([13, 10]) else {
        if buffer.count - position > 1024 { throw .badChunk(excerpt()) }
        return false
      }
      let line = String(decoding: buffer[position..<end], as: UTF8.self)
      position = end + 2
      // Chunk extensions (";name=value") are allowed and ignored.
      let sizeText = line.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first?
        .trimmingCharacters(in: .whitespaces) ?? ""
      guard !sizeText.isEmpty, sizeText.count <= 15, let size = Int(sizeText, radix: 16) else { throw .badChunk(line) }
      phase = size == 0 ? .trailers : .chunkData(remaining: size)
      return true
    case .chunkData(let remaining):
      let count = min(remaining, buffer.count - position)
      guard count > 0 else { return false }
      outputs.append(.body(take(count)))
      phase = remaining == count ? .chunkDataEnd : .chunkData(remaining: remaining - count)
      return true
    case .chunkDataEnd:
      guard buffer.count - position >= 2 else { return false }
      guard buffer[position] == 13, buffer[position + 1] == 10 else { throw .badChunk(excerpt()) }
      position += 2
      phase = .chunkSize
      return true
    case .trailers:
      guard let end = find([13, 10]) else { return false }
      let empty = end == position
      position = end + 2
      if empty { finishBody(into: &outputs) }
      return true
    case .done:
      return false
    }
  }

  private mutating func finishBody(into outputs: inout [Output]) {
    phase = .done
    outputs.append(.end)
  }

  private mutating func take(_ count: Int) -> Data {
    defer { position += count }
    return Data(buffer[position..<position + count])
  }

  private func find(_ pattern: [UInt8]) -> Int? {
    guard buffer.count - position >= pattern.count else { return nil }
    var index = position
    let last = buffer.count - pattern.count
    while index <= last {
      if buffer[index] == pattern[0] {
        var matched = true
        for offset in 1..<pattern.count where buffer[index + offset] != pattern[offset] {
          matched = false
          break
        }
        if matched { return index }
      }
      index += 1
    }
    return nil
  }

  private func excerpt() -> String {
    ModelError.excerpt(String(decoding: buffer[position..<min(buffer.count, position + 240)], as: UTF8.self))
  }

  /// `HTTP/1.1 200 OK` and the header lines after it.
  static func parseHead(_ text: String) throws(Problem) -> (Int, [String: String]) {
    var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
    let statusLine = lines.isEmpty ? "" : String(lines.removeFirst())
    let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
    guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let status = Int(parts[1]) else {
      throw .notHTTP(excerpt: ModelError.excerpt(statusLine))
    }
    var headers: [String: String] = [:]
    for line in lines where !line.isEmpty {
      guard let colon = line.firstIndex(of: ":") else { continue }
      let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
      let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      if let earlier = headers[name] {
        headers[name] = earlier + ", " + value
      } else {
        headers[name] = value
      }
    }
    return (status, headers)
  }
}
