internal import CMicroHTTPD
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// An HTTP/1.1 server on GNU libmicrohttpd that hands each complete request to `handler`.
///
/// libmicrohttpd owns the sockets, the parsing, keep-alive and chunked encoding; it serves
/// each connection on its own thread (`MHD_USE_THREAD_PER_CONNECTION`), so a handler may block
/// (a query, a streamed answer) without holding up other clients. Bodies over
/// `maximumBodyBytes` are refused with 413 before the handler sees them; idle connections
/// close after `connectionTimeout` seconds.
/// https://www.gnu.org/software/libmicrohttpd/manual/libmicrohttpd.html
package final class HTTPServer: Sendable {
  package struct Configuration: Sendable {
    /// The address to bind: an IPv4 or IPv6 literal, or `localhost`.
    package var host = "127.0.0.1"
    /// 0 picks a free port (read it back from `port`).
    package var port: UInt16 = 8421
    /// The largest request body accepted (413 beyond it).
    package var maximumBodyBytes = 16 << 20
    /// Seconds an idle or stalled connection is kept.
    package var connectionTimeout: UInt32 = 30
    /// Connections served at once; more wait in the listen queue.
    package var connectionLimit: UInt32 = 256
    /// How long `stop` waits for requests in flight before cutting them.
    package var shutdownGrace: Duration = .seconds(10)

    package init() {}
  }

  /// Why the server could not start.
  package struct StartError: Error, CustomStringConvertible {
    package var description: String
  }

  /// The daemon pointer. `@unchecked Sendable`: libmicrohttpd's daemon calls are thread-safe
  /// (quiesce and stop are made once, under the state lock's guard of `stopping`).
  private struct Daemon: @unchecked Sendable {
    let pointer: OpaquePointer
  }

  private struct State {
    var daemon: Daemon?
    var port: UInt16 = 0
    /// Requests between their first byte and the end of their response.
    var inFlight = 0
    var streams: [ObjectIdentifier: ResponseStream] = [:]
    var stopping = false
  }

  package let configuration: Configuration
  private let handler: @Sendable (HTTPRequest) -> HTTPResponse
  private let state = Mutex(State())
  /// The port the server listens on (the chosen one when asked for port 0).
  package var port: UInt16 { state.withLock { $0.port } }

  /// Starts serving at once; `stop` ends it.
  package init(configuration: Configuration, handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws {
    self.configuration = configuration
    self.handler = handler
    guard var address = SocketAddress(host: configuration.host, port: configuration.port) else {
      throw StartError(description: "'\(configuration.host)' is not an IP address")
    }
    var flags = UInt32(MHD_USE_THREAD_PER_CONNECTION.rawValue) | UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue)
    flags |= UInt32(MHD_USE_ITC.rawValue) | UInt32(MHD_USE_AUTO.rawValue) | UInt32(MHD_USE_ERROR_LOG.rawValue)
    if address.isIPv6 { flags |= UInt32(MHD_USE_IPv6.rawValue) }
    let context = Unmanaged.passUnretained(self).toOpaque()
    let daemon = address.withSockaddr { sockaddr in
      searchlight_mhd_start(
        flags, sockaddr, configuration.connectionTimeout, configuration.connectionLimit, 64 * 1024,
        accessHandler, context, requestCompleted, context)
    }
    guard let daemon else {
      throw StartError(description: "cannot listen on \(configuration.host):\(configuration.port) (in use, or not an address of this machine)")
    }
    let started = Daemon(pointer: daemon)
    let port = searchlight_mhd_port(daemon)
    state.withLock {
      $0.daemon = started
      $0.port = port
    }
  }

  deinit {
    if let daemon = state.withLock({ $0.daemon }) { MHD_stop_daemon(daemon.pointer) }
  }

  /// Stops accepting connections, lets requests in flight finish (up to the grace period,
  /// after which streams are cut), then closes every connection. Safe to call twice.
  package func stop() {
    let handle: Daemon? = state.withLock { state in
      guard !state.stopping else { return nil }
      state.stopping = true
      return state.daemon
    }
    guard let daemon = handle?.pointer else { return }
    // Quiesced, the daemon no longer polls the listening socket; closing it now makes new
    // connections fail at once instead of waiting in the backlog until the stop.
    let listener = MHD_quiesce_daemon(daemon)
    if listener >= 0 { close(listener) }
    let deadline = ContinuousClock.now + configuration.shutdownGrace
    while state.withLock({ $0.inFlight }) > 0, ContinuousClock.now < deadline {
      Thread.sleep(forTimeInterval: 0.02)
    }
    for stream in state.withLock({ Array($0.streams.values) }) { stream.cancel() }
    MHD_stop_daemon(daemon)
    state.withLock { $0.daemon = nil }
  }

  /// True when `host` is an IP address (or `localhost`) the server can bind.
  package static func isAddress(_ host: String) -> Bool { SocketAddress(host: host, port: 0) != nil }

  /// True for addresses only this machine reaches: 127.0.0.0/8, ::1, localhost.
  package static func isLoopback(_ host: String) -> Bool { SocketAddress.isLoopback(host) }

  /// Requests being served now.
  package var requestsInFlight: Int { state.withLock { $0.inFlight } }

  // MARK: libmicrohttpd callbacks

  /// One request's upload, kept between the calls libmicrohttpd makes for it.
  final class Upload {
    var body: [UInt8] = []
    /// The body went past the limit: the rest is read and dropped, the answer is 413.
    var tooLarge = false
    /// A response was queued already (early 413).
    var answered = false
    var droppedBytes = 0
  }

  fileprivate func handle(
    _ connection: OpaquePointer, url: String, method: String, data: UnsafePointer<CChar>?,
    dataSize: UnsafeMutablePointer<Int>, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) -> MHD_Result {
    guard let pointer = context.pointee else {
      // The first call: headers only. A declared body over the limit is refused now, before
      // any of it is read.
      let upload = Upload()
      context.pointee = Unmanaged.passRetained(upload).toOpaque()
      state.withLock { $0.inFlight += 1 }
      if let length = Self.lookup(connection, .HEADER_KIND, "Content-Length").flatMap(Int.init), length > configuration.maximumBodyBytes {
        upload.tooLarge = true
        upload.answered = true
        return queue(Self.tooLarge(configuration.maximumBodyBytes), on: connection)
      }
      return .YES
    }
    let upload = Unmanaged<Upload>.fromOpaque(pointer).takeUnretainedValue()
    let size = dataSize.pointee
    if size > 0 {
      dataSize.pointee = 0
      if upload.answered || upload.tooLarge {
        // A chunked body that keeps coming long past the limit is cut off.
        return upload.dropped(size) > configuration.maximumBodyBytes * 4 ? .NO : .YES
      }
      if let data {
        data.withMemoryRebound(to: UInt8.self, capacity: size) { upload.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: size)) }
      }
      if upload.body.count > configuration.maximumBodyBytes {
        upload.tooLarge = true
        upload.body = []
      }
      return .YES
    }
    if upload.answered { return .YES }
    upload.answered = true
    if upload.tooLarge { return queue(Self.tooLarge(configuration.maximumBodyBytes), on: connection) }
    let request = HTTPRequest(
      method: method, path: url, headers: Self.values(connection, .HEADER_KIND),
      query: Self.values(connection, .GET_ARGUMENT_KIND), body: upload.body)
    upload.body = []
    return queue(handler(request), on: connection)
  }

  fileprivate func completed(_ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
    guard let context, let pointer = context.pointee else { return }
    context.pointee = nil
    Unmanaged<Upload>.fromOpaque(pointer).release()
    state.withLock { $0.inFlight -= 1 }
  }

  private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    let made: OpaquePointer?
    switch response.body {
    case .bytes(let bytes):
      made = bytes.withUnsafeBytes { buffer in
        MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
      }
    case .stream(let stream):
      let key = ObjectIdentifier(stream)
      let registered = state.withLock { state -> Bool in
        guard !state.stopping else { return false }
        state.streams[key] = stream
        return true
      }
      if !registered { stream.cancel() }
      let box = StreamBox(stream: stream, server: self)
      made = MHD_create_response_from_callback(
        searchlight_mhd_size_unknown(), 4096, readStream, Unmanaged.passRetained(box).toOpaque(), freeStream)
    }
    guard let made else { return .NO }
    defer { MHD_destroy_response(made) }
    for (name, value) in response.headers { _ = MHD_add_response_header(made, name, value) }
    return MHD_queue_response(connection, UInt32(response.status), made)
  }

  fileprivate func forget(_ stream: ResponseStream) {
    _ = state.withLock { $0.streams.removeValue(forKey: ObjectIdentifier(stream)) }
  }

  static func tooLarge(_ limit: Int) -> HTTPResponse {
    var response = APIError.response(413, "the request body is over the limit of \(limit) bytes")
    response.headers.append(("Connection", "close"))
    return response
  }

  static func lookup(_ connection: OpaquePointer, _ kind: MHD_ValueKind, _ name: String) -> String? {
    MHD_lookup_connection_value(connection, kind, name).map { String(cString: $0) }
  }

  /// Every value of `kind` (headers with lowercased names, or query arguments).
  static func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [String: String] {
    let box = ValueBox()
    _ = MHD_get_connection_values(connection, kind, collectValue, Unmanaged.passUnretained(box).toOpaque())
    if kind == .HEADER_KIND {
      return Dictionary(box.values.map { ($0.0.lowercased(), $0.1) }, uniquingKeysWith: { _, last in last })
    }
    return Dictionary(box.values, uniquingKeysWith: { _, last in last })
  }
}

