import Foundation

/// Ranking metrics with trec_eval's definitions (https://github.com/usnistgov/trec_eval).
///
/// A ranking is the list of document ids a system returned, best first; `grades` holds every
/// judged document of the query (grade 0 or less: judged not relevant). As in trec_eval, a
/// document is relevant when its grade is at least 1 (`-l 1`), unjudged documents count as not
/// relevant, and a query without relevant documents scores 0 on every measure. trec_eval
/// re-sorts a run by score (ties by document id); here the ranking is taken as returned, since
/// the engine's order is already total. Repeated ids count once, at their first position.
package enum RankingMetrics {
  /// nDCG at `k` (trec_eval `ndcg_cut.k`): gain is the grade, the document at rank r (from 1)
  /// is discounted by log2(r + 1), and the ideal ranking orders every judged document of the
  /// query by grade.
  package static func nDCG(_ ranking: [String], grades: [String: Int], k: Int) -> Double {
    let ideal = grades.values.filter { $0 > 0 }.sorted(by: >).prefix(k)
    var idealGain = 0.0
    for (offset, grade) in ideal.enumerated() { idealGain += Double(grade) / log2(Double(offset + 2)) }
    guard idealGain > 0 else { return 0 }
    var gain = 0.0
    for (offset, id) in distinct(ranking).prefix(k).enumerated() {
      let grade = grades[id] ?? 0
      if grade > 0 { gain += Double(grade) / log2(Double(offset + 2)) }
    }
    return gain / idealGain
  }

  /// Recall at `k` (trec_eval `recall.k`): relevant documents in the first `k` over all
  /// relevant documents of the query.
  package static func recall(_ ranking: [String], grades: [String: Int], k: Int) -> Double {
    let relevant = relevantCount(grades)
    guard relevant > 0 else { return 0 }
    let found = distinct(ranking).prefix(k).filter { (grades[$0] ?? 0) >= 1 }.count
    return Double(found) / Double(relevant)
  }

  /// Reciprocal rank of the first relevant document within the first `k` (trec_eval
  /// `recip_rank` on a run cut at `k`, as in MRR@10); 0 when none is there.
  package static func reciprocalRank(_ ranking: [String], grades: [String: Int], k: Int) -> Double {
    for (offset, id) in distinct(ranking).prefix(k).enumerated() where (grades[id] ?? 0) >= 1 {
      return 1 / Double(offset + 1)
    }
    return 0
  }

  /// Average precision (trec_eval `map` for one query): the precision at the rank of each
  /// relevant document retrieved, summed, over all relevant documents of the query (so
  /// relevant documents never retrieved contribute 0).
  package static func averagePrecision(_ ranking: [String], grades: [String: Int]) -> Double {
    let relevant = relevantCount(grades)
    guard relevant > 0 else { return 0 }
    var found = 0
    var sum = 0.0
    for (offset, id) in distinct(ranking).enumerated() where (grades[id] ?? 0) >= 1 {
      found += 1
      sum += Double(found) / Double(offset + 1)
    }
    return sum / Double(relevant)
  }

  /// The number of relevant documents (grade at least 1).
  package static func relevantCount(_ grades: [String: Int]) -> Int {
    grades.values.filter { $0 >= 1 }.count
  }

  /// `ranking` without repeated ids, keeping first positions.
  package static func distinct(_ ranking: [String]) -> [String] {
    var seen = Set<String>()
    return ranking.filter { seen.insert($0).inserted }
  }
}
