import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

/// Every example query of the stage library (each stage's `examples`, the example custom
/// stages included) and of the README goes through the tool-call encoder (`explain --json`)
/// and the decoder and comes back meaning the same: the same results, or the same error.
/// (`ToolCallEncoderTests` does the same for the grammar's examples.)
@Suite struct ToolCallRoundTripTests {
  struct Example: Sendable, CustomTestStringConvertible {
    var origin: String
    var query: String
    var testDescription: String { "\(origin): \(query)" }
  }

  /// The examples of every registered stage.
  static let stageExamples: [Example] = Harness.registry.all.flatMap { definition in
    definition.descriptor.examples.map { Example(origin: "stage \(definition.descriptor.name)", query: $0) }
  }

  /// The queries the README runs (`searchlight query ... 'QUERY'`) and those it lists under
  /// "The query language".
  static let readmeExamples: [Example] = {
    let text = (try? String(contentsOf: SampleIndex.repository.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""
    var examples: [Example] = []
    var inLanguageBlock = false
    var sawLanguageHeading = false
    for (offset, line) in text.components(separatedBy: "\n").enumerated() {
      if line.hasPrefix("## The query language") { sawLanguageHeading = true; continue }
      if sawLanguageHeading, line.hasPrefix("```") {
        if inLanguageBlock { sawLanguageHeading = false }
        inLanguageBlock.toggle()
        continue
      }
      if inLanguageBlock, !line.isEmpty {
        examples.append(Example(origin: "README.md:\(offset + 1)", query: line))
        continue
      }
      guard line.contains("searchlight query ") || line.contains("searchlight explain "), line.hasSuffix("'"),
        let open = line.dropLast().lastIndex(of: "'")
      else { continue }
      examples.append(Example(origin: "README.md:\(offset + 1)", query: String(line[line.index(after: open)..<line.index(before: line.endIndex)])))
    }
    return examples
  }()

  @Test func thereAreExamples() {
    #expect(Self.stageExamples.count >= 25)
    #expect(Self.readmeExamples.count >= 25)
  }

  /// What a decoded call gives on the samples: its replies, or its error.
  static func outcome(_ request: SearchRequest) -> [String] {
    do {
      return Harness.fingerprint(try Harness.run(request))
    } catch {
      return ["error: \(error)"]
    }
  }

  /// What a query gives on the samples: its replies, or its error.
  static func outcome(_ query: String) -> [String] {
    do {
      return Harness.fingerprint(try Harness.run(query))
    } catch {
      return ["error: \(error)"]
    }
  }

  /// The ok examples of `Grammar/examples` (see `ToolCallEncoderTests`).
  static let grammarExamples: [Example] = ToolCallEncoderTests.examples.map {
    Example(origin: "Grammar/examples/\($0.file):\($0.line)", query: $0.query)
  }

  /// Every example through the encoder and the decoder comes back as the same tree: the call
  /// decodes to a parsed query (the tree the parser gives for the query's text, not text to
  /// parse) that is the example's own tree, up to what the round trip does not keep (see
  /// `RoundTripShape`).
  @Test(arguments: stageExamples + readmeExamples + grammarExamples)
  func anExampleComesBackAsTheSameTree(_ example: Example) throws {
    let encoder = ToolCallEncoder()
    guard let encoded = try? encoder.encode(example.query, verifyingWith: Harness.executor, options: SampleIndex.options) else { return }
    guard case .search(let request) = try Harness.decoder().decode(encoded.json) else {
      Issue.record("not a search: \(encoded.json.compactText)")
      return
    }
    guard encoded.structured else {
      // The dsl form: the query's own text, parsed when it runs.
      #expect(request.syntax == nil)
      #expect(request.query == example.query)
      return
    }
    let syntax = try #require(request.syntax, "a structured call decodes to a parsed query: \(encoded.json.compactText)")
    #expect(try Harness.syntaxMatchesText(request), "\(encoded.json.compactText)\nbecame: \(request.query)")
    let original = try Parser.parse(SourceText(example.query))
    #expect(RoundTripShape.of(syntax) == RoundTripShape.of(original), "\(encoded.json.compactText)\nbecame: \(request.query)")
  }

  @Test func manyExamplesComeBackAsTrees() {
    let structured = (Self.stageExamples + Self.readmeExamples + Self.grammarExamples).filter { example in
      (try? ToolCallEncoder().encode(example.query, verifyingWith: Harness.executor, options: SampleIndex.options))?.structured == true
    }
    print("ToolCallRoundTripTests: \(structured.count) examples come back as trees")
    // The encoder gives a structured form to searches with where, sort, limit, group and count
    // stages; the others travel as the `dsl` form (their text).
    #expect(structured.count >= 10)
  }

  @Test(arguments: stageExamples + readmeExamples)
  func anExampleComesBackFromTheToolCallMeaningTheSame(_ example: Example) throws {
    let original = Self.outcome(example.query)
    let encoded: JSONValue
    do {
      encoded = try ToolCallEncoder().encode(example.query, verifyingWith: Harness.executor, options: SampleIndex.options).json
    } catch {
      // Only a query that does not prepare has no tool call; its error is the example's.
      #expect(original.first?.hasPrefix("error: ") == true, "\(error)")
      return
    }
    guard case .search(let request) = try Harness.decoder().decode(encoded) else {
      Issue.record("not a search: \(encoded.compactText)")
      return
    }
    #expect(Self.outcome(request) == original, "\(encoded.compactText)\nbecame: \(request.query)")
  }
}
