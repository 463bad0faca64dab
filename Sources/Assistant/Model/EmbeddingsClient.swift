import Foundation
import SearchIndex

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
