/// Embeds the items of an index that have no vectors yet, in batches.
///
/// Each batch is one request to the embedder and one write transaction, so a crash or a
/// failure loses at most the batch in flight: the next run picks up every item that still has
/// no vector. When the endpoint rejects a batch, its items are retried one by one and those it
/// rejects alone are marked failed (`--pending` retries them); unreachable endpoints,
/// malformed responses and size mismatches stop the run with nothing of that batch written.
public struct EmbeddingRun {
  /// Progress after each batch: items done (embedded, failed or empty) out of the total.
  public struct Progress: Sendable, Hashable {
    public var done: Int
    public var total: Int
  }

  /// What a run did.
  public struct Summary: Sendable, Hashable {
    public var embedded = 0
    public var failed = 0
    public var empty = 0
    /// The first failure message, for the report.
    public var firstFailure: String?
  }

  public let index: SearchIndex
  public let embedder: any TextEmbedder
  /// Model name and endpoint to record; `dimensions` 0 takes the size of the first response.
  public var configuration: EmbeddingConfiguration
  /// Items per request.
  public var batchSize: Int
  /// Also retry items whose embedding failed before.
  public var includeFailed: Bool

  public init(index: SearchIndex, embedder: any TextEmbedder, configuration: EmbeddingConfiguration, batchSize: Int = 32, includeFailed: Bool = false) {
    self.index = index
    self.embedder = embedder
    self.configuration = configuration
    self.batchSize = max(1, batchSize)
    self.includeFailed = includeFailed
  }

  /// Embeds every pending item; `progress` is called after each committed batch.
  public mutating func run(progress: (Progress) -> Void = { _ in }) throws -> Summary {
    if let recorded = try index.embeddingConfiguration() {
      if configuration.dimensions == 0 { configuration.dimensions = recorded.dimensions }
      try SearchIndex.check(configuration, against: recorded)
    }
    let total = try index.pendingEmbeddingCount(includeFailed: includeFailed)
    var summary = Summary()
    var cursor: Int64 = 0
    while true {
      let batch = try index.pendingEmbeddings(after: cursor, limit: batchSize, includeFailed: includeFailed)
      guard let last = batch.last else { break }
      cursor = last.rowid
      let empty = batch.filter { $0.chunks.isEmpty }
      let work = batch.filter { !$0.chunks.isEmpty }
      var embedded: [(PendingEmbedding, [[Float]])] = []
      var failed: [(PendingEmbedding, String)] = []
      do {
        embedded = try embed(work)
      } catch let error as EmbeddingError where error.kind == .rejected && work.count > 1 {
        // One bad input (too long, unsupported) must not fail its neighbours.
        for item in work {
          do {
            embedded += try embed([item])
          } catch let single as EmbeddingError where single.kind == .rejected {
            failed.append((item, single.message))
          }
        }
        if embedded.isEmpty { throw error }  // the endpoint rejects everything: a setup problem, not bad items
      }
      try index.storeEmbeddings(embedded, failed: failed, empty: empty, configuration: configuration)
      summary.embedded += embedded.count
      summary.failed += failed.count
      summary.empty += empty.count
      if summary.firstFailure == nil { summary.firstFailure = failed.first?.1 }
      progress(Progress(done: summary.embedded + summary.failed + summary.empty, total: max(total, summary.embedded + summary.failed + summary.empty)))
    }
    return summary
  }

  /// The vectors of each item's chunks, checked for count and size.
  private mutating func embed(_ items: [PendingEmbedding]) throws -> [(PendingEmbedding, [[Float]])] {
    guard !items.isEmpty else { return [] }
    let texts = items.flatMap(\.chunks)
    let vectors = try embedder.embed(texts)
    guard vectors.count == texts.count else {
      throw EmbeddingError(.malformed, "the endpoint returned \(vectors.count) embeddings for \(texts.count) inputs")
    }
    if configuration.dimensions == 0, let first = vectors.first { configuration.dimensions = first.count }
    if let wrong = vectors.first(where: { $0.count != configuration.dimensions }) {
      throw EmbeddingError(.mismatch,
        "the endpoint returned vectors of \(wrong.count) dimensions, but the index uses \(configuration.dimensions) (model '\(configuration.model)')")
    }
    if vectors.contains(where: { $0.contains { !$0.isFinite } }) {
      throw EmbeddingError(.malformed, "the endpoint returned a vector with a non-finite number")
    }
    var result: [(PendingEmbedding, [[Float]])] = []
    var offset = 0
    for item in items {
      result.append((item, Array(vectors[offset..<offset + item.chunks.count])))
      offset += item.chunks.count
    }
    return result
  }
}
