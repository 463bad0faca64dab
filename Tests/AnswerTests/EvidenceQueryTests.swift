@testable import Assistant
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Stages
import Testing

/// The query for the items behind an aggregate reply.
@Suite struct EvidenceQueryTests {
  static let cases: [(query: String, evidence: String?)] = [
    (#"search stateOrProvince == "Utah" | count"#, #"search stateOrProvince == "Utah" | limit 10"#),
    (#"s_n = search (stateOrProvince == 'Utah'cd) | count as "n""#, #"s_n = search (stateOrProvince == 'Utah'cd) | limit 10"#),
    (#"search domainIdentifier == "trails" | sort rating desc | stats avg(distance)"#,
     #"search domainIdentifier == "trails" | sort rating desc | limit 10"#),
    (#"t = search domainIdentifier == "trails"; t | stats avg(distance) by difficulty"#, #"t = search domainIdentifier == "trails"; t | limit 10"#),
    (#"search "Orion" | fork (count as "n") (top 3 | text)"#, #"search "Orion" | limit 10"#),
    (#"stateOrProvince == "Utah""#, nil),
    (#"search "Orion" | top 3"#, nil),
  ]

  @Test(arguments: cases)
  func aggregateQueriesAreCutBeforeTheirFirstAggregatingStage(_ testCase: (query: String, evidence: String?)) throws {
    let executor = QueryExecutor(index: SampleIndex.shared, registry: StandardLibrary.registry())
    let evidence = try EvidenceQuery.items(behind: testCase.query, executor: executor, options: SampleIndex.options, limit: 10)
    #expect(evidence == testCase.evidence)
    if let evidence {
      var items = 0
      try executor.run(evidence, options: SampleIndex.options) { items += $0.content.resultItems.count }
      #expect(items > 0)
    }
  }
}
