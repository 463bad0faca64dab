import Foundation
import Testing
@testable import Evaluation

/// Metric values computed by hand (and checked against trec_eval 9 through pytrec_eval).
@Suite struct RankingMetricsTests {
  /// d1..d5 judged (d4 judged not relevant), dx unjudged; four relevant documents.
  let grades = ["d1": 3, "d2": 2, "d3": 1, "d4": 0, "d5": 1]
  let ranking = ["d2", "dx", "d1", "d4", "d5"]

  func close(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance }

  @Test func nDCGUsesTheGradeAsGainAndALog2DiscountFromRankOne() {
    // DCG@3 = 2/log2(2) + 0 + 3/log2(4) = 3.5; ideal@3 = 3/1 + 2/log2(3) + 1/log2(4).
    let expected = 3.5 / (3 + 2 / log2(3.0) + 0.5)
    #expect(close(RankingMetrics.nDCG(ranking, grades: grades, k: 3), expected))
    #expect(close(RankingMetrics.nDCG(ranking, grades: grades, k: 3), 0.735006985, 1e-8))
  }

  @Test func theIdealRankingTakesEveryJudgedDocumentEvenThoseNotRetrieved() {
    // d3 is never retrieved but counts in the ideal: ideal@5 = 3 + 2/log2(3) + 1/2 + 1/log2(5).
    let dcg = 2 + 3 / log2(4.0) + 1 / log2(6.0)
    let ideal = 3 + 2 / log2(3.0) + 0.5 + 1 / log2(5.0)
    #expect(close(RankingMetrics.nDCG(ranking, grades: grades, k: 5), dcg / ideal))
    #expect(close(RankingMetrics.nDCG(ranking, grades: grades, k: 5), 0.748546136, 1e-8))
  }

  @Test func theSecondRankIsDiscountedAsTrecEvalNineDoes() {
    // Older trec_eval left rank 2 undiscounted (nDCG 1 here); trec_eval 9 divides by log2(3).
    #expect(close(RankingMetrics.nDCG(["x", "a"], grades: ["a": 1], k: 10), 1 / log2(3.0)))
    #expect(close(RankingMetrics.nDCG(["dx", "d4", "d1"], grades: grades, k: 10), 0.288876183, 1e-8))
  }

  @Test func recallCountsRelevantDocumentsInTheFirstKOverAllRelevant() {
    #expect(RankingMetrics.recall(ranking, grades: grades, k: 3) == 0.5)
    #expect(RankingMetrics.recall(ranking, grades: grades, k: 5) == 0.75)
  }

  @Test func fewerResultsThanKKeepWhatWasFound() {
    #expect(RankingMetrics.recall(ranking, grades: grades, k: 100) == 0.75)
    #expect(close(RankingMetrics.nDCG(ranking, grades: grades, k: 100), RankingMetrics.nDCG(ranking, grades: grades, k: 5)))
    #expect(close(RankingMetrics.averagePrecision(["d1"], grades: grades), 0.25))
  }

  @Test func reciprocalRankIsOfTheFirstRelevantDocumentWithinK() {
    #expect(RankingMetrics.reciprocalRank(ranking, grades: grades, k: 10) == 1)
    #expect(RankingMetrics.reciprocalRank(["dx", "d4", "d1"], grades: grades, k: 10) == 1.0 / 3)
    #expect(RankingMetrics.reciprocalRank(["dx", "d4", "d1"], grades: grades, k: 2) == 0)
  }

  @Test func averagePrecisionSumsPrecisionAtEachRelevantRankOverAllRelevant() {
    // Relevant at ranks 1, 3 and 5: (1/1 + 2/3 + 3/5) / 4.
    #expect(close(RankingMetrics.averagePrecision(ranking, grades: grades), (1 + 2.0 / 3 + 3.0 / 5) / 4))
    #expect(close(RankingMetrics.averagePrecision(ranking, grades: grades), 0.566666667, 1e-8))
  }

  @Test func aQueryWithoutRelevantDocumentsScoresZeroEverywhere() {
    for judged in [["a": 0, "b": -1], [:]] as [[String: Int]] {
      #expect(RankingMetrics.nDCG(["a", "b"], grades: judged, k: 10) == 0)
      #expect(RankingMetrics.recall(["a", "b"], grades: judged, k: 10) == 0)
      #expect(RankingMetrics.reciprocalRank(["a", "b"], grades: judged, k: 10) == 0)
      #expect(RankingMetrics.averagePrecision(["a", "b"], grades: judged) == 0)
    }
  }

  @Test func anEmptyRankingScoresZero() {
    #expect(RankingMetrics.nDCG([], grades: grades, k: 10) == 0)
    #expect(RankingMetrics.recall([], grades: grades, k: 10) == 0)
    #expect(RankingMetrics.reciprocalRank([], grades: grades, k: 10) == 0)
    #expect(RankingMetrics.averagePrecision([], grades: grades) == 0)
  }

  @Test func aRepeatedDocumentCountsOnceAtItsFirstRank() {
    #expect(RankingMetrics.recall(["d1", "d1", "d1"], grades: grades, k: 3) == 0.25)
    #expect(close(RankingMetrics.averagePrecision(["d1", "d1", "d2"], grades: grades), (1 + 1) / 4))
  }
}

@Suite struct PercentilesTests {
  @Test func percentilesInterpolateBetweenTheNearestRanks() {
    #expect(Percentiles.percentile([4, 1, 3, 2], 50) == 2.5)
    #expect(abs(Percentiles.percentile([1, 2, 3, 4], 95)! - 3.85) < 1e-12)
    #expect(Percentiles.percentile([7], 99) == 7)
    #expect(Percentiles.percentile([1, 2, 3, 4], 0) == 1)
    #expect(Percentiles.percentile([1, 2, 3, 4], 100) == 4)
  }

  @Test func emptyInputsHaveNoPercentileOrMean() {
    #expect(Percentiles.percentile([], 50) == nil)
    #expect(Percentiles.mean([]) == nil)
    #expect(Percentiles.mean([1, 2]) == 1.5)
  }
}
