import Foundation
import SearchIndex
import Synchronization

/// An OpenAI-compatible `/v1/embeddings` endpoint on the loopback server with deterministic
/// vectors: hashed bag of words (FNV-1a of each lowercased word picks a dimension and a sign),
/// so texts that share words are close and texts that share none are orthogonal-ish.
///
/// `fault` makes it misbehave from a given request on, for the error-path tests.
package final class EmbeddingsEndpoint: Sendable {
  package enum Fault: Sendable, Equatable {
    /// Resets every connection: the client sees the endpoint as unreachable.
    case reset
    /// Answers 200 with a body that is not JSON.
    case malformedJSON
    /// Answers with vectors of another size.
    case dimensions(Int)
    /// Answers 400 to any request containing this word (the others succeed).
    case rejectWord(String)
  }

  private struct State {
    var requests = 0
    var faultFrom: Int?
    var fault: Fault?
  }

  /// The mutable behaviour, shared by the endpoint and the server's responder.
  private final class Shared: Sendable {
    let state = Mutex(State())
  }

  package let dimensions: Int
  private let shared: Shared
  private let server: LoopbackHTTPServer

  /// `delay`: how long each answer waits after its head before its body, like a server
  /// busy computing the vectors.
  package init(dimensions: Int = 64, delay: Duration? = nil) throws {
    self.dimensions = dimensions
    let shared = Shared()
    self.shared = shared
    server = try LoopbackHTTPServer(responder: { request in
      var response = Self.respond(request, shared: shared, dimensions: dimensions)
      if let delay { response.steps.insert(.pause(delay), at: 0) }
      return response
    })
  }

  deinit { server.stop() }

  package var url: URL { server.baseURL }
  package var requests: [LoopbackHTTPServer.RecordedRequest] { server.requests }
  package func stop() { server.stop() }

  /// From the `request`th request after this call on (1 = the next), answers with `fault`;
  /// nil heals the endpoint.
  package func fail(with fault: Fault?, fromRequest request: Int = 1) {
    shared.state.withLock {
      $0.fault = fault
      $0.faultFrom = fault == nil ? nil : $0.requests + request
    }
  }

  /// The vector this endpoint gives `text` (unnormalised).
  package static func vector(_ text: String, dimensions: Int) -> [Float] {
    var vector = [Float](repeating: 0, count: dimensions)
    for word in text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }) {
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      for byte in word.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
      vector[Int(hash % UInt64(dimensions))] += (hash >> 40) & 1 == 0 ? 1 : -1
    }
    return vector
  }

  private static func respond(_ request: LoopbackHTTPServer.RecordedRequest, shared: Shared, dimensions: Int) -> ScriptedResponse {
    let fault = shared.state.withLock { state -> Fault? in
      state.requests += 1
      return state.faultFrom.map { state.requests >= $0 } == true ? state.fault : nil
    }
    guard request.path.hasSuffix("/embeddings"), let json = request.json, let inputs = json["input"]?.arrayValue else {
      return .json(#"{"error":{"message":"not an embeddings request","code":404}}"#, status: 404)
    }
    let texts = inputs.compactMap(\.stringValue)
    var size = dimensions
    switch fault {
    case .reset?: return ScriptedResponse(kind: .resetWithoutResponse)
    case .malformedJSON?: return .json("{\"data\": [oops")
    case .dimensions(let other)?: size = other
    case .rejectWord(let word)?:
      if texts.contains(where: { $0.lowercased().contains(word) }) {
        return .json(#"{"error":{"message":"input is too long for the context","code":400}}"#, status: 400)
      }
    case nil: break
    }
    let data = texts.enumerated().map { offset, text -> JSONValue in
      .object(JSONObject([
        ("object", .string("embedding")), ("index", .number(Double(offset))),
        ("embedding", .array(vector(text, dimensions: size).map { .number(Double($0)) })),
      ]))
    }
    let body = JSONValue.object(JSONObject([("object", .string("list")), ("data", .array(data)), ("model", json["model"] ?? .null)]))
    return .json(body.compactText)
  }
}
