import SearchIndex

/// Result coverage of a fixture file: for each question, which expected items came back in
/// the first `k`, and whether questions the index cannot answer came back empty.
///
/// - coverage: expected ids among the first `k` returned, over all expected ids; averaged
///   over the questions that have expected ids;
/// - precision: expected ids among the first `k` returned, over the number returned (0 when
///   nothing came back); same questions;
/// - MRR: reciprocal rank of the first expected id within the first `k`; same questions;
/// - no-evidence accuracy: share of `expectNoEvidence` questions that returned nothing;
/// - time to first result: from the start of planning to the first reply, p50 and p95 over
///   all questions.
///
/// With answers (`scoreAnswers`, the offline responder's sources for each question), the
/// answer itself is scored too:
/// - answer coverage: expected ids among the answer's sources, over all expected ids;
///   averaged over the questions that have expected ids;
/// - answer no-evidence accuracy: share of `expectNoEvidence` questions answered with no
///   sources (the "nothing found" reply).
package struct FixtureEvaluation: Sendable {
  /// One question's outcome.
  package struct Detail: Sendable {
    package var fixture: Fixture
    /// The first `k` returned ids.
    package var returned: [String]
    package var coverage: Double?
    package var precision: Double?
    package var reciprocalRank: Double?
    /// For `expectNoEvidence` questions: true when nothing came back.
    package var noEvidenceCorrect: Bool?
    package var firstReplyMs: Double
    /// The sources the answer cited, when answers were scored.
    package var answerSources: [String]?
    package var answerCoverage: Double?
    package var answerNoEvidenceCorrect: Bool?
  }

  package var k: Int
  package var planner: String
  package var details: [Detail]

  /// Runs every fixture.
  package static func run(_ fixtures: [Fixture], runner: QuestionRunner, k: Int) throws -> FixtureEvaluation {
    var details: [Detail] = []
    for fixture in fixtures {
      let outcome = try runner.run(fixture.question, depth: k)
      details.append(detail(fixture, returned: outcome.identifiers, k: k, firstReplyMs: outcome.firstReplySeconds * 1000))
    }
    return FixtureEvaluation(k: k, planner: runner.planner.name, details: details)
  }

  /// The metrics of one question from what it returned.
  package static func detail(_ fixture: Fixture, returned all: [String], k: Int, firstReplyMs: Double) -> Detail {
    let returned = Array(RankingMetrics.distinct(all).prefix(k))
    var detail = Detail(fixture: fixture, returned: returned, firstReplyMs: firstReplyMs)
    if !fixture.expectedIdentifiers.isEmpty {
      let expected = Set(fixture.expectedIdentifiers)
      let hits = returned.filter(expected.contains)
      detail.coverage = Double(hits.count) / Double(expected.count)
      detail.precision = returned.isEmpty ? 0 : Double(hits.count) / Double(returned.count)
      detail.reciprocalRank = returned.firstIndex(where: expected.contains).map { 1 / Double($0 + 1) } ?? 0
    }
    if fixture.expectNoEvidence { detail.noEvidenceCorrect = returned.isEmpty }
    return detail
  }

  /// Scores each question's answer from the ids of the sources it cited, in fixture order.
  package mutating func scoreAnswers(_ sources: [[String]]) {
    for (index, cited) in zip(details.indices, sources) {
      let fixture = details[index].fixture
      details[index].answerSources = cited
      if !fixture.expectedIdentifiers.isEmpty {
        let expected = Set(fixture.expectedIdentifiers)
        details[index].answerCoverage = Double(Set(cited).intersection(expected).count) / Double(expected.count)
      }
      if fixture.expectNoEvidence { details[index].answerNoEvidenceCorrect = cited.isEmpty }
    }
  }

  package var answerCoverage: Double? { Percentiles.mean(details.compactMap(\.answerCoverage)) }
  package var answerNoEvidenceAccuracy: Double? {
    Percentiles.mean(details.compactMap(\.answerNoEvidenceCorrect).map { $0 ? 1 : 0 })
  }
  package var answersScored: Bool { details.contains { $0.answerSources != nil } }

  package var questions: Int { details.count }
  package var coverage: Double? { Percentiles.mean(details.compactMap(\.coverage)) }
  package var precision: Double? { Percentiles.mean(details.compactMap(\.precision)) }
  package var meanReciprocalRank: Double? { Percentiles.mean(details.compactMap(\.reciprocalRank)) }
  package var noEvidenceAccuracy: Double? {
    Percentiles.mean(details.compactMap(\.noEvidenceCorrect).map { $0 ? 1 : 0 })
  }
  package var timeToFirstResultP50: Double? { Percentiles.percentile(details.map(\.firstReplyMs), 50) }
  package var timeToFirstResultP95: Double? { Percentiles.percentile(details.map(\.firstReplyMs), 95) }

  /// `{"questions","coverage","precision","MRR","noEvidenceAccuracy","timeToFirstResultMs":{"p50","p95"},"k","planner"}`,
  /// with `"details"` when asked.
  package func jsonValue(details includeDetails: Bool) -> JSONValue {
    var object = JSONObject()
    object["questions"] = .number(Double(questions))
    object["coverage"] = Self.metric(coverage)
    object["precision"] = Self.metric(precision)
    object["MRR"] = Self.metric(meanReciprocalRank)
    object["noEvidenceAccuracy"] = Self.metric(noEvidenceAccuracy)
    object["timeToFirstResultMs"] = .object(JSONObject([
      ("p50", Self.milliseconds(timeToFirstResultP50)), ("p95", Self.milliseconds(timeToFirstResultP95)),
    ]))
    object["k"] = .number(Double(k))
    object["planner"] = .string(planner)
    if answersScored {
      object["answer"] = .object(JSONObject([
        ("coverage", Self.metric(answerCoverage)), ("noEvidenceAccuracy", Self.metric(answerNoEvidenceAccuracy)),
      ]))
    }
    if includeDetails {
      object["details"] = .array(details.map { detail in
        var entry = JSONObject()
        entry["id"] = .string(detail.fixture.id)
        entry["question"] = .string(detail.fixture.question)
        entry["expected"] = .array(detail.fixture.expectedIdentifiers.map(JSONValue.string))
        entry["expectNoEvidence"] = .bool(detail.fixture.expectNoEvidence)
        entry["returned"] = .array(detail.returned.map(JSONValue.string))
        entry["coverage"] = Self.metric(detail.coverage)
        entry["precision"] = Self.metric(detail.precision)
        entry["reciprocalRank"] = Self.metric(detail.reciprocalRank)
        entry["noEvidenceCorrect"] = detail.noEvidenceCorrect.map(JSONValue.bool) ?? .null
        entry["timeToFirstResultMs"] = Self.milliseconds(detail.firstReplyMs)
        if let sources = detail.answerSources {
          entry["answerSources"] = .array(sources.map(JSONValue.string))
          entry["answerCoverage"] = Self.metric(detail.answerCoverage)
          entry["answerNoEvidenceCorrect"] = detail.answerNoEvidenceCorrect.map(JSONValue.bool) ?? .null
        }
        return .object(entry)
      })
    }
    return .object(object)
  }

  /// A metric rounded to 4 decimals (as trec_eval prints them); null when undefined.
  static func metric(_ value: Double?) -> JSONValue {
    value.map { .number(($0 * 10_000).rounded() / 10_000) } ?? .null
  }

  /// Milliseconds rounded to 3 decimals; null when undefined.
  static func milliseconds(_ value: Double?) -> JSONValue {
    value.map { .number(($0 * 1000).rounded() / 1000) } ?? .null
  }
}
