import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

/// Queries written as tool calls (`explain --json`) decode back to queries with the same results:
/// every ok example of `Grammar/examples`, structured where the encoder can, the `dsl` form
/// otherwise.
@Suite struct ToolCallEncoderTests {
  struct Example: Sendable, CustomTestStringConvertible {
    var file: String
    var line: Int
    var description: String
    var query: String
    var testDescription: String { "\(file):\(line) \(description)" }
  }

  /// The ok cases of `Grammar/examples/*.query`: a `-- ok: ` line, the query, then `-- tree`.
  static let examples: [Example] = {
    let folder = SampleIndex.repository.appendingPathComponent("Grammar/examples")
    // similar.query runs only on an index with embeddings (EmbeddingTests covers it).
    let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
      .filter { $0.hasSuffix(".query") && $0 != "similar.query" }.sorted()
    var examples: [Example] = []
    for file in files {
      let text = (try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)) ?? ""
      var current: Example?
      var inQuery = false
      for (offset, line) in text.components(separatedBy: "\n").enumerated() {
        if line.hasPrefix("-- ") {
          if var finished = current {
            finished.query = finished.query.trimmingCharacters(in: .newlines)
            examples.append(finished)
          }
          current = nil
          inQuery = false
          if line.hasPrefix("-- ok: ") {
            current = Example(file: file, line: offset + 1, description: String(line.dropFirst(7)), query: "")
            inQuery = true
          }
        } else if inQuery, current != nil {
          current!.query += (current!.query.isEmpty ? "" : "\n") + line
        }
      }
    }
    return examples
  }()

  @Test func thereAreExamples() {
    #expect(Self.examples.count >= 90)
  }

  func encode(_ query: String) throws -> (json: JSONValue, structured: Bool, reason: String?) {
    try ToolCallEncoder().encode(query, verifyingWith: Harness.executor, options: SampleIndex.options)
  }

  @Test(arguments: examples)
  func anEncodedExampleReturnsWhatTheExampleReturns(_ example: Example) throws {
    let encoded = try encode(example.query)
    if !encoded.structured {
      #expect(encoded.json == ["query": ["type": "dsl", "value": ["query": .string(example.query)]]])
      #expect(encoded.reason != nil)
    }
    let request = try Harness.decoder().decode(encoded.json)
    guard case .search(let search) = request else {
      Issue.record("not a search")
      return
    }
    let original = try Harness.run(example.query)
    let roundTrip = try Harness.run(search)
    #expect(Harness.fingerprint(roundTrip) == Harness.fingerprint(original), "\(encoded.json.compactText)\nbecame: \(search.query)")
  }

  @Test func howManyExamplesHaveAStructuredForm() throws {
    var structured: [String] = []
    var reasons: [String: Int] = [:]
    for example in Self.examples {
      let encoded = try encode(example.query)
      if encoded.structured { structured.append(example.query) } else { reasons[encoded.reason ?? "?", default: 0] += 1 }
    }
    print("ToolCallEncoder: \(structured.count) of \(Self.examples.count) grammar examples encode structurally; dsl fallbacks by reason: \(reasons.sorted { $0.value > $1.value })")
    #expect(structured.count >= 3)
  }

  // MARK: Structured forms

  @Test func aLinearPipelineBecomesStagesWithIds() throws {
    let encoded = try encode(#"search domainIdentifier == "trails" && rating >= 4.5 | where stateOrProvince == "Utah"cd | sort rating desc | limit 3"#)
    #expect(encoded.structured)
    let stages = try #require(encoded.json["query"]?["value"]?["pipeline"]?["stages"]?.arrayValue)
    #expect(stages.map { $0["id"]?.stringValue ?? "" } == ["s0", "s1", "s2", "s3"])
    #expect(stages.map { $0["kind"]?["type"]?.stringValue ?? "" } == ["query", "filter", "sort", "limit"])
    #expect(stages.dropFirst().map { $0["kind"]?["value"]?["from"]?.stringValue ?? "" } == ["s0", "s1", "s2"])
    let root = try #require(stages[0]["kind"]?["value"]?["query"])
    #expect(root["type"] == "operation")
    #expect(root["value"]?["logic"] == "all")
  }

  @Test func groupAndCountBecomeGroupByAndValueCount() throws {
    let encoded = try encode(#"search domainIdentifier == "trails" | group by stateOrProvince | count"#)
    #expect(encoded.structured)
    let kinds = encoded.json["query"]?["value"]?["pipeline"]?["stages"]?.arrayValue?.map { $0["kind"]?["type"]?.stringValue ?? "" }
    #expect(kinds == ["query", "groupBy", "valueCount"])
  }

  @Test(arguments: [
    #"search "budget""#,
    #"search "budget" | score relevance + recency(contentModificationDate, 30d) | top 3"#,
    #"a = search rating == 5; a | count"#,
    #"search "launch" | fork (count as "Matches") (top 3 | text)"#,
  ])
  func queriesWithoutAnExactStructuredFormFallBackToDsl(_ query: String) throws {
    let encoded = try encode(query)
    #expect(!encoded.structured)
    #expect(encoded.json == ["query": ["type": "dsl", "value": ["query": .string(query)]]])
  }

  /// The check compares trees: a text search with a quote in it encodes as an `allText`
  /// node, but the decoder writes a text search's words without quotes, so the call would
  /// come back as another tree and the query travels as text.
  @Test func aStructuredFormThatDecodesToAnotherTreeFallsBackToDsl() throws {
    let query = #"search "flutter \"wing\"" | limit 3"#
    let encoded = try encode(query)
    #expect(!encoded.structured)
    #expect(encoded.reason == "the structured form would mean a different query")
    #expect(encoded.json == ["query": ["type": "dsl", "value": ["query": .string(query)]]])
    // Without the quote, the same shape encodes structurally.
    #expect(try encode(#"search "flutter wing" | limit 3"#).structured)
  }

  @Test func everyStructuredEncodingValidatesAgainstTheCompleteSchema() throws {
    let validator = JSONSchemaValidator(root: try ToolSchemaTests.parameters("complete"))
    for example in Self.examples {
      let encoded = try encode(example.query)
      guard encoded.structured else { continue }
      let problems = validator.errors(validator.filled(encoded.json))
      #expect(problems.isEmpty, "\(example.query)\n\(problems.joined(separator: "\n"))")
    }
  }

  /// The encoder and the built-in planner throw `QueryError`, classified as the executor's
  /// are: a query that does not parse is `invalidQuery`, with its line and column.
  @Test func encoderAndPlannerThrowQueryErrors() throws {
    do {
      _ = try ToolCallEncoder().encode("search title == ", verifyingWith: Harness.executor, options: SampleIndex.options)
      Issue.record("a query that does not parse was encoded")
    } catch {
      guard case .invalidQuery(let diagnostics) = error else { Issue.record("\(error)"); return }
      #expect(diagnostics.primaryLocation.line == 1 && diagnostics.primaryLocation.column > 1)
    }
    let planner = try BuiltinPlanner(index: SampleIndex.shared, clock: SampleIndex.clock)
    let plan: PlannedQuery
    do { plan = try planner.plan("waterfall hikes") } catch { Issue.record("\(error.underlying)"); return }
    #expect(plan.dsl.hasPrefix("search "))
  }
}
