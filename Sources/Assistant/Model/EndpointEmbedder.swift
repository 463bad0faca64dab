import Dispatch
import Foundation
import SearchIndex
import Synchronization

/// A `TextEmbedder` backed by an OpenAI-compatible `/v1/embeddings` endpoint
/// (`EmbeddingsClient`), for indexing and for query vectors.
///
/// Queries and index writes run synchronously, so each call blocks its thread until the
/// request ends; the request itself runs on a task, so the blocking thread is never one the
/// task needs.
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

  public func embed(_ texts: [String]) throws -> [[Float]] {
    let outcome = Mutex<Result<[[Float]], any Error>?>(nil)
    let finished = DispatchSemaphore(value: 0)
    let client = self.client
    Task.detached {
      let result: Result<[[Float]], any Error>
      do { result = .success(try await client.embed(texts)) } catch { result = .failure(error) }
      outcome.withLock { $0 = result }
      finished.signal()
    }
    finished.wait()
    switch outcome.withLock({ $0 }) {
    case .success(let vectors): return vectors
    case .failure(let error as ModelError): throw Self.classify(error, url: client.server.endpoint("embeddings").absoluteString)
    case .failure(let error): throw EmbeddingError(.unreachable, "embeddings request failed: \(error)")
    case nil: throw EmbeddingError(.unreachable, "embeddings request ended without an answer")
    }
  }

  /// Connection trouble is I/O; an error status refuses the input; anything unreadable is
  /// malformed.
  static func classify(_ error: ModelError, url: String) -> EmbeddingError {
    switch error {
    case .unreachable, .timeout, .cancelled:
      return EmbeddingError(.unreachable, "embeddings endpoint: \(error.description.replacingOccurrences(of: "model server", with: "server"))")
    case .http(let status, _) where [429, 502, 503, 504].contains(status):
      return EmbeddingError(.unreachable, "embeddings endpoint \(url): \(error.description.replacingOccurrences(of: "model server", with: "server"))")
    case .http:
      return EmbeddingError(.rejected, "embeddings endpoint \(url): \(error.description.replacingOccurrences(of: "model server", with: "server"))")
    case .malformed:
      return EmbeddingError(.malformed, "embeddings endpoint \(url): \(error.description.replacingOccurrences(of: "model server", with: "server"))")
    }
  }
}
