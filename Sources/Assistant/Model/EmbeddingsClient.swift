import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SearchIndex
import Synchronization

/// Turns texts into embedding vectors with an OpenAI-compatible `/v1/embeddings` endpoint.
///
/// Results are checked before they are returned (one vector per input, in input order, all
/// of one dimension), because a silently misaligned or mixed-size vector would corrupt a
/// search index without any visible error.
package struct EmbeddingsClient: Sendable {
  package let server: ModelServer
  package let model: String
  /// Requested output size, for models that support shortening (Matryoshka); nil uses the
  /// model's own size. Servers that ignore the request fail the dimension check instead of
  /// handing back vectors of an unexpected size.
  package let dimensions: Int?

  /// The largest response accepted: about 4000 vectors of 1024 floats as JSON text.
  static let responseBodyLimit = 128 * 1024 * 1024

  package init(server: ModelServer, model: String, dimensions: Int? = nil) {
    self.server = server
    self.model = model
    self.dimensions = dimensions
  }

  /// One vector per input, in input order. An empty input makes no request.
  package func embed(_ inputs: [String]) async throws -> [[Float]] {
    guard !inputs.isEmpty else { return [] }
    var response = try await ModelHTTPClient(server: server)
      .post("embeddings", body: Data(requestBody(inputs).compactText.utf8), accept: "application/json")
    let body = try await response.readAll(limit: Self.responseBodyLimit)
    return try Self.decode(body, expectedCount: inputs.count, expectedDimensions: dimensions)
  }

  /// `embed` for synchronous callers (index writes, query execution): blocks the calling
  /// thread, never a Swift concurrency thread, so it cannot starve the cooperative pool when
  /// called from one. Same rules as `embed`: one retry for a refused or reset connection or
  /// a "try again" status (429, 502, 503, 504), the same checks of the response.
  package func embedSynchronously(_ inputs: [String]) throws(ModelError) -> [[Float]] {
    guard !inputs.isEmpty else { return [] }
    let client = ModelHTTPClient(server: server)
    let url = server.endpoint("embeddings")
    var request = client.makeRequest(url: url, body: Data(requestBody(inputs).compactText.utf8), accept: "application/json")
    request.timeoutInterval = Double(server.requestTimeout.components.seconds) + 1
    for attempt in 1...2 {
      let data: Data
      let status: Int
      switch Self.send(request, server: server) {
      case .failure(let failure):
        if attempt == 1 && failure.retryable {
          Thread.sleep(forTimeInterval: server.retryDelay.inSeconds)
          continue
        }
        throw failure.error
      case .success(let response):
        (status, data) = response
      }
      guard (200..<300).contains(status) else {
        if attempt == 1 && ModelHTTPClient.retryableStatuses.contains(status) {
          Thread.sleep(forTimeInterval: server.retryDelay.inSeconds)
          continue
        }
        throw .http(status: status, body: ModelHTTPClient.errorExcerpt(data.prefix(ModelHTTPClient.errorBodyLimit)))
      }
      guard data.count <= Self.responseBodyLimit else {
        throw .malformed(problem: "embeddings response is larger than \(Self.responseBodyLimit) bytes", excerpt: "")
      }
      return try Self.decode(data, expectedCount: inputs.count, expectedDimensions: dimensions)
    }
    throw .unreachable(url: url.absoluteString, reason: "no response after a retry")
  }

  /// One request, blocking the calling thread until its response is complete: over a socket
  /// that sleeps in poll(2) for plain http, on URLSession's threads for https.
  private static func send(_ request: URLRequest, server: ModelServer) -> Result<(Int, Data), HTTPExchange.Failure> {
    guard SocketHTTPExchange.serves(request.url) else { return sendWithURLSession(request) }
    do throws(HTTPExchange.Failure) {
      let exchange = try SocketHTTPExchange(request, requestTimeout: server.requestTimeout, idleTimeout: server.idleTimeout)
      var status = 0
      var body = Data()
      try exchange.run(
        onHead: { code, _ in status = code },
        onBody: { piece in
          body.append(piece)
          // One byte over the limit is enough for the caller to reject the response.
          return body.count <= responseBodyLimit
        })
      return .success((status, body))
    } catch {
      return .failure(error)
    }
  }

  /// One https request on URLSession's own threads; waits for its completion.
  private static func sendWithURLSession(_ request: URLRequest) -> Result<(Int, Data), HTTPExchange.Failure> {
    let outcome = Mutex<(Data, Int, (any Error)?)>((Data(), 0, nil))
    let done = DispatchSemaphore(value: 0)
    let session = URLSession(configuration: .ephemeral)
    let task = session.dataTask(with: request) { data, response, error in
      outcome.withLock { $0 = (data ?? Data(), (response as? HTTPURLResponse)?.statusCode ?? 0, error) }
      done.signal()
    }
    task.resume()
    done.wait()
    session.finishTasksAndInvalidate()
    let (data, status, error) = outcome.withLock { $0 }
    guard let error else { return .success((status, data)) }
    let nsError = error as NSError
    let url = request.url?.absoluteString ?? ""
    if nsError.code == NSURLErrorTimedOut {
      return .failure(HTTPExchange.Failure(error: .timeout(seconds: request.timeoutInterval, idle: false), retryable: false))
    }
    let retryable = [NSURLErrorCannotConnectToHost, NSURLErrorNetworkConnectionLost, NSURLErrorNotConnectedToInternet].contains(nsError.code)
    return .failure(HTTPExchange.Failure(error: .unreachable(url: url, reason: nsError.localizedDescription), retryable: retryable))
  }

  func requestBody(_ inputs: [String]) -> JSONValue {
    var body: JSONObject = ["model": .string(model), "input": .array(inputs.map(JSONValue.string))]
    if let dimensions {
      body["dimensions"] = .number(Double(dimensions))
    }
    return .object(body)
  }

  /// Reads `data[].embedding`, placing each by its `index` (servers may answer out of
  /// order, e.g. when they batch internally).
  static func decode(_ body: Data, expectedCount: Int, expectedDimensions: Int?) throws(ModelError) -> [[Float]] {
    let json: JSONValue
    do {
      json = try JSONParser.parse(body)
    } catch {
      throw .malformed(problem: "invalid json in embeddings response (\(error))", excerpt: ModelError.excerpt(body))
    }
    if let error = json["error"], !error.isNull {
      let message = error["message"]?.stringValue ?? error.stringValue ?? error.compactText
      throw .http(status: error["code"]?.intValue ?? 500, body: ModelError.excerpt(message))
    }
    guard let items = json["data"]?.arrayValue else {
      throw .malformed(problem: "embeddings response has no data array", excerpt: ModelError.excerpt(body))
    }
    guard items.count == expectedCount else {
      throw .malformed(problem: "expected \(expectedCount) embeddings but got \(items.count)", excerpt: ModelError.excerpt(body))
    }
    var vectors = [[Float]?](repeating: nil, count: expectedCount)
    for (position, item) in items.enumerated() {
      let index = item["index"]?.intValue ?? position
      guard vectors.indices.contains(index), vectors[index] == nil else {
        throw .malformed(problem: "embedding index \(index) is out of range or repeated", excerpt: ModelError.excerpt(body))
      }
      guard let numbers = item["embedding"]?.arrayValue else {
        throw .malformed(problem: "embedding \(index) is not an array of numbers", excerpt: ModelError.excerpt(body))
      }
      var vector: [Float] = []
      vector.reserveCapacity(numbers.count)
      for number in numbers {
        guard let value = number.numberValue else {
          throw .malformed(problem: "embedding \(index) contains a non-number", excerpt: ModelError.excerpt(body))
        }
        vector.append(Float(value))
      }
      vectors[index] = vector
    }
    let result = vectors.compactMap { $0 }
    let expected = expectedDimensions ?? result.first?.count ?? 0
    guard expected > 0 else {
      throw .malformed(problem: "embeddings are empty", excerpt: ModelError.excerpt(body))
    }
    if let mismatch = result.firstIndex(where: { $0.count != expected }) {
      throw .malformed(
        problem: "embedding \(mismatch) has \(result[mismatch].count) dimensions but expected \(expected)",
        excerpt: ModelError.excerpt(body)
      )
    }
    return result
  }
}