/// Collects the values `MHD_get_connection_values` reports.
private final class ValueBox {
  var values: [(String, String)] = []
}

/// A streamed body and the server that serves it, the context of the content reader.
private final class StreamBox {
  let stream: ResponseStream
  let server: HTTPServer
  init(stream: ResponseStream, server: HTTPServer) {
    self.stream = stream
    self.server = server
  }
}

extension HTTPServer.Upload {
  /// Counts bytes read and dropped after the limit; the total so far.
  func dropped(_ count: Int) -> Int {
    droppedBytes += count
    return droppedBytes
  }
}

// The C callbacks: capture-free, their context an unmanaged pointer to the Swift object.

private let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, data, dataSize, requestContext in
  guard let context, let connection, let url, let method, let dataSize, let requestContext else { return .NO }
  let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
  return server.handle(
    connection, url: String(cString: url), method: String(cString: method), data: data, dataSize: dataSize, context: requestContext)
}

private let requestCompleted: MHD_RequestCompletedCallback = { context, _, requestContext, _ in
  guard let context else { return }
  Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().completed(requestContext)
}

private let collectValue: MHD_KeyValueIterator = { context, _, key, value in
  guard let context, let key else { return .YES }
  let box = Unmanaged<ValueBox>.fromOpaque(context).takeUnretainedValue()
  box.values.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
  return .YES
}

private let readStream: MHD_ContentReaderCallback = { context, _, buffer, maximum in
  guard let context, let buffer else { return searchlight_mhd_end_with_error() }
  let box = Unmanaged<StreamBox>.fromOpaque(context).takeUnretainedValue()
  guard let chunk = box.stream.read(maximum: maximum) else { return searchlight_mhd_end_of_stream() }
  chunk.withUnsafeBytes { UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
  return chunk.count
}

private let freeStream: MHD_ContentReaderFreeCallback = { context in
  guard let context else { return }
  let box = Unmanaged<StreamBox>.fromOpaque(context).takeRetainedValue()
  // The client has its answer or went away: either way the producer may stop.
  box.stream.cancel()
  box.server.forget(box.stream)
}
