import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

/// What queries read before their first statement (catalogues, attribute ids, hidden
/// full-text rows) is kept per index generation and scope: a write, a grant or the clock
/// passing an expiry is seen by the next query, and a kept entry never shows what the
/// caller may not see.
@Suite struct QueryStateCacheTests {
  func run(_ text: String, on index: SearchIndex, now: Date = sampleNow, protection: Set<String> = []) throws -> [String] {
    let options = QueryOptions(scope: AccessScope(now: now, protectionClasses: protection), clock: sampleClock)
    let executor = QueryExecutor(index: index, registry: standardRegistry)
    var ids: [String] = []
    try executor.run(text, options: options) { reply in ids += reply.content.resultItems.map(\.id) }
    return ids
  }

  func isUnknown(_ text: String, on index: SearchIndex, now: Date = sampleNow, protection: Set<String> = []) -> Bool {
    do {
      _ = try run(text, on: index, now: now, protection: protection)
      return false
    } catch {
      return (error as? QueryError)?.diagnostics?.diagnostics.first?.id == "name.unknown-attribute"
    }
  }

  @Test func aWriteIsSeenByTheNextQuery() throws {
    let fixture = try TemporaryIndex([item("a", domain: "d", [("title", .string("First")), ("colour", .string("red"))])])
    let index = fixture.index
    #expect(try run(#"search colour == "red""#, on: index) == ["a"])
    #expect(isUnknown(#"search shape == "round""#, on: index))
    // A new attribute, a new value: the kept catalogue and attribute ids are of the old generation.
    _ = try index.write { writer in
      try writer.upsert(item("b", domain: "d", [("title", .string("Second")), ("shape", .string("round")), ("colour", .string("red"))]))
    }
    #expect(try run(#"search shape == "round""#, on: index) == ["b"])
    #expect(try run(#"search colour == "red" | sort title"#, on: index) == ["a", "b"])
  }

  @Test func anExpiryIsSeenWithoutAWrite() throws {
    let fixture = try TemporaryIndex([
      item("open", domain: "d", [("title", .string("Open"))]),
      item("old", domain: "d", expiration: utc(2026, 6, 1), [("title", .string("Old")), ("severanceTerms", .string("x"))]),
    ])
    let index = fixture.index
    // Before the expiry the attribute is known; the same generation after it, it is not.
    #expect(try run(#"search severanceTerms == "x""#, on: index, now: utc(2026, 1, 1)) == ["old"])
    #expect(isUnknown(#"search severanceTerms == "x""#, on: index, now: utc(2026, 7, 1)))
    #expect(try run(#"search severanceTerms == "x""#, on: index, now: utc(2026, 2, 1)) == ["old"])
  }

  @Test func aGrantIsKeptApartFromNoGrant() throws {
    let fixture = try TemporaryIndex([
      item("open", domain: "d", [("title", .string("Open memo"))]),
      item("sheet", domain: "d", protection: "hr", [("title", .string("Salary memo")), ("salaryBand", .string("L5"))]),
    ])
    let index = fixture.index
    #expect(try run(#"search salaryBand == "L5""#, on: index, protection: ["hr"]) == ["sheet"])
    #expect(isUnknown(#"search salaryBand == "L5""#, on: index))
    // Ranked text search: the hidden rows kept for one scope are not those of the other.
    #expect(try run(#"search "memo" | top 5"#, on: index) == ["open"])
    #expect(try run(#"search "memo" | top 5"#, on: index, protection: ["hr"]).sorted() == ["open", "sheet"])
    #expect(try run(#"search "memo" | top 5"#, on: index) == ["open"])
  }

  /// A query binds its names against the catalogue the process read last, without a read of
  /// its own; a graph prepared before a write runs against what the write left.
  @Test func aGraphPreparedBeforeAWriteRunsOnTheIndexAfterIt() throws {
    let fixture = try TemporaryIndex([item("a", domain: "d", [("title", .string("First")), ("colour", .string("red"))])])
    let index = fixture.index
    let executor = QueryExecutor(index: index, registry: standardRegistry)
    let options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
    func ids(_ graph: QueryGraph) throws -> [String] {
      var ids: [String] = []
      try executor.execute(graph, options: options) { reply in ids += reply.content.resultItems.map(\.id) }
      return ids.sorted()
    }
    let red = try executor.prepare(#"search colour == "red""#, options: options)
    let before = try index.generation()
    #expect(red.catalogGeneration == before)
    _ = try index.write { writer in
      try writer.upsert(item("b", domain: "d", [("title", .string("Second")), ("colour", .string("red")), ("shape", .string("round"))]))
    }
    // Bound against the catalogue read before the write (no read of its own), run against
    // the index after it.
    let redAgain = try executor.prepare(#"search colour == "red""#, options: options)
    #expect(redAgain.catalogGeneration == before)
    // That catalogue has no `shape`: bound against the index as it is now.
    let round = try executor.prepare(#"search shape == "round""#, options: options)
    #expect(round.catalogGeneration == before + 1)
    #expect(try ids(red) == ["a", "b"])
    #expect(try ids(redAgain) == ["a", "b"])
    #expect(try ids(round) == ["b"])
    // Only a protected item holds `colour` now, so the caller's catalogue has no such name.
    // A graph whose prepare read the index runs as it was bound and finds nothing the caller
    // may see; one bound without a read fails as a prepare that read would have.
    _ = try index.write { writer in
      _ = try writer.delete(identifiers: ["a", "b"])
      _ = try writer.upsert(item("c", domain: "d", protection: "hr", [("title", .string("Third")), ("colour", .string("red"))]))
    }
    #expect(try ids(red) == [])
    #expect(throws: QueryError.self) { try ids(redAgain) }
    #expect(isUnknown(#"search colour == "red""#, on: index))
  }

  /// The token names the generation the execution read, which the kept entries belong to.
  @Test func theTokenNamesTheGenerationRead() throws {
    let fixture = try TemporaryIndex([item("a", domain: "d", [("title", .string("First"))])])
    let index = fixture.index
    let executor = QueryExecutor(index: index, registry: standardRegistry)
    let options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
    let before = try executor.run("search *", options: options) { _ in }
    _ = try index.write { writer in try writer.upsert(item("b", domain: "d", [("title", .string("Second"))])) }
    let after = try executor.run("search *", options: options) { _ in }
    let generation = try index.generation()
    #expect(before.generation == generation - 1)
    #expect(after.generation == generation)
  }
}
