import Foundation
import SearchIndex
import SearchlightTestSupport
import Server
import Synchronization
import Testing

/// The libmicrohttpd layer alone: graceful stop, streamed bodies, bodies at the limit.
@Suite struct HTTPServerTests {
  /// A handler that holds its request until the test opens the gate.
  final class Gate: Sendable {
    let opened = Atomic<Bool>(false)
    func wait() {
      let deadline = ContinuousClock.now + .seconds(300)
      while !opened.load(ordering: .acquiring), ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
    }
  }

  static func server(maximumBodyBytes: Int = 1 << 20, _ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws -> HTTPServer {
    var configuration = HTTPServer.Configuration()
    configuration.port = 0
    configuration.maximumBodyBytes = maximumBodyBytes
    return try HTTPServer(configuration: configuration, handler: handler)
  }

  /// Plain threads and blocking waits throughout: nothing here waits for Swift's cooperative
  /// pool, which other suites may keep busy.
  @Test func stopLetsTheRequestInFlightFinish() throws {
    let gate = Gate()
    let server = try Self.server { request in
      gate.wait()
      return .text(200, "finished \(request.path)", contentType: "text/plain")
    }
    var client = HTTPTestClient(port: server.port)
    client.timeoutSeconds = 300
    let outcome = Mutex<Result<HTTPTestClient.Response, any Error>?>(nil)
    Thread.detachNewThread { [client] in
      let result = Result { try client.sendBlocking("GET", "/slow") }
      outcome.withLock { $0 = result }
    }
    // Wait until the request is being handled, then stop while it is.
    let deadline = ContinuousClock.now + .seconds(300)
    while server.requestsInFlight == 0, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
    #expect(server.requestsInFlight == 1)
    let stopped = Atomic<Bool>(false)
    Thread.detachNewThread {
      server.stop()
      stopped.store(true, ordering: .releasing)
    }
    Thread.sleep(forTimeInterval: 0.2)
    // Still waiting for the request, and no longer accepting new ones.
    let stillStopping = !stopped.load(ordering: .acquiring)
    #expect(stillStopping)
    #expect(throws: HTTPTestClient.Failure.self) { try client.sendBlocking("GET", "/new") }
    gate.opened.store(true, ordering: .releasing)
    while outcome.withLock({ $0 == nil }), ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
    let finished = try #require(try outcome.withLock { $0 }?.get())
    #expect(finished.status == 200)
    #expect(finished.text == "finished /slow")
    while !stopped.load(ordering: .acquiring), ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
    let stoppedAtLast = stopped.load(ordering: .acquiring)
    #expect(stoppedAtLast)
  }

  @Test func streamedBodiesArriveChunkedAndWhole() async throws {
    let server = try Self.server { _ in
      let stream = ResponseStream()
      Thread.detachNewThread {
        for number in 0..<50 {
          stream.write("data: \(number)\n\n")
          if number % 10 == 0 { Thread.sleep(forTimeInterval: 0.01) }
        }
        stream.finish()
      }
      return HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream")], body: .stream(stream))
    }
    defer { server.stop() }
    let response = try await HTTPTestClient(port: server.port).send("GET", "/events")
    #expect(response.status == 200)
    #expect(response.headers["transfer-encoding"] == "chunked")
    #expect(response.text == (0..<50).map { "data: \($0)\n\n" }.joined())
  }

  @Test func aClientThatLeavesCancelsTheStream() async throws {
    let cancelled = Atomic<Bool>(false)
    let server = try Self.server { _ in
      let stream = ResponseStream(heartbeat: ": ping\n\n", heartbeatInterval: 0.1)
      stream.onCancel { cancelled.store(true, ordering: .releasing) }
      stream.write("data: first\n\n")
      // Never finished: only the client leaving (or the server stopping) ends it.
      return HTTPResponse(status: 200, body: .stream(stream))
    }
    defer { server.stop() }
    let first = try HTTPTestClient(port: server.port).getAndHangUp("/forever")
    #expect(String(decoding: first, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
    let deadline = ContinuousClock.now + .seconds(30)
    while !cancelled.load(ordering: .acquiring), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    let wasCancelled = cancelled.load(ordering: .acquiring)
    #expect(wasCancelled)
  }

  @Test func aBodyAtTheLimitIsAcceptedAndOneByteMoreIsNot() async throws {
    let server = try Self.server(maximumBodyBytes: 1000) { request in
      .text(200, "\(request.body.count)", contentType: "text/plain")
    }
    defer { server.stop() }
    let client = HTTPTestClient(port: server.port)
    let atLimit = try await client.send("POST", "/", body: String(repeating: "a", count: 1000))
    #expect(atLimit.status == 200)
    #expect(atLimit.text == "1000")
    let over = try await client.send("POST", "/", body: String(repeating: "a", count: 1001))
    #expect(over.status == 413)
  }

  @Test func loopbackAndAddressChecks() {
    #expect(HTTPServer.isLoopback("127.0.0.1"))
    #expect(HTTPServer.isLoopback("127.1.2.3"))
    #expect(HTTPServer.isLoopback("::1"))
    #expect(HTTPServer.isLoopback("localhost"))
    #expect(!HTTPServer.isLoopback("0.0.0.0"))
    #expect(!HTTPServer.isLoopback("::"))
    #expect(!HTTPServer.isLoopback("192.168.1.10"))
    #expect(!HTTPServer.isAddress("example.com"))
    #expect(HTTPServer.isAddress("::"))
  }

  @Test func tokensCompareWholly() {
    let tokens = AccessTokens([.init(secret: Array("abc".utf8), protection: ["x"])])
    #expect(tokens.token(forAuthorization: "Bearer abc")?.protection == ["x"])
    #expect(tokens.token(forAuthorization: "Bearer ab") == nil)
    #expect(tokens.token(forAuthorization: "Bearer abcd") == nil)
    #expect(tokens.token(forAuthorization: "Bearer ") == nil)
    #expect(tokens.token(forAuthorization: "abc") == nil)
    #expect(tokens.token(forAuthorization: nil) == nil)
  }
}
