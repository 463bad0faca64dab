import Foundation
import QueryEngine
import SearchIndex
import Stages
import SearchlightTestSupport
import Testing

/// Runs every example in `Grammar/examples/*.query`: ok cases must parse to the expected tree
/// and type-check against the bundled samples; error cases must produce the expected first
/// diagnostic (id, line:column, message).
@Suite struct GrammarExamplesTests {
  struct Case: CustomTestStringConvertible, Sendable {
    var file: String
    var line: Int
    var description: String
    var query: String
    /// nil for ok cases.
    var errorID: String?
    var errorLocation: String?
    /// The tree for ok cases, the message for error cases.
    var expected: String

    var testDescription: String { "\(file):\(line) \(description)" }
  }

  static let grammarDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Grammar")

  static let cases: [Case] = {
    let folder = grammarDirectory.appendingPathComponent("examples")
    let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.filter { $0.hasSuffix(".query") }.sorted() ?? []
    return files.flatMap { name in parse(file: name, text: (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? "") }
  }()

  /// Splits an examples file into cases.
  static func parse(file: String, text: String) -> [Case] {
    var cases: [Case] = []
    var current: Case?
    var section = "query"
    var query: [String] = []
    var expected: [String] = []
    func flush() {
      guard var finished = current else { return }
      while query.last?.isEmpty == true { query.removeLast() }
      while expected.last?.isEmpty == true { expected.removeLast() }
      finished.query = query.joined(separator: "\n")
      finished.expected = expected.joined(separator: "\n")
      cases.append(finished)
      current = nil
    }
    for (offset, line) in text.components(separatedBy: "\n").enumerated() {
      if line.hasPrefix("-- ok: ") || line.hasPrefix("-- error ") {
        flush()
        query = []
        expected = []
        section = "query"
        if line.hasPrefix("-- ok: ") {
          current = Case(file: file, line: offset + 1, description: String(line.dropFirst(7)), query: "", errorID: nil, errorLocation: nil, expected: "")
        } else {
          // -- error ID at LINE:COLUMN: DESCRIPTION
          let rest = line.dropFirst(9)
          let parts = rest.split(separator: " ", maxSplits: 3)
          let location = parts.count > 2 ? String(parts[2].dropLast()) : ""
          current = Case(file: file, line: offset + 1, description: parts.count > 3 ? String(parts[3]) : "", query: "",
                         errorID: String(parts[0]), errorLocation: location, expected: "")
        }
      } else if line == "-- tree" || line == "-- message" {
        section = "expected"
      } else if current != nil {
        if section == "query" { query.append(line) } else { expected.append(line) }
      }
    }
    flush()
    return cases
  }

  static var sampleIndex: SearchIndex { SampleIndex.shared }
  static var options: QueryOptions { SampleIndex.options }

  @Test func thereAreAtLeastEightyExamples() {
    #expect(Self.cases.count >= 80)
    #expect(Self.cases.contains { $0.errorID == nil })
    #expect(Self.cases.contains { $0.errorID != nil })
  }

  @Test(arguments: cases)
  func example(_ example: Case) throws {
    let source = SourceText(example.query)
    let executor = QueryExecutor(index: Self.sampleIndex, registry: StandardLibrary.registry())
    if example.errorID == nil {
      let syntax = try Parser.parse(source)
      #expect(SyntaxPrinter.tree(syntax) == example.expected)
      _ = try executor.prepare(example.query, options: Self.options)
      return
    }
    do {
      _ = try executor.prepare(example.query, options: Self.options)
      Issue.record("expected \(example.errorID!) but the query was accepted")
    } catch {
      let error = try #require(error.diagnostics, "\(example.query): \(error)")
      let primary = error.primary
      let (line, column) = error.source.location(of: primary.span.start)
      #expect(primary.id == example.errorID)
      #expect("\(line):\(column)" == example.errorLocation)
      #expect(primary.message == example.expected)
    }
  }

  @Test func grammarFileNamesEveryProductionThatTheParserImplements() throws {
    let grammar = try String(contentsOf: Self.grammarDirectory.appendingPathComponent("Searchlight.ebnf"), encoding: .utf8)
    for production in ["query", "statement", "pipeline", "source", "stage", "branch", "label", "clauses", "clause",
                       "call-arguments", "argument", "expression", "or", "and", "not", "comparison", "value",
                       "additive", "multiplicative", "unary", "primary", "string", "time", "modifier", "duration"] {
      #expect(grammar.contains("\n\(production) ") || grammar.contains("\n\(production)  "), "missing production \(production)")
    }
  }
}
