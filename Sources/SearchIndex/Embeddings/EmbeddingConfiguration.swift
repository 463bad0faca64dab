/// The embedding model an index's vectors come from: every vector in the index and every
/// query vector compared with them must come from the same model at the same size.
public struct EmbeddingConfiguration: Sendable, Hashable {
  /// The model name sent to the endpoint (`nomic-embed-text`, `all-MiniLM-L6-v2`).
  public var model: String
  /// The length of every vector.
  public var dimensions: Int
  /// The OpenAI-compatible endpoint the vectors came from (base URL, with or without `/v1`).
  public var url: String

  public init(model: String, dimensions: Int, url: String) {
    self.model = model
    self.dimensions = dimensions
    self.url = url
  }
}

/// Turns texts into vectors: one per text, in order, all of one length. The command line
/// uses an OpenAI-compatible `/v1/embeddings` endpoint; tests use deterministic fakes.
///
/// Synchronous because queries run synchronously; implementations that talk to a server
/// block the calling thread until the answer arrives.
public protocol TextEmbedder: Sendable {
  /// The vectors of `texts`; throws `EmbeddingError`.
  func embed(_ texts: [String]) throws -> [[Float]]
}
