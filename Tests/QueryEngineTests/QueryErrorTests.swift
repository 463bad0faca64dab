import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex

/// `QueryError`: what the executor's public entry points throw, typed.
@Suite struct QueryErrorTests {
  static func executor(_ index: SearchIndex = SampleIndex.shared) -> QueryExecutor {
    QueryExecutor(index: index, registry: StageRegistry())
  }

  /// A thrown error is `QueryError` by its static type: this only compiles because
  /// `prepare` is `throws(QueryError)`.
  static func prepareError(_ text: String) -> QueryError? {
    do {
      _ = try executor().prepare(text, options: SampleIndex.options)
      return nil
    } catch {
      return error
    }
  }

  @Test func aParseErrorHasItsLineAndColumn() throws {
    // The second line ends with a pipe and no stage: the parser points past it.
    let error = try #require(Self.prepareError("search *\n| count |"))
    let diagnostics = try #require(error.diagnostics)
    #expect(diagnostics.primary.id.hasPrefix("parse."))
    #expect(diagnostics.primaryLocation.line == 2)
    #expect(diagnostics.primaryLocation.column == 10)
    #expect(error.description == diagnostics.description, "the description is the diagnostics' own")
  }

  @Test func aBindErrorHasItsLineAndColumn() throws {
    let error = try #require(Self.prepareError("search *\n  | frobnicate"))
    guard case .invalidQuery(let diagnostics) = error else {
      Issue.record("expected diagnostics, got \(error)")
      return
    }
    #expect(diagnostics.primary.id == "stage.unknown")
    #expect(diagnostics.primaryLocation.line == 2)
    #expect(diagnostics.primaryLocation.column == 5)
  }

  @Test func aSyntaxLimitIsADiagnostic() throws {
    let deep = "search " + String(repeating: "(", count: 400) + "title == \"x\"" + String(repeating: ")", count: 400)
    let error = try #require(Self.prepareError(deep))
    #expect(error.diagnostics?.primary.id == "parse.too-deep", "\(error)")
  }

  @Test func anIndexErrorKeepsTheSQLiteCode() throws {
    let temporary = try TemporaryIndex([item("x", [("title", .string("june launch"))])])
    let executor = Self.executor(temporary.index)
    // Another connection drops a table the executor reads: SQLite answers SQLITE_ERROR.
    let other = try Connection(path: temporary.index.path)
    try other.execute("DROP TABLE meta")
    var thrown: QueryError?
    do {
      try executor.run(#"search "june""#, options: SampleIndex.options) { _ in }
    } catch {
      thrown = error
    }
    guard case .index(.database(let sqlite))? = thrown else {
      Issue.record("expected an index error, got \(String(describing: thrown))")
      return
    }
    #expect(sqlite.code.primary == .error)
    #expect(sqlite.message.contains("meta"))
  }

  @Test func aCancelledQueryIsCancelled() {
    let flag = CancellationFlag()
    flag.cancel()
    var options = SampleIndex.options
    options.cancellation = flag
    var replies = 0
    var thrown: QueryError?
    do {
      try Self.executor().run(#"search "orion""#, options: options) { _ in replies += 1 }
    } catch {
      thrown = error
    }
    guard case .cancelled? = thrown else {
      Issue.record("expected cancellation, got \(String(describing: thrown))")
      return
    }
    #expect(replies == 0)
  }

  struct Stop: Error, Equatable { var reason: String }

  @Test func anErrorOfOnReplyComesBackUnchanged() {
    var thrown: QueryError?
    do {
      try Self.executor().run(#"search "orion"; search "launch""#, options: SampleIndex.options) { _ in throw Stop(reason: "enough") }
    } catch {
      thrown = error
    }
    guard case .reply(let underlying)? = thrown else {
      Issue.record("expected the reply's error, got \(String(describing: thrown))")
      return
    }
    #expect(underlying as? Stop == Stop(reason: "enough"))
    #expect(thrown?.description == "\(Stop(reason: "enough"))")
  }

  @Test func theAsyncRepliesThrowQueryErrors() async {
    var location: (line: Int, column: Int)?
    do {
      for try await _ in Self.executor().replies(for: "search *\n| count |", options: SampleIndex.options) {}
    } catch .invalidQuery(let diagnostics) {
      location = diagnostics.primaryLocation
    } catch {
      Issue.record("expected diagnostics, got \(error)")
    }
    #expect(location?.line == 2)
    #expect(location?.column == 10)
  }

  @Test func classifyingKeepsTheUnderlyingError() {
    let runtime = QueryRuntimeError("pattern too complex")
    guard case .runtime(let kept) = QueryError(runtime) else {
      Issue.record("a runtime error should stay a runtime error")
      return
    }
    #expect(kept == runtime)
    #expect(QueryError(runtime).description == "pattern too complex")
    guard case .index(.database(let database)) = QueryError(DatabaseError(code: .full, message: "disk full")) else {
      Issue.record("a database error is an index error")
      return
    }
    #expect(database.code == .full)
    guard case .cancelled = QueryError(QueryCancelled()), case .cancelled = QueryError(CancellationError()) else {
      Issue.record("both cancellations are .cancelled")
      return
    }
  }
}
