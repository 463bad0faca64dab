import SearchIndex

/// A TREC-style evaluation: each query runs to a depth of `depth` results and is scored
/// against the judgments with trec_eval's definitions (`RankingMetrics`).
///
/// Every query of the queries file that has at least one judgment is scored, including those
/// that return nothing (trec_eval's `-c`); queries without judgments are skipped and counted,
/// and judgments of queries not in the file are ignored.
package struct TRECEvaluation: Sendable {
  /// One query's scores.
  package struct Detail: Sendable {
    package var query: TRECQuery
    /// The first `k` returned ids.
    package var top: [String]
    package var retrieved: Int
    package var relevant: Int
    package var nDCG: Double
    package var recallAtK: Double
    package var recallAt100: Double
    package var reciprocalRank: Double
    package var averagePrecision: Double
  }

  /// Results retrieved per query: trec_eval's default depth, which MAP is computed over.
  package static let defaultDepth = 1000

  package var k: Int
  package var depth: Int
  package var planner: String
  package var details: [Detail]
  /// Queries of the queries file without any judgment.
  package var skipped: [String]

  /// Runs every judged query.
  package static func run(_ queries: [TRECQuery], qrels: Qrels, runner: QuestionRunner, k: Int, depth: Int = defaultDepth) throws -> TRECEvaluation {
    let depth = max(depth, k, 100)
    var details: [Detail] = []
    var skipped: [String] = []
    for query in queries {
      let grades = qrels[query.id]
      guard !grades.isEmpty else {
        skipped.append(query.id)
        continue
      }
      let outcome = try runner.run(query.text, depth: depth)
      details.append(detail(query, ranking: Array(outcome.identifiers.prefix(depth)), grades: grades, k: k))
    }
    return TRECEvaluation(k: k, depth: depth, planner: runner.planner.name, details: details, skipped: skipped)
  }

  /// The scores of one query's ranking.
  package static func detail(_ query: TRECQuery, ranking: [String], grades: [String: Int], k: Int) -> Detail {
    Detail(
      query: query, top: Array(RankingMetrics.distinct(ranking).prefix(k)), retrieved: RankingMetrics.distinct(ranking).count,
      relevant: RankingMetrics.relevantCount(grades),
      nDCG: RankingMetrics.nDCG(ranking, grades: grades, k: k),
      recallAtK: RankingMetrics.recall(ranking, grades: grades, k: k),
      recallAt100: RankingMetrics.recall(ranking, grades: grades, k: 100),
      reciprocalRank: RankingMetrics.reciprocalRank(ranking, grades: grades, k: k),
      averagePrecision: RankingMetrics.averagePrecision(ranking, grades: grades))
  }

  package var queries: Int { details.count }
  package var nDCG: Double? { Percentiles.mean(details.map(\.nDCG)) }
  package var recallAtK: Double? { Percentiles.mean(details.map(\.recallAtK)) }
  package var recallAt100: Double? { Percentiles.mean(details.map(\.recallAt100)) }
  package var meanReciprocalRank: Double? { Percentiles.mean(details.map(\.reciprocalRank)) }
  package var meanAveragePrecision: Double? { Percentiles.mean(details.map(\.averagePrecision)) }

  /// The metric names, with the cutoff `k` (`nDCG@10`).
  package var names: (nDCG: String, recall: String, mrr: String) { ("nDCG@\(k)", "recall@\(k)", "MRR@\(k)") }

  /// `{"queries","nDCG@10","recall@10","recall@100","MRR@10","MAP","skipped","depth","planner"}`,
  /// with `"details"` when asked.
  package func jsonValue(details includeDetails: Bool) -> JSONValue {
    var object = JSONObject()
    object["queries"] = .number(Double(queries))
    object[names.nDCG] = FixtureEvaluation.metric(nDCG)
    object[names.recall] = FixtureEvaluation.metric(recallAtK)
    if k != 100 { object["recall@100"] = FixtureEvaluation.metric(recallAt100) }
    object[names.mrr] = FixtureEvaluation.metric(meanReciprocalRank)
    object["MAP"] = FixtureEvaluation.metric(meanAveragePrecision)
    object["skipped"] = .number(Double(skipped.count))
    object["depth"] = .number(Double(depth))
    object["planner"] = .string(planner)
    if includeDetails {
      object["details"] = .array(details.map { detail in
        var entry = JSONObject()
        entry["id"] = .string(detail.query.id)
        entry[names.nDCG] = FixtureEvaluation.metric(detail.nDCG)
        entry[names.recall] = FixtureEvaluation.metric(detail.recallAtK)
        if k != 100 { entry["recall@100"] = FixtureEvaluation.metric(detail.recallAt100) }
        entry[names.mrr] = FixtureEvaluation.metric(detail.reciprocalRank)
        entry["AP"] = FixtureEvaluation.metric(detail.averagePrecision)
        entry["relevant"] = .number(Double(detail.relevant))
        entry["retrieved"] = .number(Double(detail.retrieved))
        entry["top"] = .array(detail.top.map(JSONValue.string))
        return .object(entry)
      })
    }
    return .object(object)
  }
}
