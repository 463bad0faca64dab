import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

@Suite struct SelectStageTests {
  let trails = #"search domainIdentifier == "trails""#

  @Test func firstLastAndNth() throws {
    let all = try ids("\(trails) | sort distance")
    #expect(try ids("\(trails) | sort distance | select first") == [all.first!])
    #expect(try ids("\(trails) | sort distance | select last") == [all.last!])
    #expect(try ids("\(trails) | sort distance | select nth 3") == [all[2]])
    #expect(try ids("\(trails) | select nth 500") == [])
    #expect(try ids("search false | select first") == [])
  }

  @Test func maxByAndMinBy() throws {
    let longest = visibleSampleItems.filter { $0.domainIdentifier == "trails" }.max {
      ($0.attributeSet["distance"]?.numericValue ?? 0) < ($1.attributeSet["distance"]?.numericValue ?? 0)
    }!
    #expect(try ids("\(trails) | select max-by distance") == [longest.uniqueIdentifier])
    let dated = try ids("search * | select min-by dueDate")
    let earliest = visibleSampleItems.filter { $0.attributeSet["dueDate"] != nil }.min {
      $0.attributeSet["dueDate"]!.numericValue! < $1.attributeSet["dueDate"]!.numericValue!
    }!
    #expect(dated == [earliest.uniqueIdentifier])
  }

  @Test func oneItemPerGroup() throws {
    let picked = try data("\(trails) | group by stateOrProvince | select max-by rating")
    guard case .items(let items) = picked else { Issue.record("\(picked.type)"); return }
    #expect(items.count == 13)
    #expect(items.first?.item.attributeSet["stateOrProvince"] == .string("California"))
    let california = visibleSampleItems.filter { $0.attributeSet["stateOrProvince"]?.stringValue == "California" }
    #expect(items.first?.item.attributeSet["rating"]?.numericValue == california.compactMap { $0.attributeSet["rating"]?.numericValue }.max())
  }

  @Test func theLargestGroupAndTheTopRow() throws {
    guard case .groupedItems(let largest) = try data("\(trails) | group by stateOrProvince | select max-by count") else { Issue.record(); return }
    #expect(largest.groups.map(\.key) == [.string("California")])
    guard case .groupedItems(let smallest) = try data("\(trails) | group by stateOrProvince | select min-by count") else { Issue.record(); return }
    #expect(smallest.groups.map(\.key) == [.string("Zürich")])
    #expect(try table("\(trails) | group by stateOrProvince | count | select max-by count").rows == [[.string("California"), .number(12)]])
    #expect(try table("\(trails) | group by stateOrProvince | count | select min-by count").rows == [[.string("Zürich"), .number(1)]])
    #expect(try table("\(trails) | group by stateOrProvince | count | select nth 2").rows == [[.string("Arizona"), .number(8)]])
  }

  @Test func aStatisticColumnIsNamedAsStatsWroteIt() throws {
    let stats = "\(trails) | stats avg(distance), max(rating) by stateOrProvince"
    let all = try table(stats)
    let index = try #require(all.columns.firstIndex(of: "avg(distance)"))
    let largest = try #require(all.rows.max { $0[index].number! < $1[index].number! })
    let smallest = try #require(all.rows.min { $0[index].number! < $1[index].number! })
    #expect(try table("\(stats) | select max-by avg(distance)").rows == [largest])
    #expect(try table("\(stats) | select max-by avg( distance )").rows == [largest])
    #expect(try table(#"\#(stats) | select max-by "avg(distance)""#).rows == [largest])
    #expect(try table("\(stats) | select min-by avg(distance)").rows == [smallest])
    expectError("\(stats) | select max-by 3", id: "stage.expected-column",
                message: "'max-by' on a table needs a column of the table, such as count or avg(distance)", column: 107)
  }

