import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

@Suite struct TextStageTests {
  func summary(_ text: String, in index: SearchIndex = sampleIndex.index, sourceLocation: SourceLocation = #_sourceLocation) throws -> TextSummary? {
    guard case .text(let summary) = try data(text, in: index, sourceLocation: sourceLocation) else {
      Issue.record("\(text) gave no text", sourceLocation: sourceLocation)
      return nil
    }
    return summary
  }

  @Test func itemsListTheFirstFiveWithTheirDates() throws {
    let index = try TemporaryIndex((1...7).map { n in
      item("i\(n)", [("title", .string("Item \(n)")), ("contentModificationDate", .date(utc(2026, 11, n)))])
    })
    let result = try summary("search * | text", in: index.index)
    #expect(result?.header == "7 items found.")
    #expect(result?.body == """
      - Item 1 (2026-11-01)
      - Item 2 (2026-11-02)
      - Item 3 (2026-11-03)
      - Item 4 (2026-11-04)
      - Item 5 (2026-11-05)
      - and 2 more
      """)
    #expect(try summary("search * | limit 1 | text", in: index.index)?.header == "1 item found.")
    #expect(try summary("search false | text")?.header == "No items found.")
    #expect(try summary("search false | text")?.body == "")
  }

  /// A summary of items reads whole only the five it lists (it counts the rest): the same
  /// summary as from every item read whole in Swift.
  @Test(arguments: [
    #"search "trail" | text"#, #"search * | text"#, #"search * | sort rating desc | text"#,
    #"search domainIdentifier == "trails" | score rating | text"#, #"search "trail" | where relevance > 0 | text"#,
  ])
  func aSummaryOfItemsReadsOnlyTheListedOnesWhole(_ query: String) throws {
    guard case .text(let expected) = try inSwift(query) else { Issue.record("\(query): no text"); return }
    let executor = QueryExecutor(index: sampleIndex.index, registry: standardRegistry)
    var options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock)
    let log = StatementLog()
    options.statementLog = log
    var found: TextSummary?
    _ = try executor.run(query, options: options) { if case .text(let text) = $0.content { found = text } }
    #expect(found == expected, "\(query)")
    #expect(expected.body.contains("more"), "\(query): \(expected.body)")
    #expect(log.itemsReadWhole <= TextStage.listed && log.itemRowsRead == 0, "\(query): \(log.itemsReadWhole) whole, \(log.itemRowsRead) rows")
  }

  @Test func scoresCountsStatisticsGroupsAndTables() throws {
    let scored = try summary(#"search title == "Mist Trail" | score 2 | text"#)
    #expect(scored?.body.hasSuffix("[score 2.000]") == true)
    #expect(try summary(#"search domainIdentifier == "trails" | count | text"#) == TextSummary(header: "81 items match.", body: ""))
    #expect(try summary(#"search domainIdentifier == "trails" | stats max(rating) | text"#) == TextSummary(header: "max(rating) = 5", body: ""))
    let groups = try summary(#"search domainIdentifier == "trails" | group by stateOrProvince | text"#)
    #expect(groups?.header == "13 groups by stateOrProvince.")
    #expect(groups?.body.hasPrefix("- California: 12 items\n- Arizona: 8 items") == true)
    let table = try summary(#"search domainIdentifier == "trails" | group by stateOrProvince | count | limit 2 | text"#)
    #expect(table == TextSummary(header: "2 rows.", body: "- stateOrProvince: California, count: 12\n- stateOrProvince: Arizona, count: 8"))
  }

  @Test func typeErrors() {
    expectError("search * | text 3", id: "stage.usage", message: "'text' takes no arguments", column: 17)
    expectError("search * | text | count", id: "type.stage-input", message: "'count' needs items or scoredItems or groupedItems; 'text' produces text",
                column: 19, help: "stages that accept text: text")
  }
}

@Suite struct FetchStageTests {
  @Test func attributesInTheOrderAsked() throws {
    let items = try data(#"search domainIdentifier == "trails" | sort title | limit 3 | fetch rating, title"#).resultItems
    #expect(items.count == 3)
    for item in items { #expect(item.item.attributeSet.names == ["rating", "title"]) }
    let missing = try data(#"search domainIdentifier == "trails" | limit 2 | fetch dueDate, title"#).resultItems
    #expect(missing.allSatisfy { $0.item.attributeSet.names == ["title"] })
  }

  @Test func keepsScoresAndIdentity() throws {
    guard case .scoredItems(let items) = try data(#"search domainIdentifier == "trails" | score rating | top 2 | fetch title"#) else { Issue.record(); return }
    #expect(items.allSatisfy { $0.score != nil && $0.item.domainIdentifier == "trails" && $0.item.attributeSet.count == 1 })
  }

  @Test func typeErrors() {
    expectError("search * | fetch nosuch", id: "name.unknown-attribute", message: "unknown attribute 'nosuch'", column: 18)
    expectError("search * | fetch", id: "stage.usage", message: "'fetch' needs at least one attribute", column: 12,
                help: "write fetch title, contentCreationDate")
    expectError("search * | count | fetch title", id: "type.stage-input", message: "'fetch' needs items or scoredItems; 'count' produces count",
                column: 20, help: "stages that accept count: text")
  }
}

@Suite struct PeopleStageTests {
  let mail = #"search contentType == "email""#

  func names(_ item: SearchableItem, _ attribute: String) -> [String] {
    item.attributeSet[attribute]?.elements.compactMap(\.stringValue) ?? []
  }

  @Test func fromToAndAnyRole() throws {
    let emails = visibleSampleItems.filter { $0.contentType == "email" }
    #expect(try idSet("\(mail) | people \"Sam Ortiz\" role from") == Set(emails.filter { names($0, "authorNames").contains("Sam Ortiz") }.map(\.uniqueIdentifier)))
    #expect(try idSet("\(mail) | people \"Sam Ortiz\" role to") == Set(emails.filter { names($0, "recipientNames").contains("Sam Ortiz") }.map(\.uniqueIdentifier)))
    let any = try idSet("\(mail) | people \"Sam Ortiz\"")
    #expect(try any == idSet("\(mail) | people \"Sam Ortiz\" role from").union(idSet("\(mail) | people \"Sam Ortiz\" role to")))
    #expect(try !idSet("\(mail) | people \"Sam Ortiz\" role from").isEmpty)
  }

  @Test func namesMatchAsWordsIgnoringCaseAndDiacritics() throws {
    #expect(try idSet(#"search * | people "sam ortiz""#) == idSet(#"search * | people "Sam Ortiz""#))
    #expect(try idSet(#"search * | people "Ortiz""#).isSuperset(of: idSet(#"search * | people "Sam Ortiz""#)))
    #expect(try idSet(#"search * | people "amelie dubois""#) == idSet(#"search * | people "Amélie Dubois""#))
  }

  @Test func emailAddressesMatchWhole() throws {
    let address = "alex.morgan@example.com"
    let expected = Set(visibleSampleItems.filter { item in
      ["authorEmailAddresses", "recipientEmailAddresses"].contains { names(item, $0).contains { $0.lowercased() == address } }
    }.map(\.uniqueIdentifier))
    let found = try idSet("search * | people \"\(address)\"")
    #expect(found == expected, "extra \(found.subtracting(expected).sorted()), missing \(expected.subtracting(found).sorted())")
    #expect(try idSet(#"search * | people "morgan@example.com""#).isEmpty)
  }

  @Test func meIsTheIdentity() throws {
    let options = QueryOptions(scope: AccessScope(now: sampleNow), clock: sampleClock, identity: Identity(names: ["Alex Morgan"]))
    var result: [String] = []
    try QueryExecutor(index: sampleIndex.index, registry: standardRegistry).run("\(mail) | people me role to | count", options: options) { reply in
      result.append(reply.content.jsonValue().compactText)
    }
    let count = try data("\(mail) | people \"Alex Morgan\" role to | count")
    #expect(result == [count.jsonValue().compactText])
  }

  @Test func inSwiftAfterALimit() throws {
    let query = "\(mail) | sort contentCreationDate | limit 30 | people \"Sam Ortiz\""
    #expect(try inSwift(query) == data(query))
  }

  @Test func typeErrors() {
    expectError("search * | people me", id: "people.no-identity", message: "'me' needs an identity", column: 19,
                help: #"pass --identity FILE with {"names":[...],"emails":[...]}"#)
    expectError("search * | people 3", id: "stage.usage", message: "expected a quoted name or me", column: 19, help: #"write people "Sam Ortiz""#)
    expectError(#"search * | people "x" role boss"#, id: "stage.usage", message: "expected role from, role to or role any", column: 23)
    expectError("search * | people", id: "stage.usage", message: "'people' needs a person", column: 12,
                help: #"write people "NAME" | me [role from|to|any]"#)
  }
}
