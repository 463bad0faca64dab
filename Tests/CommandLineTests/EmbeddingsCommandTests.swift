import Foundation
import SearchIndex
import SearchlightTestSupport
import Testing

/// `searchlight embeddings`, `similar` queries and the index/sync hook, end to end: the real
/// binary against a loopback embeddings endpoint, checking output and exit codes.
@Suite struct EmbeddingsCommandTests {
  static let items = [
    #"{"id":"a","domain":"notes","attributes":{"title":"Kitchen remodel quote","textContent":"Cabinets, counters and the sink."}}"#,
    #"{"id":"b","domain":"notes","attributes":{"title":"Waterfall hike","textContent":"Mist trail to the upper falls."}}"#,
    #"{"id":"c","domain":"notes","attributes":{"title":"Garden plan","textContent":"Tomatoes, basil and beans."}}"#,
  ].joined(separator: "\n")

  /// A workspace with `index.db` holding `items`, and an endpoint.
  func withIndex<T>(_ body: (Workspace, EmbeddingsEndpoint) throws -> T) throws -> T {
    let endpoint = try EmbeddingsEndpoint(dimensions: 32)
    defer { endpoint.stop() }
    return try Workspace.with { workspace in
      try workspace.write("items.jsonl", Self.items)
      let indexed = try workspace.run("index", "--db", "index.db", "items.jsonl")
      #expect(indexed.status == 0, "\(indexed)")
      return try body(workspace, endpoint)
    }
  }

  func embed(_ workspace: Workspace, _ endpoint: EmbeddingsEndpoint, _ extra: String...) throws -> CLIResult {
    try workspace.run(["embeddings", "--db", "index.db", "--url", endpoint.url.absoluteString, "--model", "hash"] + extra)
  }

  @Test func embeddingThenQueryingBySimilarity() throws {
    try withIndex { workspace, endpoint in
      let result = try embed(workspace, endpoint)
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.hasPrefix("embedded 3 items with 'hash'"))
      #expect(result.stderr.contains("embedded 3/3 items"))
      let query = try workspace.run("query", "--db", "index.db", "--format", "json", #"similar "waterfall trail hike" within 0.9 | top 1"#)
      #expect(query.status == 0, "\(query)")
      #expect(query.stdout.contains(#""id":"b""#))
      let stats = try embed(workspace, endpoint, "--pending")
      #expect(stats.status == 0)
      #expect(stats.stdout.hasPrefix("embedded 0 items"))
    }
  }

  @Test func theKeyComesFromAFileOrTheEnvironmentNeverFromTheProcessList() throws {
    try withIndex { workspace, endpoint in
      try workspace.write("key.txt", "sk-file\n")
      let keys = ["SEARCHLIGHT_EMBEDDINGS_API_KEY": "", "SEARCHLIGHT_API_KEY": "sk-shared", "OPENAI_API_KEY": "sk-openai"]
      let shared = try workspace.run(
        ["embeddings", "--db", "index.db", "--url", endpoint.url.absoluteString, "--model", "hash", "--clear"], environment: keys)
      #expect(shared.status == 0, "\(shared)")
      let fromEnvironment = try workspace.run(
        ["embeddings", "--db", "index.db", "--url", endpoint.url.absoluteString, "--model", "hash"], environment: keys)
      #expect(fromEnvironment.status == 0, "\(fromEnvironment)")
      #expect(endpoint.requests.last?.headers["authorization"] == "Bearer sk-shared")
      let fromFile = try workspace.run(
        ["embeddings", "--db", "index.db", "--url", endpoint.url.absoluteString, "--model", "hash", "--clear"], environment: keys)
      #expect(fromFile.status == 0)
      let filed = try workspace.run(
        ["embeddings", "--db", "index.db", "--url", endpoint.url.absoluteString, "--model", "hash", "--api-key-file", workspace.path("key.txt")],
        environment: keys)
      #expect(filed.status == 0, "\(filed)")
      #expect(endpoint.requests.last?.headers["authorization"] == "Bearer sk-file")
      #expect(!(filed.stdout + filed.stderr).contains("sk-file"))
    }
  }

