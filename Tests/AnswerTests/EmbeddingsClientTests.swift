import Foundation
import Assistant
import SearchIndex
import SearchlightTestSupport
import Testing

/// `EmbeddingsClient` against the loopback server.
@Suite struct EmbeddingsClientTests {
  @Test func vectorsComeBackInInputOrder() async throws {
    // The server answers out of order; `index` decides the position.
    let body = #"{"object":"list","data":[{"object":"embedding","index":1,"embedding":[0.0,1.0,0.5]},{"object":"embedding","index":0,"embedding":[1.0,0.0,-0.5]}],"model":"e"}"#
    let loopback = try LoopbackHTTPServer([.json(body)])
    defer { loopback.stop() }
    let client = EmbeddingsClient(server: TestSupport.server(loopback, apiKey: "k"), model: "embed-small", dimensions: 3)
    let vectors = try await client.embed(["first", "second"])
    #expect(vectors == [[1, 0, -0.5], [0, 1, 0.5]])

    let request = try #require(loopback.requests.first)
    #expect(request.path == "/v1/embeddings")
    #expect(request.headers["authorization"] == "Bearer k")
    #expect(request.json == ["model": "embed-small", "input": ["first", "second"], "dimensions": 3])
  }

  @Test func mismatchedDimensionsAreRejected() async throws {
    let body = #"{"data":[{"index":0,"embedding":[1,2,3]},{"index":1,"embedding":[1,2]}]}"#
    let loopback = try LoopbackHTTPServer([.json(body)])
    defer { loopback.stop() }
    let client = EmbeddingsClient(server: TestSupport.server(loopback), model: "e")
    await #expect(throws: ModelError.malformed(problem: "embedding 1 has 2 dimensions but expected 3", excerpt: body)) {
      try await client.embed(["a", "b"])
    }
  }

  @Test func missingVectorsAreRejected() async throws {
    let body = #"{"data":[{"index":0,"embedding":[1,2,3]}]}"#
    let loopback = try LoopbackHTTPServer([.json(body)])
    defer { loopback.stop() }
    let client = EmbeddingsClient(server: TestSupport.server(loopback), model: "e")
    await #expect(throws: ModelError.malformed(problem: "expected 2 embeddings but got 1", excerpt: body)) {
      try await client.embed(["a", "b"])
    }
  }

  @Test func unavailableIsRetriedOnceLikeChat() async throws {
    let loopback = try LoopbackHTTPServer([
      .status(503),
      .json(#"{"data":[{"index":0,"embedding":[0.25,0.75]}]}"#),
    ])
    defer { loopback.stop() }
    let client = EmbeddingsClient(server: TestSupport.server(loopback), model: "e")
    #expect(try await client.embed(["only"]) == [[0.25, 0.75]])
    #expect(loopback.requests.count == 2)
  }

  @Test func emptyInputMakesNoRequest() async throws {
    let loopback = try LoopbackHTTPServer([])
    defer { loopback.stop() }
    let client = EmbeddingsClient(server: TestSupport.server(loopback), model: "e")
    #expect(try await client.embed([]).isEmpty)
    #expect(loopback.requests.isEmpty)
  }
}
