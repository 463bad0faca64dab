@testable import Assistant
import QueryEngine
import SearchIndex
import Testing

/// The coded relevance rule for plain text searches.
@Suite struct TermCoverageTests {
  static let item = SearchableItem(uniqueIdentifier: "n", attributeSet: AttributeSet([
    ("title", .string("Orion launch retrospective")), ("keywords", .list([.string("Café")])), ("rating", .number(4)),
  ]))

  static func weights(_ pairs: [(String, Double)]) -> [PlannedQuery.TermWeight] {
    pairs.map { PlannedQuery.TermWeight(term: $0.0, weight: $0.1) }
  }

  @Test func coverageIsTheShareOfTermWeightFoundAsWordsOrStems() {
    let coverage = TermCoverage(Self.weights([("orion", 1), ("launches", 1), ("\u{1}retrospectives", 2), ("quantum", 4)]), minimum: 0.5)
    // orion is found as written and retrospectives in another form (a stemmed term);
    // launches is not written (only launch is, and the term is not stemmed); quantum is absent.
    #expect(coverage.coverage(of: Self.item) == 3.0 / 8.0)
    let stemmed = TermCoverage(Self.weights([("\u{1}launches", 1), ("quantum", 1)]), minimum: 0.5)
    #expect(stemmed.coverage(of: Self.item) == 0.5)
    #expect(!coverage.isRelevant(Self.item))
  }

  /// `collect` finds of the wanted tokens exactly those `tokens(of:)` holds: words, stems,
  /// camelCase parts, folded letters, CJK grams.
  @Test func collectingWantedTokensIsTheirIntersectionWithEveryToken() {
    var generator = SplitMix64(seed: 9)
    let words = ["Launches", "launch", "retrospective", "camelCaseWord", "Café", "naïve", "東京都", "v2", "x86_64", "the"]
    for _ in 0..<2_000 {
      let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in words.randomElement(using: &generator)! }
        .joined(separator: [" ", ", ", "\n", "-"].randomElement(using: &generator)!)
      let every = TermCoverage.tokens(of: text)
      // Some tokens of this text, some of every text, one of none.
      var wanted = Set(every.filter { _ in Bool.random(using: &generator) })
      wanted.formUnion(TermCoverage.tokens(of: words.randomElement(using: &generator)!))
      wanted.insert("absent")
      var present = Set<String>()
      TermCoverage.collect(wanted, in: text, into: &present)
      #expect(present == every.intersection(wanted), "\(text)")
    }
  }

  @Test func termsAreFoldedAndListsSearched() {
    let coverage = TermCoverage(Self.weights([("CAFE", 1), ("orion", 1)]), minimum: 0.5)
    #expect(coverage.coverage(of: Self.item) == 1)
  }

  @Test func noTermsMeansEveryItemIsRelevant() {
    #expect(TermCoverage([], minimum: 0.5).isRelevant(Self.item))
  }
}
