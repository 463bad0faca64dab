import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

@Suite struct WhereStageTests {
  func trails(_ filter: (SearchableItem) -> Bool) -> Set<String> {
    Set(visibleSampleItems.filter { $0.domainIdentifier == "trails" && filter($0) }.map(\.uniqueIdentifier))
  }

  func rating(_ item: SearchableItem) -> Double? { item.attributeSet["rating"]?.numericValue }

  /// A condition with an operator written as a word says what to write instead.
  @Test func operatorWordsInTheConditionSayWhatToWrite() {
    expectError(#"search "x" | where rating > 3 and distance < 5"#, id: "parse.operator-word",
                message: "conditions are joined with '&&', not 'and'", column: 31, help: "write '&&' (and '||' for or, '!' for not)")
    expectError(#"search "x" | where not rating > 3"#, id: "parse.operator-word", message: "a condition is negated with '!', not 'not'",
                column: 20, help: "write '!' before the condition")
    expectError(#"search "x" | where rating > 3 extra"#, id: "stage.usage", message: "unexpected argument to 'where'", column: 31,
                help: "write where CONDITION")
  }

  @Test func keepsTheItemsForWhichTheConditionHolds() throws {
    #expect(try idSet(#"search domainIdentifier == "trails" | where rating >= 4.7"#) == trails { (rating($0) ?? 0) >= 4.7 })
    #expect(try idSet(#"search domainIdentifier == "trails" | where rating >= 4.7 && difficulty == "hard""#)
      == trails { (rating($0) ?? 0) >= 4.7 && $0.attributeSet["difficulty"]?.stringValue == "hard" })
  }

  @Test func aWhereAfterTopRunsInSwiftOverTheKeptItems() throws {
    let top = try ids(#"search domainIdentifier == "trails" | sort rating desc | top 10"#)
    let kept = try ids(#"search domainIdentifier == "trails" | sort rating desc | top 10 | where distance < 8"#)
    let distances = Dictionary(uniqueKeysWithValues: sampleItems.map { ($0.uniqueIdentifier, $0.attributeSet["distance"]?.numericValue) })
    #expect(kept == top.filter { (distances[$0]! ?? 99) < 8 })
    #expect(kept.count < top.count)
  }

  @Test func scoresCanBeFilteredAfterAScore() throws {
    let result = try data(#"search domainIdentifier == "trails" | score rating | where score > 4.8"#)
    guard case .scoredItems(let items) = result else { Issue.record("\(result.type)"); return }
    #expect(!items.isEmpty)
    #expect(items.allSatisfy { ($0.score ?? 0) > 4.8 })
    #expect(Set(items.map(\.id)) == trails { (rating($0) ?? 0) > 4.8 })
  }

  @Test func missingAndMultiValuedAttributes() throws {
    // Items without a due date never satisfy a date comparison, or its negation by !=.
    #expect(try idSet("search * | where dueDate > $time.now") == Set(visibleSampleItems.filter {
      ($0.attributeSet["dueDate"]?.numericValue ?? 0) > sampleNow.timeIntervalSince1970
    }.map(\.uniqueIdentifier)))
    #expect(try idSet(#"search * | where keywords == "views" && keywords == "loop""#) == Set(visibleSampleItems.filter { item in
      let words = item.attributeSet["keywords"]?.elements.compactMap(\.stringValue) ?? []
      return words.contains("views") && words.contains("loop")
    }.map(\.uniqueIdentifier)))
  }

  @Test func emptyInputGivesEmptyOutput() throws {
    #expect(try data("search false | where rating > 1") == .items([]))
    #expect(try data("search false | score rating | where score > 1") == .scoredItems([]))
  }

  @Test func typeErrors() {
    expectError("search * | where title", id: "type.not-a-condition", message: "'title' is text, not a condition", column: 18,
                help: #"compare it, e.g. title == "*" for items that have it"#)
    expectError("search * | where", id: "stage.usage", message: "'where' needs an argument", column: 12, help: "write where CONDITION")
    expectError("search * | where rating > 1 title", id: "stage.usage", message: "unexpected argument to 'where'", column: 29, help: "write where CONDITION")
    expectError("search * | count | where rating > 1", id: "type.stage-input",
                message: "'where' needs items or scoredItems; 'count' produces count", column: 20, help: "stages that accept count: text")
    expectError(#"search "x" | where score > 1"#, id: "name.score-unavailable", message: "'score' has no value here", column: 20,
                help: "add a score stage first: score 0.5 * relevance + 0.5 * rating / 5")
    expectError("search * | where ratng > 1", id: "name.unknown-attribute", message: "unknown attribute 'ratng'", column: 18,
                help: "did you mean 'rating'?")
  }
}
