import Foundation
import QueryEngine
import SearchIndex
import Stages

/// One thing an answer session produced, in the order it happened.
///
/// Answer text and search results are separate kinds of event: sources come only from the
/// replies the searches returned, never from the text, so a citation cannot be invented.
package enum AnswerEvent: Sendable {
  /// A reply of a search the session ran (a batch while `reply.isPartial`).
  case reply(Reply)
  /// An item the answer rests on; each id once per response.
  case source(AnswerSource)
  /// A piece of the answer text.
  case text(String)
  /// A one-line notice for the person asking: the model was unreachable, the answer was cut
  /// short. Never part of the answer.
  case notice(String)
  /// The model's answer stopped before the model finished it: the token limit, a loop, a
  /// timeout or a failure. Follows the notice that says so in words.
  case cut(AnswerCut)
  /// A sentence of the model's answer whose names, numbers or rare words its sources do not
  /// contain; right after the sentence's text, or in place of it when it was dropped.
  case unsupported(UnsupportedSentence)
  /// The end of the response, always the last event.
  case done(AnswerSummary)
}

/// An item an answer cites, as a search returned it.
package struct AnswerSource: Sendable, Hashable {
  /// The item with its stored attributes.
  package var item: SearchableItem
  /// The execution whose reply returned it.
  package var queryToken: String

  package init(item: SearchableItem, queryToken: String) {
    self.item = item
    self.queryToken = queryToken
  }

  package var id: String { item.uniqueIdentifier }
  package var title: String? { item.attributeSet.title }
  /// The item's most telling day (`2026-07-09`), as `text` summaries show it.
  package var day: String? { TextStage.describeDate(item.attributeSet) }
  package var contentURL: String? { item.attributeSet["contentURL"]?.stringValue }

  /// Attributes a source event carries: enough to show and open the item.
  static let attributes = ["title", "contentCreationDate", "contentModificationDate", "dueDate", "completionDate", "contentURL"]
}

/// Why a model's answer ended before the model finished it.
package struct AnswerCut: Sendable, Hashable {
  package enum Reason: String, Sendable, Hashable {
    /// The server stopped at the token limit (`finish_reason` "length").
    case length
    /// The repetition guard stopped a looping answer.
    case repetition
    /// The server went silent or the request outlasted its time.
    case timeout
    /// The connection or the response failed in the middle.
    case error
  }

  package var reason: Reason
  /// For `length`: the limit the request asked for, when it set one.
  package var limit: Int?

  package init(reason: Reason, limit: Int? = nil) {
    self.reason = reason
    self.limit = limit
  }
}

/// A sentence of a model's answer that the grounding check found unsupported.
package struct UnsupportedSentence: Sendable, Hashable {
  /// The sentence, trimmed.
  package var sentence: String
  /// Its words that no source (nor the question) contains, in order.
  package var missing: [String]
  /// True when `--grounding strict` left it out of the answer.
  package var dropped: Bool

  package init(sentence: String, missing: [String], dropped: Bool) {
    self.sentence = sentence
    self.missing = missing
    self.dropped = dropped
  }
}

/// How a model's answer is checked against its sources (`GroundingCheck`).
package enum GroundingMode: String, Sendable, CaseIterable {
  /// Unsupported sentences stay in the answer and are reported (the default).
  case flag
  /// Unsupported sentences are left out, with a notice.
  case strict
  /// No check.
  case off
}

/// How a response ended.
package struct AnswerSummary: Sendable {
  /// Who wrote the answer.
  package enum Responder: Sendable, Hashable {
    /// The language model of this name.
    case model(String)
    /// The offline extractive responder (also after a model failure).
    case offline
  }

  /// The whole answer text, as streamed.
  package var text: String
  /// The sources, in the order they were first returned.
  package var sources: [AnswerSource]
  package var responder: Responder
  /// Model turns that called tools.
  package var toolRounds: Int
  /// True when nothing relevant was found and the answer says so.
  package var foundNothing: Bool
  /// The model's sentences the grounding check found unsupported (dropped ones included).
  package var unsupported: [UnsupportedSentence]
  /// The model's sentences the grounding check looked at; 0 with grounding off or offline.
  package var checkedSentences: Int
  /// Why the model's answer stopped early, if it did.
  package var cut: AnswerCut?
  /// Tokens the model server reported over all turns; nil when it reported none.
  package var usage: TokenUsage?

  /// The share of the checked sentences the sources support; nil when none was checked.
  package var grounding: Double? {
    checkedSentences == 0 ? nil : Double(checkedSentences - unsupported.count) / Double(checkedSentences)
  }

  package init(
    text: String, sources: [AnswerSource], responder: Responder, toolRounds: Int, foundNothing: Bool,
    unsupported: [UnsupportedSentence] = [], checkedSentences: Int = 0, cut: AnswerCut? = nil, usage: TokenUsage? = nil
  ) {
    self.text = text
    self.sources = sources
    self.responder = responder
    self.toolRounds = toolRounds
    self.foundNothing = foundNothing
    self.unsupported = unsupported
    self.checkedSentences = checkedSentences
    self.cut = cut
    self.usage = usage
  }
}
