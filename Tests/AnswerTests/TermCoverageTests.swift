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

  @Test func coverageIsTheShareOfTermWeightFoundAsWordPrefixes() {
    let coverage = TermCoverage(Self.weights([("orion", 1), ("launches*", 1), ("retro*", 2), ("quantum", 4)]), minimum: 0.5)
    // orion and retro (a prefix) are found, launches is not a prefix of launch, quantum is absent.
    #expect(coverage.coverage(of: Self.item) == 3.0 / 8.0)
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
