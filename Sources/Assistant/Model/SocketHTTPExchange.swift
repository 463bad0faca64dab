import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One plain-http request over a TCP socket that sleeps in poll(2) whenever nothing arrives.
///
/// Why not URLSession: swift-corelibs-foundation drives libcurl with Dispatch sources and
/// never removes the write source it creates while connecting, so once the request is sent
/// an always-writable socket wakes curl in a loop until the response ends. Waiting on a
/// model that takes 16 s to answer cost 15.8 s of CPU (mostly system time) and halved the
/// speed of a local server sharing the machine. Here a request blocks in `poll` on its socket
/// and a wake-up pipe, with the nearest deadline as poll's timeout, so a silent server costs
/// nothing and a timeout or cancellation is noticed at once.
///
/// It speaks HTTP/1.1 with `Connection: close` (one request per connection, like the
/// URLSession exchanges before it) and reads Content-Length, chunked and close-delimited
/// bodies. https stays on URLSession, which has TLS.
final class SocketHTTPExchange: Sendable {
  /// The cancellation state and the wake-up pipe, under one lock so that `cancel()` never
  /// writes to a descriptor that `run` has closed (and the system may have reused).
  private struct Wake {
    var cancelled = false
    var closed = false
  }

  private let request: URLRequest
  private let requestTimeout: Duration
  private let idleTimeout: Duration
  private let wakeRead: Int32
  private let wakeWrite: Int32
  private let wake = Mutex(Wake())

  /// Longest request head or body this client sends as one write loop; requests are small.
  private static let receiveSize = 64 * 1024

  init(_ request: URLRequest, requestTimeout: Duration, idleTimeout: Duration) throws(HTTPExchange.Failure) {
    self.request = request
    self.requestTimeout = requestTimeout
    self.idleTimeout = idleTimeout
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else {
      throw HTTPExchange.Failure(error: .unreachable(url: request.url?.absoluteString ?? "", reason: Self.describe(errno)), retryable: false)
    }
    for fd in fds { Self.configure(fd) }
    wakeRead = fds[0]
    wakeWrite = fds[1]
  }

  deinit {
    closeWakePipe()
  }

  /// True for the URLs this exchange serves: plain http.
  static func serves(_ url: URL?) -> Bool {
    url?.scheme?.lowercased() == "http" && url?.host != nil
  }

