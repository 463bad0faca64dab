import Foundation
import Synchronization
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex

// MARK: Clock

/// A date in UTC from its calendar fields, computed by Foundation's calendar rather than by the
/// code under test.
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Date {
  date(year, month, day, hour, minute, second, zone: utcZone)
}

/// A date from its calendar fields in `zone`.
func date(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0, zone: TimeZone) -> Date {
  var calendar = Calendar(identifier: .gregorian)
  calendar.timeZone = zone
  return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
}

let utcZone = TimeZone(identifier: "UTC")!
let pacific = TimeZone(identifier: "America/Los_Angeles")!
let tokyo = TimeZone(identifier: "Asia/Tokyo")!

/// "Today" in the sample data: Sunday 2026-11-29, noon UTC.
let sampleNow = utc(2026, 11, 29, 12)
let sampleClock = QueryClock(now: sampleNow, timeZone: utcZone)

// MARK: Paths

/// The repository checkout holding this file.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let samplesFolder = repositoryRoot.appendingPathComponent("Sources/searchlight/Samples")

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

// MARK: Indexes

/// A temporary index file, removed with its folder when the value is released.
final class TemporaryIndex: Sendable {
  let directory: URL
  let index: SearchIndex

  init(_ items: [SearchableItem] = [], declaring declarations: [(String, AttributeType)] = []) throws {
    // Removed in deinit, or at exit when the index is never released (shared fixtures).
    directory = try TemporaryFiles.folder("searchlight-qe")
    index = try SearchIndex(path: directory.appendingPathComponent("index.db").path)
    if !declarations.isEmpty || !items.isEmpty {
      try index.write { writer in
        for (name, type) in declarations { try writer.declare(name, as: type) }
        for item in items { try writer.upsert(item) }
      }
    }
  }

  /// Adds the files or folders at `paths` the way `searchlight index` reads them.
  func add(paths: [String]) throws {
    try index.write { writer in
      var reader = ItemReader(decoder: ItemDecoder(catalog: writer.catalog))
      for path in paths {
        try reader.read(path: path) { item, _, _ in try writer.upsert(item) }
      }
    }
  }

  deinit { try? FileManager.default.removeItem(at: directory) }
}

/// The bundled sample data (trails, notes and mail, the notes folder), indexed once per test
/// run and only read afterwards.
let sampleIndex: TemporaryIndex = {
  let index = try! TemporaryIndex.lingering()
  try! index.add(paths: ["trails.jsonl", "notes.jsonl", "notes-folder"].map { samplesFolder.appendingPathComponent($0).path })
  return index
}()

/// Folders of indexes that live as long as the test process (shared ones in globals and
/// static properties, never released), removed when it exits.
private let lingeringFolders = Mutex<[URL]>([])

extension TemporaryIndex {
  /// An index kept for the whole test run; its folder is removed at exit.
  static func lingering(_ items: [SearchableItem] = []) throws -> TemporaryIndex {
    let index = try TemporaryIndex(items)
    lingeringFolders.withLock { folders in
      if folders.isEmpty {
        atexit { lingeringFolders.withLock { for folder in $0 { try? FileManager.default.removeItem(at: folder) } } }
      }
      folders.append(index.directory)
    }
    return index
  }
}

/// An item with the given attributes.
func item(
  _ id: String, domain: String? = nil, contentType: String? = nil, expiration: Date? = nil, protection: String? = nil,
  _ attributes: [(String, AttributeValue)] = []
) -> SearchableItem {
  SearchableItem(
    uniqueIdentifier: id, domainIdentifier: domain, contentType: contentType, expirationDate: expiration,
    protectionClass: protection, attributeSet: AttributeSet(attributes))
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
