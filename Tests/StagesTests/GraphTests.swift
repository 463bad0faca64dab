import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

/// Named statements, let variables, fork and merge; labels and query tokens.
@Suite struct GraphTests {
  let utah = #"search domainIdentifier == "trails" && stateOrProvince == "Utah""#
  let oregon = #"search domainIdentifier == "trails" && stateOrProvince == "Oregon""#

  // MARK: Statements

  @Test func namedStatementsFeedLaterOnes() throws {
    let all = try replies(#"hikes = search domainIdentifier == "trails"; hikes | count; hikes | stats max(rating)"#, in: sampleIndex.index)
    #expect(all.map(\.content.type) == [.count, .statistic])
    #expect(all[0].content == .count(81))
  }

  @Test func unusedNamedStatementsAreRepliesLabelledWithTheirName() throws {
    let all = try replies(#"a = search title == "Mist Trail"; b = search title == "Angels Landing""#, in: sampleIndex.index)
    #expect(all.map(\.label) == ["a", "b"])
    #expect(all.map { $0.content.resultItems.map(\.id) } == [["trail-1"], try ids(#"search title == "Angels Landing""#)])
  }

  @Test func mergeJoinsWithoutDuplicates() throws {
    #expect(try data("a = \(utah); b = \(oregon); merge(a, b) | count") == .count(16))
    #expect(try data("a = \(utah); merge(a, a) | count") == .count(8))
    #expect(try ids("a = \(utah); b = \(oregon); merge(b, a)") == (try ids(oregon) + ids(utah)))
    guard case .scoredItems = try data("a = \(utah) | score rating; b = \(oregon); merge(a, b)") else {
      Issue.record("merging scored items gives scored items")
      return
    }
  }

  @Test func letBindsAValueForLaterPredicates() throws {
    let best = "let best = search domainIdentifier == \"trails\" | group by stateOrProvince | count | select max-by count"
    #expect(try data("\(best); search domainIdentifier == \"trails\" && stateOrProvince == $best | count") == .count(12))
    let top = "let top = search domainIdentifier == \"trails\" | stats max(rating)"
    #expect(try table("\(top); search domainIdentifier == \"trails\" && rating == $top | table title, rating").rows == [[.string("Grinnell Glacier"), .number(5)]])
    let n = "let n = \(utah) | count"
    #expect(try data("\(n); search domainIdentifier == \"trails\" && rating > $n | count") == .count(0))
    #expect(try data(#"let t = search title == "Mist Trail"; search title == $t | count"#) == .count(1))
  }

  @Test func graphErrors() {
    expectError("a = search *; a = search *; a | count", id: "graph.duplicate-name", message: "'a' is already defined", column: 15)
    expectError("let x = search * | count; x | count", id: "graph.let-as-source", message: "'x' holds a value; use it as $x", column: 27)
    expectError("a = search * | count; merge(a) | count", id: "type.merge", message: "merge needs items; 'a' produces count", column: 29)
    expectError(#"a = search "x"; merge(a, c) | count"#, id: "graph.unknown-name", message: "unknown statement 'c'", column: 26,
                help: "did you mean 'a'?")
    expectError(#"hikes = search "x"; merge(hikez) | count"#, id: "graph.unknown-name", message: "unknown statement 'hikez'", column: 27,
                help: "did you mean 'hikes'?")
    expectError("let x = search * | count", id: "graph.no-result",
                message: "the query has no result: every statement is used by another or binds a variable", column: 1,
                help: "end with a pipeline that uses the names, e.g. hikes | count")
    expectError(#"search "budget" | fork (count) (top 2) | count"#, id: "graph.stage-after-fork",
                message: "fork must be the last stage; each branch ends in its own reply", column: 42, help: "move the stages into the branches")
    expectError(#"search "x" | fork (count)"#, id: "parse.fork-branches", message: "fork needs at least two branches in parentheses", column: 14,
                help: #"write fork (count as "Matches") (top 3 | text)"#)
    expectError(#"search "x" | fork (count | sort title) (top 1)"#, id: "type.stage-input",
                message: "'sort' needs items or scoredItems or table; 'count' produces count", column: 28, help: "stages that accept count: text")
  }

  @Test func typeErrorsPointAtTheStageAndListWhatFits() throws {
    let error = try #require(failure("search * | count | sort title"))
    #expect(error.primary.id == "type.stage-input")
    #expect(error.primary.message == "'sort' needs items or scoredItems or table; 'count' produces count")
    #expect(error.primary.span == SourceSpan(19, 23))
    #expect(error.primary.help == "stages that accept count: text")
    #expect(DiagnosticRenderer.render(error) == """
      error: 'sort' needs items or scoredItems or table; 'count' produces count
       --> query:1:20
        |
      1 | search * | count | sort title
        |                    ^~~~
      help: stages that accept count: text

      """)
  }

  @Test func everyBadStageIsReportedTogether() throws {
    let error = try #require(failure("search titel == 1 | where ratng > 3 | sort nme | cuont"))
    #expect(error.diagnostics.map(\.id) == ["name.unknown-attribute", "name.unknown-attribute", "name.unknown-attribute", "stage.unknown"])
    #expect(error.diagnostics.last?.help == "did you mean 'count'?")
    #expect(error.diagnostics.last?.notes.first?.message.hasPrefix("stages that accept items: count, fetch, fuse, group") == true)
  }

  // MARK: Fork, labels and tokens

  @Test func forkRepliesShareOneTokenAndTakeTheirLabels() throws {
    let all = try replies(#"search "budget" | fork (count as "Matches") (top 2 | text) (group by domainIdentifier | count as "By domain")"#, in: sampleIndex.index)
    #expect(all.map(\.label) == ["Matches", "Summary", "By domain"])
    #expect(all.map(\.content.type) == [.count, .text, .table])
    #expect(Set(all.map(\.queryToken)).count == 1)
    #expect(all[0].content == (try data(#"search "budget" | count"#)))
    #expect(all[2].content == (try data(#"search "budget" | group by domainIdentifier | count"#)))
  }

  @Test func eachBranchStartsFromTheForkInput() throws {
    let all = try replies(#"search domainIdentifier == "trails" | where rating >= 4.8 | fork (count) (sort distance desc | limit 1) (score distance | top 1)"#, in: sampleIndex.index)
    #expect(all.count == 3)
    #expect(all[0].content == .count(try ids(#"search domainIdentifier == "trails" && rating >= 4.8"#).count))
    #expect(all[1].content.resultItems.map(\.id) == all[2].content.resultItems.map(\.id))
  }

  /// A fork after a few items (a top k, a small limit) reads them once and its branches go on
  /// from them, with the replies each branch gives as a query of its own; after many, each
  /// branch is its own statement, which may read less than every item whole.
  @Test func aForkAfterAFewItemsReadsThemOnce() throws {
    let executor = QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
    let options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
    func steps(_ query: String) throws -> [ExecutionPlan.Step] {
      try executor.plan(try executor.prepare(query, options: options), options: options).statements[0].pipeline.steps
    }
    func readsSQL(_ steps: [ExecutionPlan.Step]) -> Bool {
      steps.contains { step in
        switch step {
        case .sql: true
        case .swift: false
        case .fork(_, let branches): branches.contains { readsSQL($0.steps) }
        }
      }
    }
    for head in [#"search "trail" || "lake" | top 4"#, #"search domainIdentifier == "trails" | sort rating desc | limit 5"#] {
      let branches = ["count", "group by domainIdentifier | count", "top 2"]
      let query = head + " | fork " + branches.map { "(\($0))" }.joined(separator: " ")
      let planned = try steps(query)
      guard case .sql? = planned.first, case .fork(_, let forked)? = planned.last, planned.count == 2 else {
        Issue.record("\(query): \(planned)")
        continue
      }
      #expect(!forked.contains { readsSQL($0.steps) }, "\(query): a branch runs the search again")
      let all = try replies(query, in: sampleIndex.index)
      #expect(all.count == branches.count)
      for (reply, branch) in zip(all, branches) {
        #expect(reply.content == (try data(head + " | " + branch)), "\(head) | \(branch)")
      }
    }
    let many = try steps(#"search domainIdentifier == "trails" | sort rating desc | limit 5000 | fork (count) (group by domainIdentifier | count)"#)
    guard case .fork(_, let forked)? = many.last, many.count == 1 else {
      Issue.record("\(many)")
      return
    }
    #expect(forked.allSatisfy { readsSQL($0.steps) }, "each branch is its own statement")
  }

  @Test func twoExecutionsNeverShareAToken() throws {
    var tokens = Set<String>()
    for _ in 0..<20 {
      let all = try replies(#"search "budget" | fork (count) (top 1)"#, in: sampleIndex.index)
      #expect(Set(all.map(\.queryToken)).count == 1)
      tokens.insert(all[0].queryToken)
    }
    #expect(tokens.count == 20)
    #expect(tokens.allSatisfy { $0.count == 11 && $0.hasPrefix("q") })
  }

  @Test func theTokenRecordsClockZoneAndGeneration() throws {
    let clock = QueryClock(now: sampleNow, timeZone: pacific)
    var replyTokens: [String] = []
    let token = try QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
      .run("search * | count", options: QueryOptions(scope: AccessScope(now: sampleNow), clock: clock)) { replyTokens.append($0.queryToken) }
    #expect(replyTokens == [token.id])
    #expect(token.now == sampleNow)
    #expect(token.timeZone == "America/Los_Angeles")
    #expect(token.generation == (try sampleIndex.index.generation()))
    #expect(token.jsonValue["now"] == "2026-11-29T12:00:00Z")
  }

  @Test func defaultLabelsByType() throws {
    let cases: [(String, String)] = [
      ("search *", "Search results"), ("search * | score 1", "Scored results"), ("search * | group by keywords", "Groups"),
      ("search * | count", "Count"), ("search * | table title", "Table"), ("search * | stats count", "Statistic"), ("search * | text", "Summary"),
      (#"search * | count as "How many""#, "How many"), (#"search * | top 3 as "Best" | fetch title"#, "Best"),
    ]
    for (query, label) in cases {
      #expect(try replies(query, in: sampleIndex.index).map(\.label) == [label], "\(query)")
    }
  }

  @Test func itemRepliesStreamInBatches() throws {
    let options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock, batchSize: 50)
    var batches: [(Int, Bool)] = []
    try QueryExecutor(index: sampleIndex.index, registry: standardRegistry).run("search *", options: options) { reply in
      batches.append((reply.content.resultItems.count, reply.isPartial))
    }
    #expect(batches.map(\.0) == [50, 50, 50, 50, 35])
    #expect(batches.map(\.1) == [true, true, true, true, false])
  }
}
