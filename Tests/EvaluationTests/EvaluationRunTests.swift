import Foundation
import QueryEngine
import SearchIndex
import Testing
@testable import Evaluation

@Suite struct PlainQuestionPlannerTests {
  @Test func questionsLoseStopwordsPunctuationAndRepeats() {
    #expect(PlainQuestionPlanner.terms("When is the Orion launch?") == ["orion", "launch"])
    #expect(PlainQuestionPlanner.terms("What is my driver's license number?") == ["driver", "license", "number"])
    #expect(PlainQuestionPlanner.terms("Zürich, ZÜRICH and zürich-trip 2027") == ["zürich", "trip", "2027"])
    #expect(PlainQuestionPlanner.terms("What is it?").isEmpty)
  }

  @Test func theSearchIsARankedOrOverTheWords() throws {
    let search = try #require(PlainQuestionPlanner.textSearch("kitchen remodel quote"))
    #expect(search.requireAll == false)
    #expect(search.terms.map(\.text) == ["\u{1}kitchen", "\u{1}remodel", "\u{1}quote"], "every form of each word, as stemmed BM25 searches")
    #expect(search.terms.allSatisfy { !$0.isPrefix })
    #expect(PlainQuestionPlanner.textSearch("is it the?") == nil)
  }

  @Test func itemsWithAnyWordComeBackBestFirst() throws {
    let items = [
      document("a", "Kitchen remodel quote", "The quote for the kitchen remodel"),
      document("b", "Garage window", "Repair the garage window"),
      document("c", "Remodel ideas", "Ideas"),
    ]
    try withIndex(items) { index in
      let outcome = try plainRunner(index).run("Which kitchen remodel quote did we pick?", depth: 10)
      #expect(outcome.identifiers == ["a", "c"])
      #expect(outcome.firstReplySeconds <= outcome.totalSeconds)
      #expect(try plainRunner(index).run("Which kitchen remodel quote did we pick?", depth: 1).identifiers == ["a"])
      #expect(try plainRunner(index).run("What is it?", depth: 10).identifiers.isEmpty)
    }
  }
}

@Suite struct FixtureEvaluationTests {
  let fixture = Fixture(id: "f", question: "q", expectedIdentifiers: ["a", "b", "c", "d"], expectNoEvidence: false)

  @Test func coveragePrecisionAndReciprocalRankCountTheFirstKResults() {
    let detail = FixtureEvaluation.detail(fixture, returned: ["x", "b", "x", "y", "a", "c"], k: 4, firstReplyMs: 2)
    // First 4 distinct: x, b, y, a -> hits b and a.
    #expect(detail.returned == ["x", "b", "y", "a"])
    #expect(detail.coverage == 0.5)
    #expect(detail.precision == 0.5)
    #expect(detail.reciprocalRank == 0.5)
    #expect(detail.noEvidenceCorrect == nil)
  }

  @Test func nothingReturnedScoresZeroPrecision() {
    let detail = FixtureEvaluation.detail(fixture, returned: [], k: 10, firstReplyMs: 1)
    #expect(detail.coverage == 0)
    #expect(detail.precision == 0)
    #expect(detail.reciprocalRank == 0)
  }

  @Test func noEvidenceQuestionsAreRightOnlyWhenNothingComesBack() {
    let none = Fixture(id: "n", question: "q", expectedIdentifiers: [], expectNoEvidence: true)
    #expect(FixtureEvaluation.detail(none, returned: [], k: 10, firstReplyMs: 1).noEvidenceCorrect == true)
    let wrong = FixtureEvaluation.detail(none, returned: ["z"], k: 10, firstReplyMs: 1)
    #expect(wrong.noEvidenceCorrect == false)
    #expect(wrong.coverage == nil)
  }

  @Test func averagesCoverOnlyTheQuestionsTheyApplyTo() throws {
    let none = Fixture(id: "n", question: "q", expectedIdentifiers: [], expectNoEvidence: true)
    let open = Fixture(id: "o", question: "q", expectedIdentifiers: [], expectNoEvidence: false)
    let evaluation = FixtureEvaluation(k: 10, planner: "plain", details: [
      FixtureEvaluation.detail(fixture, returned: ["a", "b", "c", "d"], k: 10, firstReplyMs: 1),
      FixtureEvaluation.detail(Fixture(id: "g", question: "q", expectedIdentifiers: ["z"], expectNoEvidence: false), returned: ["y", "z"], k: 10, firstReplyMs: 3),
      FixtureEvaluation.detail(none, returned: ["a"], k: 10, firstReplyMs: 5),
      FixtureEvaluation.detail(open, returned: [], k: 10, firstReplyMs: 7),
    ])
    #expect(evaluation.questions == 4)
    #expect(evaluation.coverage == 1)
    #expect(evaluation.precision == 0.75)
    #expect(evaluation.meanReciprocalRank == 0.75)
    #expect(evaluation.noEvidenceAccuracy == 0)
    #expect(evaluation.timeToFirstResultP50 == 4)
    let json = evaluation.jsonValue(details: false)
    #expect(json.objectValue?.keys == ["questions", "coverage", "precision", "MRR", "noEvidenceAccuracy", "timeToFirstResultMs", "k", "planner"])
    #expect(json["timeToFirstResultMs"]?.objectValue?.keys == ["p50", "p95"])
    #expect(json["MRR"] == 0.75)
    let detailed = evaluation.jsonValue(details: true)
    #expect(detailed["details"]?.arrayValue?.count == 4)
    #expect(detailed["details"]?.arrayValue?[2]["noEvidenceCorrect"] == false)
  }

