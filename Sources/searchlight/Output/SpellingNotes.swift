import Foundation
import QueryEngine
import SearchIndex

/// "Did you mean" for a query that returned no items: each word its text searches look for
/// (`QueryGraph.searchedWords`, not the values it compares attributes with) that no visible
/// item contains, with the closest words of the index (`spellingSuggestions`, which never
/// suggests a word only hidden items hold).
enum SpellingNotes {
  /// The notes for the searched `words`, one per misspelt word with a suggestion.
  static func notes(for words: [String], index: SearchIndex, scope: AccessScope) -> [String] {
    var notes: [String] = []
    var seen = Set<String>()
    for word in words.map(TextFolding.fold) where word.count >= 3 && word.allSatisfy(\.isLetter) && seen.insert(word).inserted {
      let quoted = FullTextQuery.quoted(word)
      guard let count = try? index.itemCounts(matching: [quoted], scope: scope).first, count == 0,
        let suggestions = try? index.spellingSuggestions(for: word, scope: scope), !suggestions.isEmpty
      else { continue }
      notes.append("note: no item contains \"\(word)\"; did you mean " + suggestions.map { "\"\($0.word)\"" }.joined(separator: " or ") + "?")
    }
    return notes
  }

  /// Whether a query's replies, seen one at a time as they are printed and let go (a quarter
  /// of a million items kept until the end held 1.8 GB), were all replies of items holding
  /// none: then it found nothing and its words are worth a note.
  struct EmptyReplies {
    private(set) var foundNothing = true

    mutating func add(_ reply: Reply) {
      // A streamed batch that holds nothing says nothing; the last batch of a reply does.
      guard !reply.isPartial || !reply.content.resultItems.isEmpty else { return }
      foundNothing = foundNothing && reply.content.resultItems.isEmpty
        && (reply.content.type == .items || reply.content.type == .scoredItems)
    }
  }
}
