import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Stages

/// A sample index embedded (or not) through a loopback endpoint, and helpers to query it.
struct EmbeddedSamples {
  let index: SearchIndex
  let endpoint: EmbeddingsEndpoint

  static let model = "hash-bow"

  /// A fresh sample index; embedded unless `embed` is false.
  init(embed: Bool = true, dimensions: Int = 64) throws {
    index = try SampleIndex.make()
    endpoint = try EmbeddingsEndpoint(dimensions: dimensions)
    if embed { _ = try run() }
  }

  var embedder: EndpointEmbedder { EndpointEmbedder(url: endpoint.url, model: Self.model, requestTimeout: .seconds(30)) }

  var configuration: EmbeddingConfiguration { EmbeddingConfiguration(model: Self.model, dimensions: 0, url: endpoint.url.absoluteString) }

  /// One embedding run over the pending items.
  func run(batchSize: Int = 16, includeFailed: Bool = false, model: String = EmbeddedSamples.model) throws -> EmbeddingRun.Summary {
    var configuration = self.configuration
    configuration.model = model
    var run = EmbeddingRun(index: index, embedder: embedder, configuration: configuration, batchSize: batchSize, includeFailed: includeFailed)
    return try run.run()
  }

  var options: QueryOptions {
    var options = SampleIndex.options
    options.embedder = embedder
    return options
  }

  /// The replies of `query`, partial batches joined.
  func query(_ text: String) throws -> [Reply] {
    var replies: [Reply] = []
    try QueryExecutor(index: index, registry: StandardLibrary.registry()).run(text, options: options) { reply in
      if let last = replies.last, last.isPartial, last.label == reply.label {
        replies[replies.count - 1].content = reply.content.replacingItems(last.content.resultItems + reply.content.resultItems)
        replies[replies.count - 1].isPartial = reply.isPartial
      } else {
        replies.append(reply)
      }
    }
    return replies
  }

  func items(_ text: String) throws -> [ResultItem] { try query(text).last?.content.resultItems ?? [] }

  func ids(_ text: String) throws -> [String] { try items(text).map(\.id) }

  func count(_ text: String) throws -> Int {
    guard case .count(let n)? = try query(text).last?.content else { return -1 }
    return n
  }

  /// How many items of the index have text to embed.
  var itemsWithText: Int {
    get throws {
      let counts = try index.embeddingCounts()
      return counts.embedded + counts.pending + counts.failed
    }
  }
}