  /// Sends `request` on a thread of its own and returns the response as it arrives, like
  /// `HTTPExchange.start`: ending iteration or cancelling the iterating task closes the
  /// connection at once. The stream throws only `HTTPExchange.Failure`.
  static func start(_ request: URLRequest, requestTimeout: Duration, idleTimeout: Duration) -> AsyncThrowingStream<HTTPExchange.Part, any Error> {
    let (stream, continuation) = AsyncThrowingStream<HTTPExchange.Part, any Error>.makeStream()
    let exchange: SocketHTTPExchange
    do {
      exchange = try SocketHTTPExchange(request, requestTimeout: requestTimeout, idleTimeout: idleTimeout)
    } catch {
      continuation.finish(throwing: error)
      return stream
    }
    continuation.onTermination = { _ in exchange.cancel() }
    // A thread of its own rather than a Dispatch worker: it may block for minutes while a
    // model thinks, which must not hold one of the few pool threads.
    let thread = Thread {
      do {
        try exchange.run(
          onHead: { status, headers in continuation.yield(.head(status: status, headers: headers)) },
          onBody: { data in
            if case .terminated = continuation.yield(.body(data)) { return false }
            return true
          })
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    thread.name = "searchlight-http"
    thread.start()
    return stream
  }

  /// Makes a running (or future) `run` stop with `.cancelled` as soon as it next waits.
  func cancel() {
    wake.withLock { state in
      guard !state.closed, !state.cancelled else { return }
      state.cancelled = true
      var byte: UInt8 = 1
      _ = write(wakeWrite, &byte, 1)
    }
  }

  private func closeWakePipe() {
    wake.withLock { state in
      guard !state.closed else { return }
      state.closed = true
      close(wakeRead)
      close(wakeWrite)
    }
  }

  private var isCancelled: Bool { wake.withLock { $0.cancelled } }

  /// Performs the exchange on the calling thread: `onHead` once with the final status and
  /// headers, then `onBody` for each piece of body until the body ends (or `onBody`
  /// returns false, which closes the connection early). Throws `HTTPExchange.Failure`.
  func run(onHead: (Int, [String: String]) -> Void, onBody: (Data) -> Bool) throws(HTTPExchange.Failure) {
    defer { closeWakePipe() }
    let started = ContinuousClock.now
    let deadline = started + requestTimeout
    let url = request.url?.absoluteString ?? ""
    guard let target = request.url, let host = target.host else {
      throw HTTPExchange.Failure(error: .unreachable(url: url, reason: "not an http url"), retryable: false)
    }
    // Connecting may take the idle timeout at most: a host that drops packets is as
    // unreachable as one that refuses.
    let socket = try connect(host: host, port: target.port ?? 80, deadline: min(deadline, started + idleTimeout), url: url)
    defer { close(socket) }
    try send(Self.encode(request, host: host, port: target.port), on: socket, deadline: deadline, url: url)

    var parser = HTTPResponseParser()
    var lastActivity = ContinuousClock.now
    var buffer = [UInt8](repeating: 0, count: Self.receiveSize)
    while true {
      // Silence counts before the status line too: a hung server must not hold a person
      // for the whole request timeout. A model that thinks longer before its first byte
      // needs a longer idle timeout (`--timeout`).
      let idleDeadline = lastActivity + idleTimeout
      try waitFor(Int16(POLLIN), on: socket, until: min(deadline, idleDeadline), url: url) {
        if ContinuousClock.now >= deadline { return .timeout(seconds: requestTimeout.inSeconds, idle: false) }
        return parser.sawHead ? .timeout(seconds: idleTimeout.inSeconds, idle: true) : .silent(seconds: idleTimeout.inSeconds)
      }
      let count = recv(socket, &buffer, buffer.count, 0)
      if count < 0 {
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { continue }
        throw lost(code, sawHead: parser.sawHead, url: url)
      }
      let outputs: [HTTPResponseParser.Output]
      do {
        outputs = count == 0 ? try parser.finish() : try parser.feed(buffer[0..<count])
      } catch {
        throw Self.failure(error, url: url)
      }
      lastActivity = .now
      for output in outputs {
        switch output {
        case .head(let status, let headers):
          onHead(status, headers)
        case .body(let data):
          if !onBody(data) { return }
        case .end:
          return
        }
      }
    }
  }

  // MARK: Connecting and sending

  /// A connected non-blocking socket to the first address of `host` that accepts.
  private func connect(host: String, port: Int, deadline: ContinuousClock.Instant, url: String) throws(HTTPExchange.Failure) -> Int32 {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Self.streamType
    var list: UnsafeMutablePointer<addrinfo>?
    // URL hosts of IPv6 literals come bracketed.
    let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    guard getaddrinfo(name, String(port), &hints, &list) == 0, let first = list else {
      throw HTTPExchange.Failure(error: .unreachable(url: url, reason: "host not found"), retryable: false)
    }
    defer { freeaddrinfo(first) }
    var lastError: Int32 = ECONNREFUSED
    var entry: UnsafeMutablePointer<addrinfo>? = first
    while let address = entry {
      entry = address.pointee.ai_next
      let fd = systemSocket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
      guard fd >= 0 else {
        lastError = errno
        continue
      }
      Self.configure(fd)
      if systemConnect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return fd }
      var code = errno
      if code == EINPROGRESS || code == EINTR {
        do {
          try waitFor(Int16(POLLOUT), on: fd, until: deadline, url: url) {
            .unreachable(url: url, reason: "no connection within \(ModelError.seconds(min(idleTimeout, requestTimeout).inSeconds))s")
          }
        } catch {
          close(fd)
          throw error
        }
        var result: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &result, &length)
        if result == 0 { return fd }
        code = result
      }
      close(fd)
      lastError = code
    }
    let reason = lastError == ECONNREFUSED ? "connection refused" : Self.describe(lastError)
    // Refused or unreachable: nothing was sent, so one more try cannot duplicate anything.
    throw HTTPExchange.Failure(error: .unreachable(url: url, reason: reason), retryable: true)
  }

  private func send(_ bytes: [UInt8], on socket: Int32, deadline: ContinuousClock.Instant, url: String) throws(HTTPExchange.Failure) {
    var offset = 0
    while offset < bytes.count {
      let count = bytes.withUnsafeBytes { buffer in
        systemSend(socket, buffer.baseAddress! + offset, buffer.count - offset, Self.sendFlags)
      }
      if count >= 0 {
        offset += count
        continue
      }
      let code = errno
      if code == EAGAIN || code == EWOULDBLOCK || code == EINTR {
        try waitFor(Int16(POLLOUT), on: socket, until: deadline, url: url) { .timeout(seconds: requestTimeout.inSeconds, idle: false) }
        continue
      }
      throw lost(code, sawHead: false, url: url)
    }
  }

