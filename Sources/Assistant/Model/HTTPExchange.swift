import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// One HTTP request whose response arrives as a stream of parts while it is still being sent.
///
/// Plain http goes to `SocketHTTPExchange`, which blocks in poll(2) while it waits; what
/// follows describes the URLSession exchange used for https.
///
/// swift-corelibs-foundation has no `URLSession.bytes(for:)`, but a data task with a session
/// delegate hands over each piece of body as curl receives it (measured: chunked,
/// Content-Length and close-delimited bodies all arrive piece by piece), so streaming needs
/// no hand-written HTTP client and https comes for free.
///
/// The exchange also enforces both timeouts itself: URLSession's own timeout is one idle
/// interval that also covers the wait for the first byte, which would either kill slow
/// prompt processing or let a stalled stream hang for minutes.
final class HTTPExchange: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  /// A piece of the response, in arrival order: one `head`, then any number of `body`.
  enum Part: Sendable {
    case head(status: Int, headers: [String: String])
    case body(Data)
  }

  /// A failure with the knowledge the retry policy needs: whether it happened before a
  /// single byte of response arrived and is of a kind worth one more try.
  struct Failure: Error {
    let error: ModelError
    let retryable: Bool
  }

  /// Mutable state shared by URLSession's delegate queue, the timeout timer and the
  /// consumer's cancellation; `@unchecked Sendable` above rests on this lock.
  private struct State {
    var continuation: AsyncThrowingStream<Part, any Error>.Continuation?
    var task: URLSessionDataTask?
    var timer: (any DispatchSourceTimer)?
    var sawHead = false
    var lastActivity: ContinuousClock.Instant
  }

  private let state: Mutex<State>
  private let url: String
  private let started: ContinuousClock.Instant
  private let requestTimeout: Duration
  private let idleTimeout: Duration

  private init(
    continuation: AsyncThrowingStream<Part, any Error>.Continuation,
    url: String,
    requestTimeout: Duration,
    idleTimeout: Duration
  ) {
    let now = ContinuousClock.now
    state = Mutex(State(continuation: continuation, lastActivity: now))
    self.url = url
    started = now
    self.requestTimeout = requestTimeout
    self.idleTimeout = idleTimeout
  }

  /// Sends `request` and returns its response as it arrives. Ending iteration early, or
  /// cancelling the iterating task, cancels the transfer and closes the connection.
  /// The stream throws only `Failure`.
  static func start(
    _ request: URLRequest,
    requestTimeout: Duration,
    idleTimeout: Duration
  ) -> AsyncThrowingStream<Part, any Error> {
    // Plain http (every local model server) goes over a socket that blocks while it
    // waits; corelibs' URLSession spins a core for the whole response (see
    // `SocketHTTPExchange`). https needs URLSession's TLS.
    if SocketHTTPExchange.serves(request.url) {
      return SocketHTTPExchange.start(request, requestTimeout: requestTimeout, idleTimeout: idleTimeout)
    }
    let (stream, continuation) = AsyncThrowingStream<Part, any Error>.makeStream()
    let exchange = HTTPExchange(
      continuation: continuation,
      url: request.url?.absoluteString ?? "",
      requestTimeout: requestTimeout,
      idleTimeout: idleTimeout
    )
    exchange.begin(request)
    return stream
  }

  private func begin(_ request: URLRequest) {
    let configuration = URLSessionConfiguration.ephemeral
    // URLSession's timers are only a backstop behind our own timer, set long enough that
    // they never fire first and misreport which limit was hit.
    let backstop = (requestTimeout + .seconds(30)).inSeconds
    configuration.timeoutIntervalForRequest = backstop
    configuration.timeoutIntervalForResource = backstop
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    var request = request
    request.timeoutInterval = backstop

    // A session per exchange because the delegate is per session on corelibs; the
    // session holds the delegate strongly until it is invalidated, so invalidate as
    // soon as the one task is queued and the pair is freed when the task ends.
    let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    let task = session.dataTask(with: request)
    let continuation = state.withLock { state in
      state.task = task
      state.timer = startTimer()
      return state.continuation
    }
    continuation?.onTermination = { [weak self] (_: AsyncThrowingStream<Part, any Error>.Continuation.Termination) in
      self?.abandon()
    }
    task.resume()
    session.finishTasksAndInvalidate()
  }

  // MARK: URLSessionDataDelegate

  func urlSession(
    _ session: URLSession,
    dataTask: URLSessionDataTask,
    didReceive response: URLResponse,
    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
  ) {
    guard let http = response as? HTTPURLResponse else {
      completionHandler(.cancel)
      finish(throwing: Failure(error: .malformed(problem: "response is not http", excerpt: ""), retryable: false))
      return
    }
    var headers: [String: String] = [:]
    for (name, value) in http.allHeaderFields {
      // Lowercased so lookups do not depend on the server's capitalisation.
      headers[String(describing: name).lowercased()] = String(describing: value)
    }
    let continuation = state.withLock { state in
      state.sawHead = true
      state.lastActivity = .now
      // Re-armed from the head's arrival, under the lock so a firing timer cannot put the
      // old deadline back.
      if let timer = state.timer {
        arm(timer, at: min(state.lastActivity + idleTimeout, started + requestTimeout))
      }
      return state.continuation
    }
    continuation?.yield(.head(status: http.statusCode, headers: headers))
    completionHandler(.allow)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    let continuation = state.withLock { state in
      state.lastActivity = .now
      return state.continuation
    }
    continuation?.yield(.body(data))
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    guard let error else {
      finish(throwing: nil)
      return
    }
    let sawHead = state.withLock { $0.sawHead }
    finish(throwing: classify(error, sawHead: sawHead))
  }

  // MARK: Ending

  /// Turns a URLSession error into a `ModelError`, marking as retryable only connection
  /// failures that happened before any response byte, when a retry cannot duplicate output.
  private func classify(_ error: any Error, sawHead: Bool) -> Failure {
    let code = (error as NSError).code
    let transient = !sawHead
    switch code {
    case NSURLErrorCancelled:
      return Failure(error: .cancelled, retryable: false)
    case NSURLErrorTimedOut:
      return Failure(error: .timeout(seconds: (requestTimeout + .seconds(30)).inSeconds, idle: false), retryable: false)
    case NSURLErrorCannotConnectToHost:
      return Failure(error: .unreachable(url: url, reason: "connection refused"), retryable: transient)
    case NSURLErrorNetworkConnectionLost:
      let reason = sawHead ? "connection lost in the middle of the response" : "connection closed before a response"
      return Failure(error: .unreachable(url: url, reason: reason), retryable: transient)
    case NSURLErrorBadServerResponse, NSURLErrorZeroByteResource:
      return Failure(error: .unreachable(url: url, reason: "connection closed before a response"), retryable: transient)
    case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed:
      return Failure(error: .unreachable(url: url, reason: "host not found"), retryable: false)
    default:
      let detail = ModelError.excerpt((error as NSError).localizedDescription, limit: 160)
      return Failure(error: .unreachable(url: url, reason: "\(detail.lowercased()) (code \(code))"), retryable: false)
    }
  }

  /// Ends the stream exactly once; later calls (the cancelled task reporting in after a
  /// timeout, say) find no continuation and do nothing.
  private func finish(throwing failure: Failure?) {
    let (continuation, task, timer) = state.withLock { state in
      defer {
        state.continuation = nil
        state.timer = nil
      }
      return (state.continuation, state.task, state.timer)
    }
    timer?.cancel()
    guard let continuation else { return }
    if failure != nil { task?.cancel() }
    continuation.finish(throwing: failure)
  }

  /// The consumer went away (finished, cancelled, or dropped the stream): stop the transfer
  /// so the server stops generating for nobody.
  private func abandon() {
    let (task, timer) = state.withLock { state in
      state.continuation = nil
      defer { state.timer = nil }
      return (state.task, state.timer)
    }
    timer?.cancel()
    task?.cancel()
  }

  // MARK: Timeouts

  /// One serial queue for all exchanges' timers: their handlers only compare clock values.
  private static let timerQueue = DispatchQueue(label: "modelclient.http-exchange.timeouts")

  /// A Dispatch timer rather than a sleeping task: a cancelled `Task.sleep` on Linux keeps
  /// its allocation until the original deadline passes (measured: about 750 bytes per
  /// request held for the whole request timeout), while a cancelled timer is freed at once.
  private func startTimer() -> any DispatchSourceTimer {
    let timer = DispatchSource.makeTimerSource(queue: Self.timerQueue)
    timer.setEventHandler { [weak self] in self?.checkDeadlines() }
    arm(timer, at: min(started + idleTimeout, started + requestTimeout))
    timer.resume()
    return timer
  }

  /// Fails the exchange if a limit has passed, otherwise re-arms for the nearest one, so a
  /// steady stream costs one wake-up per idle interval rather than one per chunk.
  private func checkDeadlines() {
    let overall = started + requestTimeout
    let expired: Failure? = state.withLock { state in
      guard let timer = state.timer else { return nil }
      // Silence counts from the start: a server that never sends its status line is as
      // stuck as one that stops in the middle of a response.
      let idleDeadline = state.lastActivity + idleTimeout
      let now = ContinuousClock.now
      if now >= overall {
        return Failure(error: .timeout(seconds: requestTimeout.inSeconds, idle: false), retryable: false)
      }
      if now >= idleDeadline {
        let error: ModelError = state.sawHead ? .timeout(seconds: idleTimeout.inSeconds, idle: true) : .silent(seconds: idleTimeout.inSeconds)
        return Failure(error: error, retryable: false)
      }
      arm(timer, at: min(overall, idleDeadline))
      return nil
    }
    if let expired { finish(throwing: expired) }
  }

  /// Points the one-shot timer at `instant`; Dispatch wants its own clock, so convert.
  private func arm(_ timer: any DispatchSourceTimer, at instant: ContinuousClock.Instant) {
    let remaining = max(instant - ContinuousClock.now, .zero)
    timer.schedule(deadline: .now() + remaining.inSeconds)
  }
}
