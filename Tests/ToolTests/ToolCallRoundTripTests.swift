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

/// A parsed query as the tool-call round trip keeps it, as text: without spans, statement
/// names and reply labels (the decoder names statements after stage ids and labels the last
/// stage's reply), with runs of `&&` and `||` flattened (an operation node has children, not
/// nesting), `sort a` as `sort a asc`, and exact values written one way (`'x'` and `"x"`
/// without wildcards are the same value).
enum RoundTripShape {
  static func of(_ syntax: QuerySyntax) -> String {
    syntax.statements.map { statement in (statement.isLet ? "let " : "") + shape(statement.pipeline) }.joined(separator: "; ")
  }

  static func argument(_ argument: Argument) -> String {
    let label: String = argument.label.map { "\($0): " } ?? ""
    return label + expression(argument.value)
  }

  static func shape(_ pipeline: PipelineSyntax) -> String {
    var parts: [String] = []
    switch pipeline.source {
    case .search(let predicate, _)?: parts.append("search " + expression(predicate))
    case .reference(let name, _)?: parts.append("from " + name)
    case .merge(let names, _, _)?: parts.append("merge " + names.joined(separator: ","))
    case nil: break
    }
    for stage in pipeline.stages {
      switch stage.arguments {
      case .clauses(let clauses):
        var written: [String] = clauses.map { clause in clause.map { expression($0) }.joined(separator: " ") }
        if stage.name == "sort" { written = zip(clauses, written).map { clause, text in clause.count == 1 ? text + " asc" : text } }
        parts.append("\(stage.name) \(written.joined(separator: ", "))")
      case .call(let arguments):
        let written: [String] = arguments.map { argument($0) }
        parts.append("\(stage.name)(\(written.joined(separator: ", ")))")
      case .branches(let branches):
        let written: [String] = branches.map { "(\(shape($0)))" }
        parts.append("\(stage.name) \(written.joined(separator: " "))")
      }
    }
    return parts.joined(separator: " | ")
  }

  static func operands(_ op: BinaryOperator, _ node: QueryEngine.Expression) -> [QueryEngine.Expression] {
    if case .binary(let inner, let lhs, let rhs) = node.kind, inner == op { return operands(op, lhs) + operands(op, rhs) }
    return [node]
  }

  static func expression(_ node: QueryEngine.Expression) -> String {
    switch node.kind {
    case .boolean(let b): return "\(b)"
    case .number(let n): return JSONValue.format(number: n)
    case .duration(let s): return "\(JSONValue.format(number: s))s"
    case .string(let literal):
      var active = false
      if literal.form != StringLiteral.Form.singleQuoted {
        for (index, scalar) in literal.text.unicodeScalars.enumerated() where (scalar == "*" || scalar == "?") && !literal.escapedWildcards.contains(index) {
          active = true
        }
      }
      let boost: String = literal.boost.map { "^\($0)" } ?? ""
      return "\(active ? "pattern" : "value")(\(literal.text))\(literal.modifiers)\(boost)"
    case .time(let time):
      let offset: String = time.offset.map { JSONValue.format(number: $0) } ?? ""
      return "$time.\(time.function)(\(time.iso ?? offset))"
    case .identifier(let name): return name
    case .anyAttribute(let deep): return deep ? "**" : "*"
    case .variable(let name): return "$" + name
    case .unary(let op, let operand): return "(\(op.rawValue) \(expression(operand)))"
    case .binary(let op, let lhs, let rhs):
      if op == .and || op == .or {
        let written: [String] = operands(op, node).map { expression($0) }
        return "(\(op.rawValue) \(written.joined(separator: " ")))"
      }
      return "(\(op.rawValue) \(expression(lhs)) \(expression(rhs)))"
    case .comparison(let op, let lhs, let rhs, let modifiers):
      let bracket: String = modifiers.map { "[\($0)]" } ?? ""
      return "(\(op.rawValue)\(bracket) \(expression(lhs)) \(expression(rhs)))"
    case .call(let name, _, let arguments):
      let written: [String] = arguments.map { argument($0) }
      return "\(name)(\(written.joined(separator: ", ")))"
    case .similar(let similar):
      return "similar(\(similar.phrase), \(similar.maxDistance ?? -1), \(similar.maxCount ?? -1), \(similar.keywords ?? ""))"
    }
  }
}
