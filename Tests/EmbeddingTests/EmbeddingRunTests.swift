import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

/// `EmbeddingRun` over the samples with a loopback `/v1/embeddings` endpoint: indexing,
/// updates, deletes, resuming after a failure, failed items, and every error path.
@Suite struct EmbeddingRunTests {
  @Test func embedsEveryItemWithTextAndRecordsTheModel() throws {
    let samples = try EmbeddedSamples(embed: false)
    let summary = try samples.run(batchSize: 8)
    let total = try samples.index.allItems().count
    #expect(summary.embedded > 100)
    #expect(summary.embedded + summary.empty == total)
    #expect(summary.failed == 0)
    let counts = try samples.index.embeddingCounts()
    #expect(counts.embedded == summary.embedded)
    #expect(counts.pending == 0)
    #expect(counts.vectors >= counts.embedded)
    #expect(try samples.index.embeddingConfiguration() == EmbeddingConfiguration(
      model: EmbeddedSamples.model, dimensions: 64, url: samples.endpoint.url.absoluteString))
    // Batches of 8 items: one request each.
    #expect(samples.endpoint.requests.count == (summary.embedded + 7) / 8)
    let body = try #require(samples.endpoint.requests.first?.json)
    #expect(body["model"] == "hash-bow")
  }

  @Test func storedVectorsAreUnitLength() throws {
    let samples = try EmbeddedSamples()
    let matrix = try #require(try samples.index.read { db in try samples.index.vectorMatrix(db) })
    #expect(matrix.rowCount >= 100)
    for row in 0..<matrix.rowCount {
      let norm = (0..<matrix.dimensions).map { matrix.values[row * matrix.dimensions + $0] }.map { $0 * $0 }.reduce(0, +)
      #expect(abs(norm - 1) < 1e-4 || norm == 0)
    }
  }

  @Test func aSecondRunHasNothingToDo() throws {
    let samples = try EmbeddedSamples()
    let before = samples.endpoint.requests.count
    let summary = try samples.run()
    #expect(summary.embedded == 0)
    #expect(samples.endpoint.requests.count == before)
  }

  @Test func updatingAnItemInvalidatesItsVectorsAndDeletingRemovesThem() throws {
    let samples = try EmbeddedSamples()
    let counts = try samples.index.embeddingCounts()
    var item = try #require(try samples.index.item(withIdentifier: "trail-17"))
    item.attributeSet["title"] = .string("Mist Trail, rewritten")
    try samples.index.indexSearchableItems([item])
    let afterUpdate = try samples.index.embeddingCounts()
    #expect(afterUpdate.embedded == counts.embedded - 1)
    #expect(afterUpdate.pending == 1)

    let before = samples.endpoint.requests.count
    #expect(try samples.run().embedded == 1)
    #expect(samples.endpoint.requests.count == before + 1)
    let sent = try #require(samples.endpoint.requests.last?.json?["input"]?.arrayValue?.first?.stringValue)
    #expect(sent.hasPrefix("Mist Trail, rewritten"))

    try samples.index.deleteSearchableItems(withIdentifiers: ["trail-17"])
    let afterDelete = try samples.index.embeddingCounts()
    #expect(afterDelete.embedded == counts.embedded - 1)
    let orphans = try samples.index.read { db in try db.scalar("SELECT count(*) FROM vectors WHERE item NOT IN (SELECT rowid FROM items)")?.int64Value }
    #expect(orphans == 0)
  }

  @Test func anInterruptedRunResumesWhereItStopped() throws {
    let samples = try EmbeddedSamples(embed: false)
    // The third request fails as if the server had died: two batches are committed.
    samples.endpoint.fail(with: .reset, fromRequest: 3)
    #expect {
      _ = try samples.run(batchSize: 10)
    } throws: { ($0 as? EmbeddingError)?.kind == .unreachable }
    let partial = try samples.index.embeddingCounts()
    #expect(partial.embedded == 20)
    #expect(partial.failed == 0)

    samples.endpoint.fail(with: nil)
    let before = samples.endpoint.requests.count
    let summary = try samples.run(batchSize: 10)
    let counts = try samples.index.embeddingCounts()
    #expect(counts.pending == 0)
    #expect(counts.embedded == 20 + summary.embedded)
    // Only the items still pending were sent again.
    let sent = samples.endpoint.requests.dropFirst(before).compactMap { $0.json?["input"]?.arrayValue?.count }.reduce(0, +)
    #expect(sent >= summary.embedded && sent < summary.embedded + 20)
  }

  @Test func rebuildingTheFullTextIndexKeepsTheEmbeddings() throws {
    let samples = try EmbeddedSamples(embed: false)
    samples.endpoint.fail(with: .rejectWord("waterfall"))
    _ = try samples.run(batchSize: 8)
    let before = try samples.index.embeddingCounts()
    #expect(before.embedded > 100 && before.failed > 0)
    let vectorsBefore = try samples.index.read { db in
      try db.rows("SELECT i.id, v.chunk, hex(v.vector) FROM vectors v JOIN items i ON i.rowid = v.item ORDER BY 1, 2") {
        "\($0.string(0) ?? "") \($0.int64(1)) \($0.string(2) ?? "")"
      }
    }
    #expect(try samples.index.rebuildFullTextIndex() == samples.index.allItems().count)
    #expect(try samples.index.embeddingCounts() == before, "embedded, pending, failed and vectors unchanged")
    let vectorsAfter = try samples.index.read { db in
      try db.rows("SELECT i.id, v.chunk, hex(v.vector) FROM vectors v JOIN items i ON i.rowid = v.item ORDER BY 1, 2") {
        "\($0.string(0) ?? "") \($0.int64(1)) \($0.string(2) ?? "")"
      }
    }
    #expect(vectorsAfter == vectorsBefore)
    let requests = samples.endpoint.requests.count
    #expect(try samples.run().embedded == 0, "nothing to embed again")
    #expect(samples.endpoint.requests.count == requests)
  }

  @Test func rejectedItemsAreRecordedAndPendingRetriesThem() throws {
    let samples = try EmbeddedSamples(embed: false)
    samples.endpoint.fail(with: .rejectWord("waterfall"))
    let summary = try samples.run(batchSize: 8)
    #expect(summary.failed > 0)
    #expect(summary.embedded > 0)
    #expect(summary.firstFailure?.contains("too long") == true)
    #expect(try samples.index.embeddingCounts().failed == summary.failed)

    // A plain run leaves failed items alone; --pending (includeFailed) retries them.
    #expect(try samples.run().embedded == 0)
    samples.endpoint.fail(with: nil)
    let retry = try samples.run(includeFailed: true)
    #expect(retry.embedded == summary.failed)
    #expect(try samples.index.embeddingCounts().failed == 0)
  }

  @Test func malformedResponsesWriteNothing() throws {
    let samples = try EmbeddedSamples(embed: false)
    samples.endpoint.fail(with: .malformedJSON)
    #expect {
      _ = try samples.run()
    } throws: { ($0 as? EmbeddingError)?.kind == .malformed }
    #expect(try samples.index.embeddingConfiguration() == nil)
    #expect(try samples.index.embeddingCounts().embedded == 0)
  }

  @Test func anUpdateThatLeavesTheTextsAloneKeepsItsVectors() throws {
    let samples = try EmbeddedSamples()
    let counts = try samples.index.embeddingCounts()
    var item = try #require(try samples.index.item(withIdentifier: "trail-17"))
    item.attributeSet["rating"] = .number(0.7)
    try samples.index.indexSearchableItems([item])
    #expect(try samples.index.item(withIdentifier: "trail-17")?.attributeSet["rating"] == .number(0.7))
    #expect(try samples.index.embeddingCounts() == counts)
    let before = samples.endpoint.requests.count
    #expect(try samples.run().embedded == 0)
    #expect(samples.endpoint.requests.count == before)
  }

  @Test func vectorsOfAnotherSizeAreAMismatch() throws {
    let samples = try EmbeddedSamples()
    let before = try samples.index.embeddingCounts()
    var item = try #require(try samples.index.item(withIdentifier: "trail-17"))
    item.attributeSet["title"] = .string("Mist Trail again")
    try samples.index.indexSearchableItems([item])
    samples.endpoint.fail(with: .dimensions(32))
    #expect {
      _ = try samples.run()
    } throws: { error in
      let error = error as? EmbeddingError
      return error?.kind == .mismatch && error?.message.contains("32 dimensions") == true
    }
    #expect(try samples.index.embeddingConfiguration()?.dimensions == 64)
    #expect(try samples.index.embeddingCounts().embedded == before.embedded - 1)
  }

  @Test func anotherModelIsRefusedBeforeAnyRequest() throws {
    let samples = try EmbeddedSamples()
    var item = try #require(try samples.index.item(withIdentifier: "trail-17"))
    item.attributeSet["title"] = .string("Changed")
    try samples.index.indexSearchableItems([item])
    let before = samples.endpoint.requests.count
    #expect {
      _ = try samples.run(model: "other-model")
    } throws: { error in
      let error = error as? EmbeddingError
      return error?.kind == .mismatch && error?.message.contains("'hash-bow', not 'other-model'") == true
    }
    #expect(samples.endpoint.requests.count == before)
  }

  @Test func anUnreachableEndpointIsAnIOFailure() throws {
    let index = try SampleIndex.make()
    let url = URL(string: "http://127.0.0.1:\(LoopbackHTTPServer.unusedPort())")!
    var run = EmbeddingRun(
      index: index, embedder: EndpointEmbedder(url: url, model: "m"),
      configuration: EmbeddingConfiguration(model: "m", dimensions: 0, url: url.absoluteString))
    #expect {
      _ = try run.run()
    } throws: { error in
      let error = error as? EmbeddingError
      return error?.isIOFailure == true && error?.message.contains("unreachable") == true
    }
    #expect(try index.embeddingConfiguration() == nil)
  }

  @Test func clearingRemovesVectorsAndTheModel() throws {
    let samples = try EmbeddedSamples()
    #expect(try samples.index.clearEmbeddings() > 100)
    #expect(try samples.index.embeddingConfiguration() == nil)
    #expect(try samples.index.embeddingCounts().embedded == 0)
  }

  @Test func anIndexFromSchemaOneGainsTheEmbeddingTables() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("v1-\(UUID().uuidString).db").path
    defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    do {
      let index = try SearchIndex(path: path)
      try index.indexSearchableItems([SearchableItem(uniqueIdentifier: "a", domainIdentifier: "d", attributeSet: AttributeSet([("title", .string("Alpha"))]))])
    }
    do {
      // Make it look like a file written before schema 2.
      let db = try Connection(path: path)
      try db.execute("DROP TABLE embedding_models; DROP TABLE vectors; DROP TABLE embedding_status; UPDATE meta SET value = 1 WHERE key = 'schemaVersion'")
    }
    let reopened = try SearchIndex(path: path)
    #expect(try reopened.embeddingCounts().pending == 1)
    let version = try reopened.read { db in try db.scalar("SELECT value FROM meta WHERE key = 'schemaVersion'")?.int64Value }
    #expect(version == Int64(Schema.version))
    #expect(try reopened.item(withIdentifier: "a") != nil)
  }

  @Test func longTextIsEmbeddedInChunks() {
    let body = (0..<450).map { "word\($0)" }.joined(separator: " ")
    let chunks = EmbeddingText.chunks(title: "Title", description: "About it", body: body)
    #expect(chunks.count == 3)
    #expect(chunks[0].hasPrefix("Title\nAbout it\nword0 "))
    #expect(chunks[1].hasPrefix("Title\nword200 "))
    #expect(EmbeddingText.chunks(title: "", description: "", body: "  ").isEmpty)
    #expect(EmbeddingText.chunks(title: "Only a title", description: "", body: "") == ["Only a title"])
    let huge = (0..<10_000).map { "w\($0)" }.joined(separator: " ")
    #expect(EmbeddingText.chunks(title: "T", description: "", body: huge).count == EmbeddingText.maximumChunks)
  }
}

/// Items without text come first: the model is recorded with the first real vectors.
@Suite struct EmbeddingRunOrderTests {
  @Test func aFirstBatchWithoutTextRecordsNoSize() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("empty-first-\(UUID().uuidString).db").path
    defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    let index = try SearchIndex(path: path)
    try index.indexSearchableItems((0..<3).map { SearchableItem(uniqueIdentifier: "empty-\($0)", domainIdentifier: "d", attributeSet: AttributeSet([("rating", .number(1))])) })
    try index.indexSearchableItems([SearchableItem(uniqueIdentifier: "text", domainIdentifier: "d", attributeSet: AttributeSet([("title", .string("Alpha beta"))]))])
    let endpoint = try EmbeddingsEndpoint(dimensions: 16)
    var run = EmbeddingRun(index: index, embedder: EndpointEmbedder(url: endpoint.url, model: "m"),
                           configuration: EmbeddingConfiguration(model: "m", dimensions: 0, url: endpoint.url.absoluteString), batchSize: 3)
    let summary = try run.run()
    #expect(summary.empty == 3)
    #expect(summary.embedded == 1)
    #expect(try index.embeddingConfiguration()?.dimensions == 16)
  }
}
