import Foundation
import SearchIndex

/// A `TextEmbedder` backed by an OpenAI-compatible `/v1/embeddings` endpoint
/// (`EmbeddingsClient`), for indexing and for query vectors.
///
/// Queries and index writes run synchronously, so each call blocks its thread until the
/// request ends: in poll(2) on the calling thread for http, on URLSession's threads for
/// https; neither needs the Swift concurrency pool, so blocking cannot deadlock callers
/// that run on it.
public struct EndpointEmbedder: TextEmbedder {
  let client: EmbeddingsClient

  /// An embedder for `model` at `url` (with or without `/v1`); `apiKey` is sent as a bearer
  /// token; `dimensions` asks Matryoshka models for shorter vectors.
  public init(url: URL, model: String, dimensions: Int? = nil, apiKey: String? = nil, requestTimeout: Duration = .seconds(120)) {
    self.client = EmbeddingsClient(
      server: ModelServer(baseURL: url, apiKey: apiKey, requestTimeout: requestTimeout, idleTimeout: requestTimeout),
      model: model, dimensions: dimensions)
  }

  package init(client: EmbeddingsClient) { self.client = client }

  public func embed(_ texts: [String]) throws(EmbeddingError) -> [[Float]] {
    do {
      return try client.embedSynchronously(texts)
    } catch {
      throw Self.classify(error, url: client.server.endpoint("embeddings").absoluteString)
    }
  }

  /// Connection trouble is I/O; an error status refuses the input; anything unreadable is
  /// malformed.
  static func classify(_ error: ModelError, url: String) -> EmbeddingError {
    switch error {
    case .unreachable, .timeout, .silent, .cancelled:
      return EmbeddingError(.unreachable, "embeddings endpoint: \(error.description.replacingOccurrences(of: "model server", with: "server"))")
    case .http(let status, _) where [429, 502, 503, 504].contains(status):
      return EmbeddingError(.unreachable, "embeddings endpoint \(url): \(error.description.replacingOccurrences(of: "model server", with: "server"))")
    case .http, .modelNotChosen:
      return EmbeddingError(.rejected, "embeddings endpoint \(url): \(error.description.replacingOccurrences(of: "model server", with: "server"))")
    case .malformed:
      return EmbeddingError(.malformed, "embeddings endpoint \(url): \(error.description.replacingOccurrences(of: "model server", with: "server"))")
    }
  }
}
