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

  package init(text: String, sources: [AnswerSource], responder: Responder, toolRounds: Int, foundNothing: Bool) {
    self.text = text
    self.sources = sources
    self.responder = responder
    self.toolRounds = toolRounds
    self.foundNothing = foundNothing
  }
}