  /// Sleeps in poll(2) until `socket` is ready for `events`, the exchange is cancelled, or
  /// `until` passes (then throws what `timeout` names).
  private func waitFor(
    _ events: Int16, on socket: Int32, until: ContinuousClock.Instant, url: String, timeout: () -> ModelError
  ) throws(HTTPExchange.Failure) {
    while true {
      if isCancelled { throw HTTPExchange.Failure(error: .cancelled, retryable: false) }
      let remaining = until - ContinuousClock.now
      if remaining <= .zero { throw HTTPExchange.Failure(error: timeout(), retryable: false) }
      // Rounded up, so a wake-up never comes a hair early and loops with a zero timeout.
      let milliseconds = min(Double(Int32.max), (remaining.inSeconds * 1000).rounded(.up))
      var descriptors = [
        pollfd(fd: socket, events: events, revents: 0),
        pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
      ]
      let ready = poll(&descriptors, 2, Int32(milliseconds))
      if ready < 0 {
        let code = errno
        if code == EINTR { continue }
        throw HTTPExchange.Failure(error: .unreachable(url: url, reason: Self.describe(code)), retryable: false)
      }
      if descriptors[1].revents != 0 { throw HTTPExchange.Failure(error: .cancelled, retryable: false) }
      // Errors and hang-ups count as ready: the next recv or send reports them.
      if descriptors[0].revents != 0 { return }
    }
  }

  // MARK: Errors

  /// A connection that failed while sending or receiving, in the words of the URLSession
  /// exchange: before any response it may be retried, after the head it may not.
  private func lost(_ code: Int32, sawHead: Bool, url: String) -> HTTPExchange.Failure {
    if code == ECONNRESET || code == EPIPE || code == ECONNABORTED {
      let reason = sawHead ? "connection lost in the middle of the response" : "connection closed before a response"
      return HTTPExchange.Failure(error: .unreachable(url: url, reason: reason), retryable: !sawHead)
    }
    return HTTPExchange.Failure(error: .unreachable(url: url, reason: Self.describe(code)), retryable: false)
  }

  private static func failure(_ problem: HTTPResponseParser.Problem, url: String) -> HTTPExchange.Failure {
    switch problem {
    case .noHead(let receivedBytes):
      return HTTPExchange.Failure(error: .unreachable(url: url, reason: "connection closed before a response"), retryable: !receivedBytes)
    case .truncated:
      return HTTPExchange.Failure(error: .unreachable(url: url, reason: "connection lost in the middle of the response"), retryable: false)
    case .notHTTP(let excerpt):
      return HTTPExchange.Failure(error: .malformed(problem: "response is not http", excerpt: excerpt), retryable: false)
    case .badChunk(let line):
      return HTTPExchange.Failure(error: .malformed(problem: "invalid chunk size in the response", excerpt: ModelError.excerpt(line)), retryable: false)
    }
  }

  private static func describe(_ code: Int32) -> String {
    "\(String(cString: strerror(code)).lowercased()) (errno \(code))"
  }

  // MARK: The request

  /// The request head and body as bytes. The body is always sent with its length, and the
  /// server is asked to close the connection after the response.
  static func encode(_ request: URLRequest, host: String, port: Int?) -> [UInt8] {
    let body = request.httpBody ?? Data()
    var target = "/"
    if let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
      target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
      if let query = components.percentEncodedQuery { target += "?" + query }
    }
    var head = "\(request.httpMethod ?? "GET") \(target) HTTP/1.1\r\n"
    head += "Host: \(host)\(port.map { ":\($0)" } ?? "")\r\n"
    let skipped: Set<String> = ["host", "content-length", "connection", "transfer-encoding"]
    for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) where !skipped.contains(name.lowercased()) {
      // Header values never carry line breaks into the request.
      let clean = value.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
      head += "\(name): \(clean)\r\n"
    }
    if request.value(forHTTPHeaderField: "User-Agent") == nil { head += "User-Agent: searchlight\r\n" }
    head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
    return Array(head.utf8) + Array(body)
  }

  // MARK: Platform

  /// Non-blocking, and closed on exec so a spawned process never inherits a connection.
  private static func configure(_ fd: Int32) {
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    #if canImport(Darwin)
    var yes: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
    #endif
  }

  #if canImport(Glibc)
  private static let streamType = Int32(SOCK_STREAM.rawValue)
  /// A server that hung up must not kill the process with SIGPIPE.
  private static let sendFlags = Int32(MSG_NOSIGNAL)
  #else
  private static let streamType = SOCK_STREAM
  private static let sendFlags: Int32 = 0
  #endif
}

// The C calls under names that do not collide with this file's methods and locals.
private func systemSocket(_ family: Int32, _ type: Int32, _ proto: Int32) -> Int32 {
  #if canImport(Glibc)
  Glibc.socket(family, type, proto)
  #else
  Darwin.socket(family, type, proto)
  #endif
}

private func systemConnect(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>!, _ length: socklen_t) -> Int32 {
  #if canImport(Glibc)
  Glibc.connect(fd, address, length)
  #else
  Darwin.connect(fd, address, length)
  #endif
}

private func systemSend(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
  #if canImport(Glibc)
  Glibc.send(fd, bytes, count, flags)
  #else
  Darwin.send(fd, bytes, count, flags)
  #endif
}
