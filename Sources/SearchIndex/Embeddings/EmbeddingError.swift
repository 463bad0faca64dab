/// Why embedding or a similarity search failed.
public struct EmbeddingError: Error, Sendable, Hashable, CustomStringConvertible {
  public enum Kind: Sendable, Hashable {
    /// `similar` over an index without embeddings.
    case noEmbeddings
    /// The model or vector size differs from the one the index records.
    case mismatch
    /// The endpoint could not be reached or timed out (I/O; exit 74).
    case unreachable
    /// The endpoint answered with something that is not a usable embeddings response.
    case malformed
    /// The endpoint refused the input (an HTTP error status); the items are recorded as failed.
    case rejected
  }

  public var kind: Kind
  public var message: String

  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  public var description: String { message }

  /// True for failures of the connection rather than of the data (exit 74, not 65).
  public var isIOFailure: Bool { kind == .unreachable }

  public static func noEmbeddings(path: String) -> EmbeddingError {
    EmbeddingError(.noEmbeddings,
      "the index has no embeddings, so 'similar' and 'similarity()' cannot run; add them with `searchlight embeddings --db \(path) --url URL --model NAME`")
  }
}
