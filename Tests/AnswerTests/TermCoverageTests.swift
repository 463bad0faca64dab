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

  @Test func termsAreFoldedAndListsSearched() {
    let coverage = TermCoverage(Self.weights([("CAFE", 1), ("orion", 1)]), minimum: 0.5)
    #expect(coverage.coverage(of: Self.item) == 1)
  }

  @Test func noTermsMeansEveryItemIsRelevant() {
    #expect(TermCoverage([], minimum: 0.5).isRelevant(Self.item))
  }
}
