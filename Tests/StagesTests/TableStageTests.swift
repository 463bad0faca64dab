import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

@Suite struct TableStageTests {
  @Test func exactlyTheColumnsAsked() throws {
    let result = try table(#"search domainIdentifier == "trails" && stateOrProvince == "Utah" | table title, rating"#)
    #expect(result.columns == ["title", "rating"])
    #expect(result.rows.count == 8)
    #expect(result.rows.allSatisfy { $0.count == 2 })
    let utah = visibleSampleItems.filter { $0.attributeSet["stateOrProvince"]?.stringValue == "Utah" }
    #expect(Set(result.rows.map { $0[0].displayText }) == Set(utah.compactMap(\.attributeSet.title)))
  }

  @Test func expressionsListsDatesAndMissingValues() throws {
    let index = try TemporaryIndex([
      item("a", [("title", .string("A")), ("rating", .number(2)), ("keywords", .list([.string("x"), .string("y")])),
                 ("dueDate", .date(utc(2026, 12, 1)))]),
      item("b", [("title", .string("B"))]),
    ])
    let result = try table("search * | table title, rating * 2, keywords, dueDate, id", in: index.index)
    #expect(result.columns == ["title", "rating * 2", "keywords", "dueDate", "id"])
    #expect(result.rows == [
      [.string("A"), .number(4), .string("x, y"), .date(utc(2026, 12, 1)), .string("a")],
      [.string("B"), .null, .null, .null, .string("b")],
    ])
    let json = PipelineData.table(result).jsonValue()
    #expect(json["rows"] == [["A", 4, "x, y", "2026-12-01T00:00:00Z", "a"], ["B", nil, nil, nil, "b"]])
  }

  @Test func afterGroupByItListsKeysAndCounts() throws {
    #expect(try table(#"search domainIdentifier == "trails" | group by stateOrProvince | table"#)
      == table(#"search domainIdentifier == "trails" | group by stateOrProvince | count"#))
  }

  @Test func scoredItemsAndEmptyInput() throws {
    #expect(try table(#"search domainIdentifier == "trails" | score rating | top 2 | table title, score"#).columns == ["title", "score"])
    #expect(try table("search false | table title, rating") == Table(columns: ["title", "rating"], rows: []))
  }

  @Test func typeErrors() {
    expectError("search * | table", id: "stage.usage", message: "'table' needs at least one column", column: 12, help: "write table title, rating")
    expectError("search * | group by title | table title", id: "stage.usage",
                message: "after group by, 'table' takes no columns; it lists each key and count", column: 29)
    expectError("search * | table title rating", id: "stage.usage", message: "expected ',' between columns", column: 24)
    expectError("search * | table titel", id: "name.unknown-attribute", message: "unknown attribute 'titel'", column: 18, help: "did you mean 'title'?")
    expectError("search * | count | table title", id: "type.stage-input",
                message: "'table' needs items or scoredItems or groupedItems or table; 'count' produces count", column: 20, help: "stages that accept count: text")
  }

  // MARK: Snippets

  static func snippetIndex() throws -> TemporaryIndex {
    try TemporaryIndex([
      item("t1", [("title", .string("Terminal tools")), ("textContent", .string(
        "A long introduction about many things that are not relevant at all to anything here, then tmux: a terminal multiplexer that keeps sessions alive.\u{1B}[2J\u{07} More text follows after it."))]),
      item("t2", [("title", .string("Tmux cheat sheet"))]),
      item("hidden", protection: "secret", [("title", .string("Secret tmux notes")), ("textContent", .string("the hidden tmux password is swordfish"))]),
      item("walk", domain: "notes", [("title", .string("Walks")), ("textContent", .string("She walked, he was walking; they walk to notes."))]),
    ])
  }

  @Test func snippetMarksTheSearchedWordsInTheItemsText() throws {
    let index = try Self.snippetIndex()
    let result = try table(#"search "tmux" | table id, snippet"#, in: index.index)
    #expect(result.columns == ["id", "snippet"])
    let snippets = Dictionary(uniqueKeysWithValues: result.rows.map { ($0[0].displayText, $0[1].displayText) })
    #expect(snippets.keys.sorted() == ["t1", "t2"], "only visible items")
    let t1 = try #require(snippets["t1"])
    #expect(t1.contains("then [tmux]: a terminal multiplexer"), "\(t1)")
    #expect(t1.hasPrefix("… "))
    #expect(!t1.unicodeScalars.contains { $0.properties.generalCategory == .control }, "no control characters")
    // Without textContent the title is the text.
    #expect(snippets["t2"] == "[Tmux] cheat sheet")
    // Nothing of the hidden item anywhere in the table.
    #expect(!"\(result.rows)".contains("swordfish"))
  }

  @Test func snippetFollowsPrefixesStemsAndTextComparisons() throws {
    let index = try Self.snippetIndex()
    let stems = try table(#"search "walk"s | table snippet"#, in: index.index)
    #expect(stems.rows.map { $0[0].displayText } == ["She [walked], he was [walking]; they [walk] to notes."])
    let prefix = try table(#"search textContent == "walk*"cdw | table snippet"#, in: index.index)
    #expect(prefix.rows.map { $0[0].displayText } == ["She [walked], he was [walking]; they [walk] to notes."])
    // A string compared with an item field is not a searched word.
    let field = try table(#"search domainIdentifier == "notes" && "walk" | table snippet"#, in: index.index)
    #expect(field.rows.map { $0[0].displayText } == ["She walked, he was walking; they [walk] to notes."])
  }

  @Test func anAttributeNamedSnippetIsTheAttribute() throws {
    let index = try TemporaryIndex([item("s", [("title", .string("tmux")), ("snippet", .string("stored"))])])
    #expect(try table(#"search "tmux" | table snippet"#, in: index.index).rows == [[.string("stored")]])
  }

  @Test func snippetPassageWindowAndCuts() {
    let snippet = Snippet(terms: [Snippet.Term("needle")], length: 5)
    let text = (1...20).map { "w\($0)" }.joined(separator: " ") + " needle " + (21...40).map { "w\($0)" }.joined(separator: " ")
    #expect(snippet.passage(of: text) == "… w20 [needle] w21 w22 w23 …")
    #expect(snippet.passage(of: "no match here at all, none") == "no match here at all, …")
    #expect(snippet.passage(of: "") == "")
    #expect(Snippet(terms: [Snippet.Term("creme")]).passage(of: "Crème brûlée") == "[Crème] brûlée")
    // A long text is read where its terms are: the passage of a word deep inside a manual.
    let manual = (0..<12_000).map { "line \($0) of a very long manual with nothing in it" }.joined(separator: "\n")
      + "\nthe deep needle at last\n" + String(repeating: "tail words ", count: 100)
    let deep = snippet.passage(of: manual)
    #expect(deep.hasPrefix("… ") && deep.contains("[needle]") && deep.hasSuffix(" …"), "\(deep)")
  }
}
