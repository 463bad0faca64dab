import Foundation
import QueryEngine
import SearchIndex

/// "Did you mean" for a query that returned no items: each quoted word of the query that no
/// visible item contains, with the closest words of the index (`spellingSuggestions`, which
/// never suggests a word only hidden items hold).
enum SpellingNotes {
  /// The notes for `query`'s words, one per misspelt word with a suggestion.
  static func notes(for query: String, index: SearchIndex, scope: AccessScope) -> [String] {
    var notes: [String] = []
    var seen = Set<String>()
    for word in quotedWords(query) where word.count >= 3 && word.allSatisfy(\.isLetter) && seen.insert(word).inserted {
      let quoted = FullTextQuery.quoted(word)
      guard let count = try? index.itemCounts(matching: [quoted], scope: scope).first, count == 0,
        let suggestions = try? index.spellingSuggestions(for: word, scope: scope), !suggestions.isEmpty
      else { continue }
      notes.append("note: no item contains \"\(word)\"; did you mean " + suggestions.map { "\"\($0.word)\"" }.joined(separator: " or ") + "?")
    }
    return notes
  }

  /// The folded words inside the query's double-quoted strings.
  static func quotedWords(_ query: String) -> [String] {
    var words: [String] = []
    var inside = false
    var escaped = false
    var current = ""
    func flush() {
      if !current.isEmpty { words.append(TextFolding.fold(current)) }
      current = ""
    }
    for character in query {
      if inside, escaped {
        escaped = false
        current.append(character)
        continue
      }
      if inside, character == "\\" {
        escaped = true
        continue
      }
      if character == "\"" {
        flush()
        inside.toggle()
        continue
      }
      guard inside else { continue }
      if character.isLetter || character.isNumber { current.append(character) } else { flush() }
    }
    flush()
    return words
  }

  /// True when `replies` carry no item and nothing else (no count, table or statistic).
  static func foundNothing(_ replies: [Reply]) -> Bool {
    replies.allSatisfy(isEmptyItemsReply)
  }

  /// Whether `reply` is a reply of items that holds none (what `foundNothing` asks of each).
  static func isEmptyItemsReply(_ reply: Reply) -> Bool {
    reply.content.resultItems.isEmpty && (reply.content.type == .items || reply.content.type == .scoredItems)
  }
}
