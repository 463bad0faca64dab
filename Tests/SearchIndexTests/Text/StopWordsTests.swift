import Testing
@testable import SearchIndex

/// The planner's stop-word list.
@Suite struct StopWordsTests {
  @Test func questionWordsArticlesAuxiliariesAndPrepositionsAreStopWords() {
    for word in ["what", "which", "who", "how", "when", "where", "why", "the", "a", "an", "is", "are",
           "was", "have", "does", "of", "in", "on", "with", "it", "they"] {
      #expect(StopWords.isStopWord(word), "\(word)")
    }
  }

  @Test func contentWordsAreNotStopWords() {
    for word in ["wing", "lift", "supersonic", "near", "window", "search", ""] {
      #expect(!StopWords.isStopWord(word), "\(word)")
    }
  }

  @Test func lookupFoldsItsInput() {
    #expect(StopWords.isStopWord("The"))
    #expect(StopWords.isStopWord("WHAT"))
  }

  @Test func listIsSmallFoldedAndOneTokenPerWord() {
    #expect((100...160).contains(StopWords.english.count))
    let analyzer = TextAnalyzer(stemming: false)
    for word in StopWords.english {
      #expect(TextFolding.fold(word) == word)
      #expect(analyzer.tokens(word, mode: .query).map(\.text) == [word])
    }
  }
}
