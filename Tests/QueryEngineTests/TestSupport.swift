import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex

// The clock, the samples folder, TemporaryIndex, sampleIndex and item(...) live in
// SearchlightTestSupport (Tests/TestSupport/QueryFixtures.swift).

// MARK: Parsing and binding

/// The diagnostics of parsing `text` (empty when it parses).
func parseDiagnostics(_ text: String) -> [Diagnostic] {
  do {
    _ = try Parser.parse(SourceText(text))
    return []
  } catch {
    return error.diagnostics
  }
}

/// The predicate of a one-statement query: `search P` or a bare `P`.
func predicate(_ text: String) throws -> QueryEngine.Expression {
  let query = try Parser.parse(SourceText(text))
  guard case .search(let expression, _)? = query.statements.first?.pipeline.source else {
    Issue.record("no search predicate in \(text)")
    throw DiagnosticsError(source: SourceText(text), diagnostics: [])
  }
  return expression
}

/// A catalogue with the custom attributes of the sample data.
let sampleCatalog = AttributeCatalog(customTypes: [
  "distance": .number, "elevationGain": .number, "difficulty": .string, "priority": .number, "pinned": .bool,
  "projects": .stringList,
])

/// Binds `text` as a condition; the diagnostics when it fails.
func bind(_ text: String, catalog: AttributeCatalog = sampleCatalog, clock: QueryClock = sampleClock) -> Result<BoundExpression, DiagnosticsError> {
  let source = SourceText(text)
  let expression: QueryEngine.Expression
  do { expression = try predicate(text) } catch let error as DiagnosticsError { return .failure(error) } catch {
    return .failure(DiagnosticsError(source: source, diagnostics: []))
  }
  var binder = ExpressionBinder(context: BindingContext(catalog: catalog, clock: clock))
  guard let bound = binder.bindCondition(expression) else {
    return .failure(DiagnosticsError(source: source, diagnostics: binder.diagnostics))
  }
  return .success(bound)
}

/// The bound condition of `text`, recording an issue when it does not bind.
func bound(_ text: String, clock: QueryClock = sampleClock, sourceLocation: SourceLocation = #_sourceLocation) throws -> BoundExpression {
  switch bind(text, clock: clock) {
  case .success(let bound): return bound
  case .failure(let error):
    Issue.record("\(text) does not bind:\n\(error)", sourceLocation: sourceLocation)
    throw error
  }
}

/// The diagnostics of a query that should fail to parse or bind (a type check with an empty
/// stage registry).
func failure(_ text: String, catalog: AttributeCatalog = sampleCatalog, clock: QueryClock = sampleClock,
             sourceLocation: SourceLocation = #_sourceLocation) -> DiagnosticsError? {
  let source = SourceText(text)
  do {
    let syntax = try Parser.parse(source)
    let builder = GraphBuilder(registry: StageRegistry(), bindingContext: BindingContext(catalog: catalog, clock: clock))
    _ = try builder.build(syntax, source: source)
    Issue.record("expected \(text) to fail", sourceLocation: sourceLocation)
    return nil
  } catch {
    return error
  }
}

/// What a test expects of a diagnostic.
struct DiagnosticSpec: CustomStringConvertible {
  var id: String
  var message: String
  var line: Int = 1
  var column: Int
  var help: String?
  var description: String { "\(id) '\(message)' at \(line):\(column) help \(help ?? "-")" }
}

/// Checks the primary diagnostic of `text` against `spec`.
func expectDiagnostic(_ text: String, _ spec: DiagnosticSpec, sourceLocation: SourceLocation = #_sourceLocation) {
  guard let error = failure(text, sourceLocation: sourceLocation) else { return }
  let primary = error.primary
  let (line, column) = error.source.location(of: primary.span.start)
  #expect(primary.id == spec.id, "\(text)", sourceLocation: sourceLocation)
  #expect(primary.message == spec.message, "\(text)", sourceLocation: sourceLocation)
  #expect(line == spec.line && column == spec.column, "\(text): at \(line):\(column), expected \(spec.line):\(spec.column)",
          sourceLocation: sourceLocation)
  #expect(primary.help == spec.help, "\(text)", sourceLocation: sourceLocation)
  #expect(primary.span.end <= error.source.byteCount, sourceLocation: sourceLocation)
}

// MARK: Running queries

/// Replies of one execution, with streamed item batches joined into one reply each.
func replies(
  _ text: String, in index: SearchIndex, registry: StageRegistry = StageRegistry(), clock: QueryClock = sampleClock,
  protection: Set<String> = [], batchSize: Int = 100
) throws -> [Reply] {
  let options = QueryOptions(
    scope: AccessScope(now: clock.now, protectionClasses: protection), clock: clock, batchSize: batchSize)
  var result: [Reply] = []
  var pending: [ResultItem] = []
  try QueryExecutor(index: index, registry: registry).run(text, options: options) { reply in
    if reply.isPartial {
      pending += reply.content.resultItems
      return
    }
    var whole = reply
    if !pending.isEmpty {
      whole.content = .items(pending + reply.content.resultItems)
      pending = []
    }
    result.append(whole)
  }
  return result
}

/// The identifiers a predicate query returns, in result order.
func ids(
  _ text: String, in index: SearchIndex = sampleIndex.index, clock: QueryClock = sampleClock, protection: Set<String> = [],
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> [String] {
  let all = try replies(text, in: index, clock: clock, protection: protection)
  #expect(all.count == 1, "\(text) gave \(all.count) replies", sourceLocation: sourceLocation)
  return all.first?.content.resultItems.map(\.id) ?? []
}

/// The identifiers as a set.
func idSet(
  _ text: String, in index: SearchIndex = sampleIndex.index, clock: QueryClock = sampleClock, protection: Set<String> = [],
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> Set<String> {
  Set(try ids(text, in: index, clock: clock, protection: protection, sourceLocation: sourceLocation))
}

/// Every item of the sample data as stored, for computing expected answers independently of
/// the query engine.
let sampleItems: [SearchableItem] = try! sampleIndex.index.allItems()

/// The sample items visible at the sample clock without protection classes.
let visibleSampleItems: [SearchableItem] = sampleItems.filter { item in
  item.protectionClass == nil && (item.expirationDate.map { $0 > sampleNow } ?? true)
}
