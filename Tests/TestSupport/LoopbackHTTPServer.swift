import Foundation
import Glibc
import SearchIndex
import Synchronization

/// A scripted HTTP/1.1 server on 127.0.0.1, so client tests exercise real sockets, real
/// framing and real timing without any outside network.
///
/// Each incoming request takes the next `ScriptedResponse` (a request beyond the script
/// gets a 500 saying so) and is recorded for assertions. Every connection is served on its
/// own thread and closed after one response, so a hanging script never blocks a retry.
package final class LoopbackHTTPServer: Sendable {
  /// What the client sent, as the server received it.
  package struct RecordedRequest: Sendable {
    package let method: String
    package let path: String
    /// Names lowercased.
    package let headers: [String: String]
    package let body: Data

    package var json: JSONValue? { try? JSONParser.parse(body) }
  }

  /// Shared between the accept thread, connection threads and the test.
  private struct State {
    var script: [ScriptedResponse]
    var responder: (@Sendable (RecordedRequest) -> ScriptedResponse)?
    var requests: [RecordedRequest] = []
    var stopped = false
  }

  package let port: UInt16
  /// Opens when the client closes a connection while the server was still writing or
  /// waiting to, i.e. when the client gave up on a response.
  package let clientHungUp = TestGate()
  private let state: Mutex<State>

  /// Longest a `.waitFor` step holds a response; long enough for a loaded machine, short
  /// enough that a broken client fails the test instead of hanging it.
  static let gateTimeout = TestGate.patience

  /// A server that answers from `script` first, then by calling `responder` (a server that
  /// computes its answers, e.g. embeddings of the request's texts).
  package convenience init(_ script: [ScriptedResponse] = [], responder: @escaping @Sendable (RecordedRequest) -> ScriptedResponse) throws {
    try self.init(script)
    state.withLock { $0.responder = responder }
  }

  package init(_ script: [ScriptedResponse]) throws {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard listener >= 0 else { throw POSIXFailure("socket", errno) }
    var yes: Int32 = 1
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = Self.loopbackAddress(port: 0)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(listener, 16) == 0 else {
      let code = errno
      close(listener)
      throw POSIXFailure("bind/listen", code)
    }
    port = Self.localPort(of: listener)
    state = Mutex(State(script: script))
    let thread = Thread { [self] in acceptLoop(listener) }
    thread.name = "loopback-accept"
    thread.start()
  }

  package var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  package var requests: [RecordedRequest] { state.withLock { $0.requests } }

  /// Stops accepting and makes every connection thread finish its current wait. The
  /// accept thread closes the listener itself: closing it here could let the descriptor
  /// number be reused by another test's socket while that thread still polls it.
  package func stop() {
    state.withLock { $0.stopped = true }
  }

  private var isStopped: Bool { state.withLock { $0.stopped } }

  /// A loopback port with nothing listening, for connection-refused tests. Bound and
  /// released at once, so no other test's server can be holding it at that moment.
  /// A port bound on 127.0.0.1 that nobody listens on, kept bound while the value lives:
  /// a connection to it is refused, and no other server (another test's, started in the
  /// meantime) can take it, as it could a port found free and let go.
  package final class RefusingPort: Sendable {
    package let port: UInt16
    private let socket: Int32

    package init() {
      let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = LoopbackHTTPServer.loopbackAddress(port: 0)
      _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
      }
      socket = fd
      port = LoopbackHTTPServer.localPort(of: fd)
    }

    deinit { close(socket) }
  }

  package static func unusedPort() -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = loopbackAddress(port: 0)
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    return localPort(of: fd)
  }

  // MARK: Accepting

  private func acceptLoop(_ listener: Int32) {
    defer { close(listener) }
    while !isStopped {
      var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
      // A short poll so `stop()` is noticed promptly without closing under accept().
      guard poll(&descriptor, 1, 50) > 0 else { continue }
      let connection = accept(listener, nil, nil)
      guard connection >= 0 else { continue }
      let thread = Thread { [self] in serve(connection) }
      thread.name = "loopback-connection"
      thread.start()
    }
  }

  private func serve(_ connection: Int32) {
    var connectionOpen = true
    defer { if connectionOpen { close(connection) } }
    guard let request = readRequest(connection) else { return }
    let response = state.withLock { state -> ScriptedResponse in
      state.requests.append(request)
      if !state.script.isEmpty { return state.script.removeFirst() }
      return state.responder?(request) ?? .status(500, body: "loopback server: no scripted response left")
    }
    switch response.kind {
    case .respond:
      connectionOpen = respond(response, on: connection)
    case .closeWithoutResponse:
      shutdown(connection, Int32(SHUT_RDWR))
    case .resetWithoutResponse:
      reset(connection)
      connectionOpen = false
    case .neverRespond:
      _ = waitWatchingForHangUp(connection, for: nil, reportingHangUp: true)
    }
  }

  // MARK: Reading

  private func readRequest(_ connection: Int32) -> RecordedRequest? {
    var buffer: [UInt8] = []
    let terminator: [UInt8] = Array("\r\n\r\n".utf8)
    var headerEnd: Int?
    while headerEnd == nil {
      guard let bytes = receive(connection) else { return nil }
      buffer += bytes
      headerEnd = buffer.firstRange(of: terminator)?.upperBound
    }
    guard let end = headerEnd else { return nil }
    let head = String(decoding: buffer[..<end], as: UTF8.self)
    var lines = head.components(separatedBy: "\r\n")
    let requestLine = lines.removeFirst().split(separator: " ")
    guard requestLine.count >= 2 else { return nil }
    var headers: [String: String] = [:]
    for line in lines where !line.isEmpty {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    var body = Array(buffer[end...])
    let length = Int(headers["content-length"] ?? "0") ?? 0
    while body.count < length {
      guard let bytes = receive(connection) else { return nil }
      body += bytes
    }
    return RecordedRequest(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: Data(body))
  }

  /// Next bytes from the client, or nil when it closed or the server is stopping.
  private func receive(_ connection: Int32) -> [UInt8]? {
    var chunk = [UInt8](repeating: 0, count: 65536)
    while !isStopped {
      var descriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, 50) > 0 else { continue }
      let count = recv(connection, &chunk, chunk.count, 0)
      return count > 0 ? Array(chunk[..<count]) : nil
    }
    return nil
  }

  // MARK: Writing

  /// Writes the scripted response; returns false if it already closed the connection.
  private func respond(_ response: ScriptedResponse, on connection: Int32) -> Bool {
    var head = "HTTP/1.1 \(response.status) \(Self.reasonPhrase(response.status))\r\n"
    for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
    switch response.framing {
    case .contentLength:
      let length = response.steps.reduce(0) { total, step in
        if case .write(let data) = step { return total + data.count }
        return total
      }
      head += "Content-Length: \(length)\r\n"
    case .chunked:
      head += "Transfer-Encoding: chunked\r\n"
    case .closeDelimited:
      break
    }
    head += "Connection: close\r\n\r\n"
    guard send(Data(head.utf8), on: connection) else { return true }

    for step in response.steps {
      switch step {
      case .write(let data):
        let framed = response.framing == .chunked
          ? Data("\(String(data.count, radix: 16))\r\n".utf8) + data + Data("\r\n".utf8)
          : data
        guard send(framed, on: connection) else { return true }
      case .pause(let duration):
        guard waitWatchingForHangUp(connection, for: duration, reportingHangUp: true) else { return true }
      case .waitFor(let gate):
        _ = gate.blockingWait(timeout: Self.gateTimeout)
      case .open(let gate):
        gate.open()
      case .reset:
        reset(connection)
        return false
      }
    }
    if response.framing == .chunked {
      _ = send(Data("0\r\n\r\n".utf8), on: connection)
    }
    // Half-close and drain so the client sees a clean end rather than a reset.
    shutdown(connection, Int32(SHUT_WR))
    _ = waitWatchingForHangUp(connection, for: .seconds(5), reportingHangUp: false)
    return true
  }

  private func send(_ data: Data, on connection: Int32) -> Bool {
    let sent = data.withUnsafeBytes { buffer -> Bool in
      var offset = 0
      while offset < buffer.count {
        // MSG_NOSIGNAL: a client that hung up must not kill the test process with SIGPIPE.
        let count = Glibc.send(connection, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
        if count <= 0 { return false }
        offset += count
      }
      return true
    }
    if !sent { clientHungUp.open() }
    return sent
  }

  /// Waits `duration` (forever when nil) unless the client closes first or the server stops.
  /// Returns false if the client closed, opening `clientHungUp` when asked to: a close
  /// after the response was complete is normal and must not count.
  private func waitWatchingForHangUp(_ connection: Int32, for duration: Duration?, reportingHangUp: Bool) -> Bool {
    let clock = ContinuousClock()
    let deadline = duration.map { clock.now + $0 }
    var scratch = [UInt8](repeating: 0, count: 4096)
    while !isStopped {
      if let deadline, clock.now >= deadline { return true }
      var descriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, 20) > 0 else { continue }
      if recv(connection, &scratch, scratch.count, 0) <= 0 {
        if reportingHangUp { clientHungUp.open() }
        return false
      }
    }
    return true
  }

  /// Closes with SO_LINGER 0, which sends RST instead of FIN: a crashed or killed peer.
  private func reset(_ connection: Int32) {
    var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
    setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    close(connection)
  }

  // MARK: Helpers

  fileprivate static func loopbackAddress(port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
    return address
  }

  fileprivate static func localPort(of fd: Int32) -> UInt16 {
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return UInt16(bigEndian: address.sin_port)
  }

  private static func reasonPhrase(_ status: Int) -> String {
    switch status {
    case 200: "OK"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 429: "Too Many Requests"
    case 500: "Internal Server Error"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    case 504: "Gateway Timeout"
    default: "Status"
    }
  }

  /// A failed socket call during setup.
  package struct POSIXFailure: Error, CustomStringConvertible {
    let call: String
    let code: Int32
    init(_ call: String, _ code: Int32) {
      self.call = call
      self.code = code
    }
    package var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
  }
}
