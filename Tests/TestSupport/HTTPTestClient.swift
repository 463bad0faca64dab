import Foundation
import Glibc
import SearchIndex

/// A tiny blocking HTTP/1.1 client over a real socket, so the tests see exactly what
/// libmicrohttpd sends (status, headers, chunked bodies) with nothing in between.
public struct HTTPTestClient: Sendable {
  public struct Response: Sendable {
    public var status: Int
    /// Names lowercased.
    public var headers: [String: String]
    public var body: [UInt8]
    public var text: String { String(decoding: body, as: UTF8.self) }
    public var json: JSONValue? { try? JSONParser.parse(text) }
    /// Non-empty lines, each parsed as JSON.
    public var jsonLines: [JSONValue] { text.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) } }
  }

  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  public let port: UInt16
  /// Longest a request may take before the test fails instead of hanging.
  public var timeoutSeconds = 60

  public init(port: UInt16) { self.port = port }

  /// Sends on a thread of its own, so a waiting test never holds a thread of Swift's
  /// cooperative pool (which the server's answer tasks need; this machine may have two).
  public func send(
    _ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil
  ) async throws -> Response {
    try await withCheckedThrowingContinuation { continuation in
      Thread.detachNewThread {
        continuation.resume(with: Result { try sendBlocking(method, path, headers: headers, body: body) })
      }
    }
  }

  public func sendBlocking(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil) throws -> Response {
    try sendBlocking(method, path, headers: headers, bytes: body.map { Array($0.utf8) })
  }

  public func sendBlocking(_ method: String, _ path: String, headers: [String: String] = [:], bytes: [UInt8]?) throws -> Response {
    let fd = try connected()
    defer { close(fd) }
    var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    if let bytes { head += "Content-Length: \(bytes.count)\r\n" }
    head += "\r\n"
    let out = Array(head.utf8) + (bytes ?? [])
    var sent = 0
    while sent < out.count {
      let n = out.withUnsafeBytes { write(fd, $0.baseAddress! + sent, $0.count - sent) }
      // The server may answer (413) and close before the whole body is sent.
      if n <= 0 { break }
      sent += n
    }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n < 0 && received.isEmpty { throw Failure(description: "read failed: errno \(errno)") }
      if n <= 0 { break }
      received.append(contentsOf: buffer[0..<n])
    }
    return try Self.parse(received)
  }

  /// A socket connected to the server, with the client's timeouts.
  private func connected() throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Failure(description: "socket failed") }
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
      close(fd)
      throw Failure(description: "connect failed: errno \(errno)")
    }
    return fd
  }

  /// Sends a GET, reads the first bytes of the answer, and closes the connection: a client
  /// that leaves in the middle of a streamed response.
  public func getAndHangUp(_ path: String) throws -> [UInt8] {
    let fd = try connected()
    defer { close(fd) }
    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
    return n > 0 ? Array(buffer[0..<n]) : []
  }

  static func parse(_ bytes: [UInt8]) throws -> Response {
    let separator: [UInt8] = [13, 10, 13, 10]
    guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else {
      throw Failure(description: "no complete response head in \(bytes.count) bytes")
    }
    let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
    let statusParts = head[0].split(separator: " ")
    guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "bad status line '\(head[0])'") }
    var headers: [String: String] = [:]
    for line in head.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    var body = Array(bytes[(end + 4)...])
    if headers["transfer-encoding"]?.lowercased() == "chunked" { body = try dechunk(body) }
    return Response(status: status, headers: headers, body: body)
  }

  static func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
    var out: [UInt8] = []
    var position = 0
    while position < bytes.count {
      guard let lineEnd = (position..<(bytes.count - 1)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }) else { break }
      let sizeText = String(decoding: bytes[position..<lineEnd], as: UTF8.self).split(separator: ";")[0]
      guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { throw Failure(description: "bad chunk size '\(sizeText)'") }
      if size == 0 { break }
      let start = lineEnd + 2
      guard start + size <= bytes.count else { throw Failure(description: "truncated chunk") }
      out += bytes[start..<(start + size)]
      position = start + size + 2
    }
    return out
  }
}
