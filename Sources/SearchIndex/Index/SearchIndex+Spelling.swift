import Foundation

/// "Did you mean" for words that match nothing: the closest words of the index's own
/// vocabulary, by edit distance, the more frequent first.
extension SearchIndex {
  /// A word of the index close to a word that matched nothing.
  public struct SpellingSuggestion: Sendable, Hashable {
    /// The word as the index holds it (folded).
    public var word: String
    /// Edits from the word asked for (insertions, deletions, substitutions, transpositions).
    public var distance: Int
    /// Items visible to the asker's scope that contain it.
    public var items: Int
  }

  /// At most `limit` words of the index within a small edit distance of `word` (one edit for
  /// words of up to four letters, two for longer ones), nearest first, then the more frequent;
  /// none for a word shorter than four letters (too many words are one edit from "cat").
  /// Callers ask for words that match no visible item; the word itself is never suggested.
  ///
  /// Candidates come from the ranked index's term dictionary (`rk_terms`), which also holds
  /// the words of hidden (protected or expired) items. Each candidate is therefore counted
  /// again among the items visible to `scope` (`itemCounts(matching:scope:)`), and words that
  /// only hidden items contain are never suggested: a suggestion cannot reveal a hidden item.
  public func spellingSuggestions(for word: String, scope: AccessScope, limit: Int = 3) throws(SearchIndexError) -> [SpellingSuggestion] {
    let folded = TextFolding.fold(word)
    let letters = Array(folded)
    guard letters.count >= 4, letters.allSatisfy({ $0.isLetter || $0.isNumber }), let first = letters.first else { return [] }
    let allowed = letters.count <= 4 ? 1 : 2
    // Words starting with the same character, or with the second one (a typo in the first
    // letter is rare; a swap of the first two is not).
    let starts = Set([first] + (letters.count > 1 ? [letters[1]] : []))
    let rows: [(String, Int)] = try read { db -> [(String, Int)] in
      guard try db.scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rk_terms'") != nil else { return [] }
      var rows: [(String, Int)] = []
      for start in starts {
        let lower = String(start)
        let upper = String(Character(UnicodeScalar(start.unicodeScalars.last!.value + 1) ?? "\u{10FFFF}"))
        rows += try db.rows(
          """
          SELECT term, df FROM rk_terms WHERE indexId = ? AND term >= ? AND term < ? AND df > 0
          AND length(term) BETWEEN ? AND ?
          """,
          [.integer(indexID), .text(lower), .text(upper), .integer(Int64(letters.count - allowed)), .integer(Int64(letters.count + allowed))]
        ) { row in (row.value(at: 0).stringValue ?? "", Int(row.int64(1))) }
      }
      return rows
    }
    var candidates: [(word: String, distance: Int, frequency: Int)] = []
    for (term, frequency) in rows where term != folded && term.count >= 3 {
      let distance = editDistance(folded, term)
      if distance <= allowed { candidates.append((term, distance, frequency)) }
    }
    candidates.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.frequency != $1.frequency ? $0.frequency > $1.frequency : $0.word < $1.word }
    // Every candidate within the distance is counted among the visible items (the order by
    // distance does not depend on hidden items; the dictionary's frequencies do).
    let shortlist = Array(candidates.prefix(200))
    let quoted = shortlist.map { FullTextQuery.quoted($0.word) }
    let visible = try itemCounts(matching: quoted, scope: scope)
    var suggestions: [SpellingSuggestion] = []
    for (candidate, items) in zip(shortlist, visible) where items > 0 {
      suggestions.append(SpellingSuggestion(word: candidate.word, distance: candidate.distance, items: items))
    }
    suggestions.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.items != $1.items ? $0.items > $1.items : $0.word < $1.word }
    return Array(suggestions.prefix(max(0, limit)))
  }
}
