import Foundation
import QueryEngine
import SearchIndex
import Stages

/// One thing an answer session produced, in the order it happened.
///
/// Answer text and search results are separate kinds of event: sources come only from the
/// replies the searches returned, never from the text, so a citation cannot be invented.
public enum AnswerEvent: Sendable {
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
public struct AnswerSource: Sendable, Hashable {
  /// The item with its stored attributes.
  public var item: SearchableItem
  /// The execution whose reply returned it.
  public var queryToken: String

  public init(item: SearchableItem, queryToken: String) {
    self.item = item
    self.queryToken = queryToken
  }

  public var id: String { item.uniqueIdentifier }
  public var title: String? { item.attributeSet.title }
  /// The item's most telling day (`2026-07-09`), as `text` summaries show it.
  public var day: String? { TextStage.describeDate(item.attributeSet) }
  public var contentURL: String? { item.attributeSet["contentURL"]?.stringValue }

  /// Attributes a source event carries: enough to show and open the item.
  static let attributes = ["title", "contentCreationDate", "contentModificationDate", "dueDate", "completionDate", "contentURL"]
}

/// Why a model's answer ended before the model finished it.
public struct AnswerCut: Sendable, Hashable {
  public enum Reason: String, Sendable, Hashable {
    /// The server stopped at the token limit (`finish_reason` "length").
    case length
    /// The repetition guard stopped a looping answer.
    case repetition
    /// The server went silent or the request outlasted its time.
    case timeout
    /// The connection or the response failed in the middle.
    case error
  }

  public var reason: Reason
  /// For `length`: the limit the request asked for, when it set one.
  public var limit: Int?

  public init(reason: Reason, limit: Int? = nil) {
    self.reason = reason
    self.limit = limit
  }
}

/// A sentence of a model's answer that the grounding check found unsupported.
public struct UnsupportedSentence: Sendable, Hashable {
  /// The sentence, trimmed.
  public var sentence: String
  /// Its words that no source (nor the question) contains, in order.
  public var missing: [String]
  /// True when `--grounding strict` left it out of the answer.
  public var dropped: Bool

  public init(sentence: String, missing: [String], dropped: Bool) {
    self.sentence = sentence
    self.missing = missing
    self.dropped = dropped
  }
}

/// How a model's answer is checked against its sources (`GroundingCheck`).
public enum GroundingMode: String, Sendable, CaseIterable {
  /// Unsupported sentences stay in the answer and are reported (the default).
  case flag
  /// Unsupported sentences are left out, with a notice.
  case strict
  /// No check.
  case off
}

/// How a response ended.
public struct AnswerSummary: Sendable {
  /// Who wrote the answer.
  public enum Responder: Sendable, Hashable {
    /// The language model of this name.
    case model(String)
    /// The offline extractive responder (also after a model failure).
    case offline
  }

  /// The whole answer text, as streamed.
  public var text: String
  /// The sources, in the order they were first returned.
  public var sources: [AnswerSource]
  public var responder: Responder
  /// Model turns that called tools.
  public var toolRounds: Int
  /// True when nothing relevant was found and the answer says so.
  public var foundNothing: Bool
  /// The model's sentences the grounding check found unsupported (dropped ones included).
  public var unsupported: [UnsupportedSentence]
  /// The model's sentences the grounding check looked at; 0 with grounding off or offline.
  public var checkedSentences: Int
  /// Why the model's answer stopped early, if it did.
  public var cut: AnswerCut?
  /// Tokens the model server reported over all turns; nil when it reported none.
  public var usage: TokenUsage?

  /// The share of the checked sentences the sources support; nil when none was checked.
  public var grounding: Double? {
    checkedSentences == 0 ? nil : Double(checkedSentences - unsupported.count) / Double(checkedSentences)
  }

  public init(
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
