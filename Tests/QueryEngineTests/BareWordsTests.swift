import Testing
@testable import QueryEngine
import SearchIndex
import SearchlightTestSupport

/// The bare-word rule: only words, none an attribute, is a text search of those words.
@Suite struct BareWordsTests {
  let catalog = AttributeCatalog(customTypes: ["difficulty": .string])

  @Test(arguments: [
    ("tmux", #"search "tmux""#),
    ("terminal   multiplexer", #"search "terminal multiplexer""#),
    (" python3-dev ", #"search "python3-dev""#),
    ("don't panic", #"search "don't panic""#),
    ("c++ 4.2 café", #"search "c++ 4.2 café""#),
    ("東京 タワー", #"search "東京 タワー""#),
  ])
  func wordsBecomeATextSearch(text: String, search: String) {
    #expect(BareWords.searchQuery(for: text, catalog: catalog) == search)
  }

  @Test(arguments: [
    "", "   ", "title", "tmux title", "difficulty", "rating > 3", #""quoted""#, "a | count", "-flag", "*",
    "tmux; count", "x == y", "(tmux)", "tmux*", "!tmux",
  ])
  func anythingElseIsNot(text: String) {
    #expect(BareWords.searchQuery(for: text, catalog: catalog) == nil)
  }

  @Test func aLoneStarIsAnErrorInTheGrammarAndEveryItemWhenTyped() throws {
    #expect(throws: DiagnosticsError.self) { try Parser.parse(SourceText("*")) }
    let executor = QueryExecutor(index: SampleIndex.shared, registry: StageRegistry())
    let typed = try executor.prepareTyped(" * ", options: SampleIndex.options)
    #expect(typed.searched == nil, "nothing to say: it is not a text search")
    let every = try executor.prepare("search *", options: SampleIndex.options)
    #expect(try Explainer(executor: executor).explain(typed.graph, options: SampleIndex.options) == Explainer(executor: executor).explain(every, options: SampleIndex.options))
    #expect((#expect(throws: QueryError.self) { try executor.prepareTyped("-tmux", options: SampleIndex.options) })?.diagnostics != nil)
  }
}