  @Test func undefinedAveragesAreNull() {
    let evaluation = FixtureEvaluation(k: 10, planner: "plain", details: [
      FixtureEvaluation.detail(Fixture(id: "n", question: "q", expectedIdentifiers: [], expectNoEvidence: true), returned: [], k: 10, firstReplyMs: 1),
    ])
    let json = evaluation.jsonValue(details: false)
    #expect(json["coverage"] == .null)
    #expect(json["noEvidenceAccuracy"] == 1)
  }
}

@Suite struct TRECEvaluationTests {
  @Test func queriesWithoutJudgmentsAreSkippedAndEmptyResultsScoreZero() throws {
    let items = [document("1", "slipstream wing", "wing in a propeller slipstream"), document("2", "heat transfer", "heat conduction in slabs")]
    try withIndex(items) { index in
      let queries = [TRECQuery(id: "q1", text: "wing slipstream"), TRECQuery(id: "q2", text: "boundary layer"), TRECQuery(id: "q3", text: "heat")]
      let qrels = Qrels(["q1": ["1": 2, "2": 0], "q2": ["2": 1]])
      let result = try TRECEvaluation.run(queries, qrels: qrels, runner: plainRunner(index), k: 10)
      #expect(result.queries == 2)
      #expect(result.skipped == ["q3"])
      #expect(result.depth == 1000)
      #expect(result.details.map(\.nDCG) == [1, 0])
      #expect(result.nDCG == 0.5)
      #expect(result.meanAveragePrecision == 0.5)
      #expect(result.details[0].top == ["1"])
      let json = result.jsonValue(details: false)
      #expect(json.objectValue?.keys == ["queries", "nDCG@10", "recall@10", "recall@100", "MRR@10", "MAP", "skipped", "depth", "planner"])
      #expect(json["queries"] == 2)
      #expect(json["MRR@10"] == 0.5)
      let detailed = result.jsonValue(details: true)
      #expect(detailed["details"]?.arrayValue?.first?.objectValue?.keys == ["id", "nDCG@10", "recall@10", "recall@100", "MRR@10", "AP", "relevant", "retrieved", "top"])
    }
  }

  @Test func theCutoffNamesTheMetrics() {
    let result = TRECEvaluation(k: 5, depth: 1000, planner: "plain", details: [], skipped: [])
    #expect(result.jsonValue(details: false).objectValue?.keys.prefix(6) == ["queries", "nDCG@5", "recall@5", "recall@100", "MRR@5", "MAP"])
    #expect(result.jsonValue(details: false)["nDCG@5"] == .null)
  }
}

/// The answer, not only retrieval, is scored on fixtures.
@Suite struct FixtureAnswerScoringTests {
  @Test func answersAreScoredByTheirSources() {
    let fixtures = [
      Fixture(id: "a", question: "q1", expectedIdentifiers: ["x", "y"], expectNoEvidence: false),
      Fixture(id: "b", question: "q2", expectedIdentifiers: [], expectNoEvidence: true),
      Fixture(id: "c", question: "q3", expectedIdentifiers: [], expectNoEvidence: true),
    ]
    var result = FixtureEvaluation(k: 10, planner: "builtin", details: fixtures.map { FixtureEvaluation.detail($0, returned: ["x", "z"], k: 10, firstReplyMs: 1) })
    #expect(result.noEvidenceAccuracy == 0, "retrieval returned items for every question")
    #expect(!result.answersScored)
    result.scoreAnswers([["y", "w"], [], ["z"]])
    #expect(result.answerCoverage == 0.5)
    #expect(result.answerNoEvidenceAccuracy == 0.5)
    guard case .object(let json) = result.jsonValue(details: true), case .object(let answer)? = json["answer"] else {
      Issue.record("no answer object")
      return
    }
    #expect(answer["coverage"] == .number(0.5))
    #expect(answer["noEvidenceAccuracy"] == .number(0.5))
  }

  @Test func plainAndFTS5BaselinesSearchEveryFormOfAWord() {
    let search = PlainQuestionPlanner.textSearch("launches of CCL19")
    #expect(search?.terms.map(\.text) == ["\u{1}launches", "ccl19"])
  }
}