  @Test func similarWithoutEmbeddingsExits65WithTheFix() throws {
    try withIndex { workspace, _ in
      let result = try workspace.run("query", "--db", "index.db", #"similar "waterfall""#)
      #expect(result.status == 65)
      #expect(result.stderr.hasPrefix("error: the index has no embeddings"))
      #expect(result.stderr.contains("searchlight embeddings --db"))
    }
  }

  @Test func anUnreachableEndpointExits74() throws {
    try withIndex { workspace, _ in
      let result = try workspace.run("embeddings", "--db", "index.db", "--url", "http://127.0.0.1:\(LoopbackHTTPServer.unusedPort())", "--model", "m")
      #expect(result.status == 74, "\(result)")
      #expect(result.stderr.hasPrefix("error: embeddings endpoint"))
      #expect(try SearchIndex(path: workspace.path("index.db"), create: false).embeddingConfiguration() == nil)
    }
  }

  @Test func aMalformedResponseExits65AndWritesNothing() throws {
    try withIndex { workspace, endpoint in
      endpoint.fail(with: .malformedJSON)
      let result = try embed(workspace, endpoint)
      #expect(result.status == 65, "\(result)")
      #expect(result.stderr.contains("malformed"))
      #expect(try SearchIndex(path: workspace.path("index.db"), create: false).embeddingCounts().embedded == 0)
    }
  }

  @Test func modelAndDimensionMismatchesExit65() throws {
    try withIndex { workspace, endpoint in
      #expect(try embed(workspace, endpoint).status == 0)
      let model = try workspace.run("embeddings", "--db", "index.db", "--url", endpoint.url.absoluteString, "--model", "other")
      #expect(model.status == 65)
      #expect(model.stderr.contains("come from model 'hash', not 'other'"))
      let size = try embed(workspace, endpoint, "--dimensions", "16")
      #expect(size.status == 65)
      #expect(size.stderr.contains("32 dimensions, not 16"))
      endpoint.fail(with: .dimensions(8))
      let query = try workspace.run("query", "--db", "index.db", #"similar "waterfall""#)
      #expect(query.status == 65, "\(query)")
    }
  }

  @Test func rejectedItemsExit65AndPendingRetriesThem() throws {
    try withIndex { workspace, endpoint in
      endpoint.fail(with: .rejectWord("tomatoes"))
      let first = try embed(workspace, endpoint, "--batch", "3")
      #expect(first.status == 65, "\(first)")
      #expect(first.stdout.hasPrefix("embedded 2 items"))
      #expect(first.stderr.contains("rejected 1 item"))
      #expect(first.stderr.contains("--pending"))
      endpoint.fail(with: nil)
      let retry = try workspace.run("embeddings", "--db", "index.db", "--pending")
      #expect(retry.status == 0, "\(retry)")
      #expect(retry.stdout.hasPrefix("embedded 1 item "))
    }
  }

  @Test func indexingEmbedsNewItemsOrLeavesThemPending() throws {
    try withIndex { workspace, endpoint in
      #expect(try embed(workspace, endpoint).status == 0)
      try workspace.write("more.jsonl", #"{"id":"d","domain":"notes","attributes":{"title":"Basil pesto"}}"#)
      let indexed = try workspace.run("index", "--db", "index.db", "more.jsonl")
      #expect(indexed.status == 0)
      #expect(indexed.stderr.contains("embedded 1 new item"))
      #expect(try SearchIndex(path: workspace.path("index.db"), create: false).embeddingCounts().pending == 0)

      endpoint.fail(with: .reset)
      try workspace.write("later.jsonl", #"{"id":"e","domain":"notes","attributes":{"title":"Bean soup"}}"#)
      let offline = try workspace.run("index", "--db", "index.db", "later.jsonl")
      #expect(offline.status == 0, "\(offline)")
      #expect(offline.stderr.contains("note: 1 item waits for embeddings"))
      #expect(try SearchIndex(path: workspace.path("index.db"), create: false).embeddingCounts().pending == 1)
      endpoint.fail(with: nil)
      #expect(try workspace.run("embeddings", "--db", "index.db", "--pending").status == 0)
      #expect(try SearchIndex(path: workspace.path("index.db"), create: false).embeddingCounts().pending == 0)
    }
  }

  @Test func theQueryEndpointCanBeOverridden() throws {
    try withIndex { workspace, endpoint in
      #expect(try embed(workspace, endpoint).status == 0)
      let dead = "http://127.0.0.1:\(LoopbackHTTPServer.unusedPort())"
      let viaFlag = try workspace.run("query", "--db", "index.db", "--embeddings-url", dead, #"similar "waterfall""#)
      #expect(viaFlag.status == 74, "\(viaFlag)")
      let viaEnvironment = try workspace.run(["query", "--db", "index.db", #"similar "waterfall""#], environment: ["SEARCHLIGHT_EMBEDDINGS_URL": dead])
      #expect(viaEnvironment.status == 74)
    }
  }
}