  /// A column the table does not have: known when the query is bound (with a caret and the
  /// closest column), or when a named statement's table arrives.
  @Test func aMissingTableColumnIsAnError() throws {
    let counts = "\(trails) | group by stateOrProvince | count"
    expectError("\(counts) | select max-by rating", id: "name.unknown-column", message: "the table has no column 'rating'", column: 88,
                help: "its columns are stateOrProvince, count")
    expectError("\(counts) | limit 3 | select max-by cuont", id: "name.unknown-column", message: "the table has no column 'cuont'", column: 98,
                help: "did you mean 'count'?")
    let error = #expect(throws: QueryError.self) { try data("t = \(counts); t | select max-by rating") }
    #expect((error?.underlying as? QueryRuntimeError)?.message == "the table has no column 'rating'; columns are stateOrProvince, count")
  }

  /// The SQL plan before `extract` keeps only the items with a value that folds to its key:
  /// the same items, in the same order, as grouping every item in Swift, whether the key is
  /// the exact form, another case or accent of it, or no group's; for single values and lists.
  @Test func theSQLPlanReadsOnlyTheKeysItems() throws {
    let fixture = try TemporaryIndex([
      item("a", [("stateOrProvince", .string("Oregon")), ("keywords", .list([.string("Lake"), .string("Oregon")]))]),
      item("b", [("stateOrProvince", .string("oregon"))]),
      item("c", [("stateOrProvince", .string("Orégon")), ("keywords", .list([.string("lake")]))]),
      item("d", [("stateOrProvince", .string("Utah")), ("keywords", .list([.string("oregon")]))]),
      item("e", domain: "Oregon", contentType: "lake", [("title", .string("no state"))]),
      item("f", domain: "oregon", contentType: "Lake", [("title", .string("Oregon"))]),
    ])
    for attribute in ["stateOrProvince", "keywords", "domainIdentifier", "contentType"] {
      for key in ["Oregon", "oregon", "OREGON", "orégon", "Orégon", "Utah", "lake", "Lake", "Atlantis", "*"] {
        let query = #"search * | group by \#(attribute) | extract "\#(key)""#
        let expected = try inSwift(query, in: fixture.index).resultItems.map(\.id)
        #expect(try ids(query, in: fixture.index) == expected, "\(query)")
      }
    }
    #expect(try ids(#"search * | group by stateOrProvince | extract "OREGON""#, in: fixture.index).count == 1)
    #expect(try ids(#"search * | group by stateOrProvince | extract "oregon""#, in: fixture.index) == ["b"])
    let executor = QueryExecutor(index: fixture.index, registry: standardRegistry)
    let options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
    let graph = try executor.prepare(#"search * | group by stateOrProvince | extract "Oregon""#, options: options)
    let statements = try Explainer(executor: executor).statements(graph, options: options)
    #expect(statements.first?.sql.contains("fold") == true, "\(statements.map(\.sql))")
  }

  @Test func typeErrors() {
    expectError("search * | select frist", id: "stage.usage", message: "unknown selection 'frist'", column: 19, help: "did you mean 'first'?")
    expectError("search * | select", id: "stage.usage", message: "'select' needs first, last, nth N, max-by KEY or min-by KEY", column: 12,
                help: "write select first | last | nth N | max-by KEY | min-by KEY")
    expectError("search * | select nth 0", id: "stage.out-of-range", message: "nth must be between 1 and 1000000", column: 23)
    expectError("search * | select max-by nosuch", id: "name.unknown-attribute", message: "unknown attribute 'nosuch'", column: 26)
    expectError("search * | count | select first", id: "type.stage-input",
                message: "'select' needs groupedItems or items or scoredItems or table; 'count' produces count", column: 20,
                help: "stages that accept count: text")
  }
}

/// The identifiers `query` returns on the samples, and the log of what its run read.
func loggedRun(_ query: String) throws -> (ids: [String], log: StatementLog) {
  let executor = QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
  var options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
  let log = StatementLog()
  options.statementLog = log
  var found: [String] = []
  _ = try executor.run(query, options: options) { found += $0.content.resultItems.map(\.id) }
  return (found, log)
}

/// Picking one item reads that item whole and no other: by position (first, last, nth) or
/// by its key alone (max-by, min-by), after a text search, a predicate or a sort. The item is
/// the one picked among every item read whole in Swift.
@Suite struct SelectAnItemTests {
  @Test(arguments: [
    #"search "trail" | select first"#, #"search "trail" | select last"#, #"search "trail" | select nth 3"#,
    #"search "trail" | select max-by rating"#, #"search domainIdentifier == "trails" | select min-by distance"#,
    #"search domainIdentifier == "trails" | select nth 2"#, #"search * | sort rating desc | select first"#,
    #"search * | sort title | select last"#, #"search "trail" | score rating | select first"#,
  ])
  func pickingAnItemReadsOnlyIt(_ query: String) throws {
    let expected = try inSwift(query).resultItems.map(\.id)
    let (found, log) = try loggedRun(query)
    #expect(found == expected, "\(query)")
    #expect(found.count == 1, "\(query)")
    #expect(log.itemRowsRead + log.itemsReadWhole <= 1, "\(query): \(log.itemRowsRead) rows, \(log.itemsReadWhole) whole")
  }
}

/// The first or the nth item of each group: SQLite counts the groups, then the items are
/// read in order until each group has that many, and only the picked ones are read whole.
/// The same items as grouping every item in Swift.
@Suite struct SelectOfEachGroupTests {
  @Test(arguments: [
    (#"search domainIdentifier == "trails" | group by stateOrProvince | select first"#, 1),
    (#"search domainIdentifier == "trails" | sort rating desc | group by stateOrProvince | select first"#, 1),
    (#"search * | sort contentModificationDate desc | group by domainIdentifier | select first"#, 1),
    (#"search "trail" | group by difficulty | select nth 2"#, 2),
    (#"search * | group by keywords | select nth 2"#, 2),
  ])
  func eachGroupsFirstItemsAreReadAlone(_ query: String, perGroup: Int) throws {
    let expected = try inSwift(query).resultItems.map(\.id)
    let (found, log) = try loggedRun(query)
    #expect(found == expected, "\(query)")
    #expect(!found.isEmpty, "\(query)")
    // The groups' counts ran first.
    #expect(log.all.first?.contains("count(") == true, "\(query): \(log.all)")
    // Only each group's first items were kept and read whole (at most `perGroup` a group).
    let groups = try table(query.replacingOccurrences(of: perGroup == 1 ? "select first" : "select nth 2", with: "count")).rows.count
    #expect(log.itemsReadWhole <= groups * perGroup, "\(query): \(log.itemsReadWhole) read whole for \(groups) groups")
  }
}

@Suite struct ExtractStageTests {
  let grouped = #"search domainIdentifier == "trails" | group by stateOrProvince"#

  @Test func theItemsOfOneGroup() throws {
    let oregon = try ids("\(grouped) | extract \"Oregon\"")
    #expect(Set(oregon) == Set(visibleSampleItems.filter { $0.attributeSet["stateOrProvince"]?.stringValue == "Oregon" }.map(\.uniqueIdentifier)))
    #expect(oregon.count == 8)
    #expect(try ids("\(grouped) | extract Oregon") == oregon)
  }

  @Test func withoutAnExactKeyCaseAndDiacriticsAreIgnored() throws {
    #expect(try ids("\(grouped) | extract \"quebec\"") == ids("\(grouped) | extract \"Québec\""))
    #expect(try ids("\(grouped) | extract \"quebec\"").count == 4)
  }

  @Test func numbersAndMissingKeys() throws {
    #expect(try ids("\(grouped) | extract \"Atlantis\"") == [])
    #expect(try ids(#"search domainIdentifier == "notes*" | group by priority | extract 1"#).count
      == visibleSampleItems.filter { $0.domainIdentifier?.hasPrefix("notes") == true && $0.attributeSet["priority"]?.numericValue == 1 }.count)
  }

  @Test func typeErrors() {
    expectError(#"search * | extract "x""#, id: "type.stage-input", message: "'extract' needs groupedItems; 'search' produces items", column: 12,
                help: "stages that accept items: count, fetch, fuse, group, hydrate, limit, people, sample, score, select, sort, stats, table, text, top, where")
    expectError("search * | group by title | extract", id: "stage.usage", message: "'extract' needs an argument", column: 29, help: "write extract VALUE")
    expectError("search * | group by title | extract rating > 1", id: "stage.usage", message: "'extract' needs a group key", column: 37,
                help: #"write extract "Oregon""#)
  }
}
