import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex

/// Text searches through FTS5 and through the in-memory matcher agree, and both see words the
/// way the `searchlight` tokenizer cuts them (camelCase parts, stems, CJK).
@Suite struct TextSearchTests {
  /// The ids the in-memory matcher (used after a merge or on items a stage built) accepts.
  func inMemory(_ search: TextSearch, among items: [SearchableItem] = visibleSampleItems) -> Set<String> {
    Set(items.filter { ExpressionEvaluator.textMatches(search, ResultItem(rowid: 0, item: $0)) }.map(\.uniqueIdentifier))
  }

  func words(_ text: String, all: Bool = true, phrase: Bool = false) -> TextSearch {
    TextSearch(terms: TextSearch.terms(of: text), requireAll: all, phrase: phrase)
  }

  /// A search text's words are cut byte by byte when it is ASCII: the same terms as cutting it
  /// by `Character`, which every other text still goes through.
  @Test func asciiWordsAreCutAsCharactersCutThem() {
    let alphabet = Array(" \t\n\r\r\n\u{1}\u{0B}\u{0C}\"\"??**aZ09-_.'!~").map(String.init) + ["ab", "x*", "\"q\""]
    var random = SplitMix64(seed: 26)
    for _ in 0..<20_000 {
      let length = Int(random.next() % 12)
      let text = (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined()
      var copy = text
      let fast = copy.withUTF8(TextSearch.asciiTerms)
      #expect(fast == TextSearch.termsByCharacter(text), "\(text.debugDescription)")
    }
    #expect(TextSearch.terms(of: "zürich \"caf\u{E9}*\"") == TextSearch.termsByCharacter("zürich \"caf\u{E9}*\""))
    #expect(TextSearch.terms(of: "launch* \"plan?\"") == [TextSearch.Term(text: "launch", isPrefix: true), TextSearch.Term(text: "plan", isPrefix: false)])
  }

  @Test(arguments: [
    "window", "mywindowclass", "launch", "launch*", "orion launch", "zürich", "zurich", "don't", "sign-ups",
    "waterfall", "trail", "4.8", "macos", "nswindow",
  ])
  func sqliteAndTheInMemoryMatcherAgree(text: String) throws {
    let viaSQL = try idSet("search \"\(text)\"")
    #expect(viaSQL == inMemory(words(text)), "\(text)")
  }

  @Test func phrasesAgreeToo() throws {
    for text in ["orion launch", "window restoration", "the waterfall"] {
      #expect(try idSet("search '\(text)'") == inMemory(words(text, phrase: true)), "\(text)")
    }
  }

  @Test func stemmedTermsMatchEveryFormInBothPlaces() throws {
    let stemmed = TextSearch(terms: [.init(text: "\u{1}launching", isPrefix: false)], requireAll: true)
    let exact = inMemory(words("launch"))
    let found = inMemory(stemmed)
    #expect(found.isSuperset(of: exact))
    #expect(found.count > exact.count, "launched, launches and launching count too")
    let viaSQL = try sampleIndex.index.read { db in
      try db.rows("SELECT i.id FROM fts JOIN items i ON i.rowid = fts.rowid WHERE fts MATCH ?",
                  [.text(SQLCompiler.matchExpression(stemmed))]) { $0.string(0) ?? "" }
    }
    #expect(Set(viaSQL).intersection(Set(visibleSampleItems.map(\.uniqueIdentifier))) == found)
  }

  @Test func camelCasePartsAreWords() throws {
    #expect(try idSet("search \"window\"").contains("note-54"), "Refactor MyWindowClass")
    #expect(try idSet("search \"mywindowclass\"") == ["note-54"])
  }

  @Test func cjkTextIsFoundByAWord() throws {
    let index = try TemporaryIndex([
      item("zh", [("title", .string("旅行计划")), ("textContent", .string("我们下个月去北京参观天安门。"))]),
      item("ja", [("title", .string("出張メモ")), ("textContent", .string("来週は東京で取材します。"))]),
      item("ko", [("title", .string("여행 메모")), ("textContent", .string("서울은 한국의 수도입니다."))]),
    ])
    #expect(try idSet("search \"北京\"", in: index.index) == ["zh"])
    #expect(try idSet("search \"天安门\"", in: index.index) == ["zh"])
    #expect(try idSet("search \"東京\"", in: index.index) == ["ja"])
    #expect(try idSet("search \"서울\"", in: index.index) == ["ko"])
    #expect(try idSet("search \"京北\"", in: index.index).isEmpty)
    let all = try index.index.allItems()
    #expect(inMemory(words("天安门"), among: all) == ["zh"])
    #expect(inMemory(words("京北"), among: all).isEmpty)
  }

  /// Titles weigh more than keywords, keywords more than descriptions, descriptions more than
  /// body text, in FTS5's bm25() and in the ranked index alike.
  @Test func fieldWeightsOrderTheSameWordByWhereItStands() throws {
    func note(_ id: String, _ field: String) -> SearchableItem {
      var attributes: [(String, AttributeValue)] = [("title", .string("Report")), ("textContent", .string("Notes from the week."))]
      attributes.removeAll { $0.0 == field }
      attributes.append((field, field == "keywords" ? .list([.string("zeppelin")]) : .string(field == "title" ? "Zeppelin" : "Notes zeppelin week.")))
      return item(id, attributes)
    }
    let index = try TemporaryIndex([note("body", "textContent"), note("title", "title"), note("described", "contentDescription"), note("keyword", "keywords")])
    let order = ["title", "keyword", "described", "body"]
    #expect(try ids(#"search "zeppelin""#, in: index.index) == order, "FTS5 bm25()")
    // The ranked index averages each field's length over the items that have it, so a field
    // most items lack (keywords, descriptions here) keeps its weight where it appears.
    let ranked = try ids(#"search "zeppelin" || "zeppelin"s"#, in: index.index)
    #expect(ranked == order, "ranked index: \(ranked)")
  }
}
