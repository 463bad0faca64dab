import Assistant
import Foundation
import SearchIndex

/// How a model answers the questions of a fixture file: whether the model (rather than the
/// offline fall-back) answered, how much of what it wrote its sources support (the grounding
/// score: supported sentences over checked sentences, pooled over all answers), how many
/// answers were cut, and their time and tokens.
package struct ModelAnswerEvaluation: Sendable {
  package struct Detail: Sendable {
    package var fixture: Fixture
    package var summary: AnswerSummary
    package var seconds: Double
  }

  package var model: String
  package var details: [Detail]

  /// Answers every question with `session`, one after the other.
  package static func run(_ fixtures: [Fixture], session: AnswerSession) async throws -> ModelAnswerEvaluation {
    var details: [Detail] = []
    for fixture in fixtures {
      let started = ContinuousClock.now
      let summary = try await session.respond(to: fixture.question)
      let elapsed = ContinuousClock.now - started
      details.append(Detail(fixture: fixture, summary: summary, seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
    }
    return ModelAnswerEvaluation(model: session.modelName, details: details)
  }

  package var questions: Int { details.count }
  package var answeredByModel: Int { details.filter { $0.summary.responder != .offline }.count }
  package var checkedSentences: Int { details.map(\.summary.checkedSentences).reduce(0, +) }
  package var unsupportedSentences: Int { details.map(\.summary.unsupported.count).reduce(0, +) }
  /// Supported sentences over checked sentences, over all answers; nil when none was checked.
  package var grounding: Double? {
    checkedSentences == 0 ? nil : Double(checkedSentences - unsupportedSentences) / Double(checkedSentences)
  }
  package var cut: Int { details.filter { $0.summary.cut != nil }.count }
  package var secondsP50: Double? { Percentiles.percentile(details.map(\.seconds), 50) }
  package var secondsP95: Double? { Percentiles.percentile(details.map(\.seconds), 95) }
  /// Mean completion tokens per answer, over the answers whose server reported usage.
  package var completionTokens: Double? { Percentiles.mean(details.compactMap { $0.summary.usage.map { Double($0.completionTokens) } }) }

  package func jsonValue(details includeDetails: Bool) -> JSONValue {
    var object = JSONObject()
    object["model"] = .string(model)
    object["questions"] = .number(Double(questions))
    object["answeredByModel"] = .number(Double(answeredByModel))
    object["grounding"] = FixtureEvaluation.metric(grounding)
    object["checkedSentences"] = .number(Double(checkedSentences))
    object["unsupportedSentences"] = .number(Double(unsupportedSentences))
    object["cut"] = .number(Double(cut))
    object["answerSecondsP50"] = FixtureEvaluation.metric(secondsP50)
    object["answerSecondsP95"] = FixtureEvaluation.metric(secondsP95)
    object["completionTokens"] = FixtureEvaluation.metric(completionTokens)
    if includeDetails {
      object["details"] = .array(details.map { detail in
        var entry = JSONObject()
        entry["id"] = .string(detail.fixture.id)
        entry["responder"] = .string(detail.summary.responder == .offline ? "offline" : "model")
        entry["grounding"] = FixtureEvaluation.metric(detail.summary.grounding)
        entry["unsupported"] = .array(detail.summary.unsupported.map { .string($0.sentence) })
        entry["cut"] = detail.summary.cut.map { .string($0.reason.rawValue) } ?? .null
        entry["answer"] = .string(detail.summary.text)
        return .object(entry)
      })
    }
    return .object(object)
  }
}
