import Foundation

/// The text of an item that is embedded: title, description and text content, in chunks.
///
/// Long text becomes several chunks of at most `wordsPerChunk` words (each repeating the
/// title, so a chunk stands on its own); every chunk gets a vector and an item's similarity
/// to a query is that of its best chunk (max over its chunks). At most `maximumChunks` chunks
/// are embedded per item, which bounds the cost of one very long document.
package enum EmbeddingText {
  package static let wordsPerChunk = 200
  package static let maximumChunks = 16

  /// The chunks of an item's text; empty when the item has no text at all.
  package static func chunks(title: String, description: String, body: String) -> [String] {
    let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
    let description = description.trimmingCharacters(in: .whitespacesAndNewlines)
    let head = [title, description].filter { !$0.isEmpty }.joined(separator: "\n")
    let words = body.split(whereSeparator: \.isWhitespace)
    guard !words.isEmpty else { return head.isEmpty ? [] : [head] }
    var chunks: [String] = []
    var start = 0
    while start < words.count && chunks.count < maximumChunks {
      let end = min(words.count, start + wordsPerChunk)
      let text = words[start..<end].joined(separator: " ")
      let prefix = chunks.isEmpty ? head : title
      chunks.append(prefix.isEmpty ? text : prefix + "\n" + text)
      start = end
    }
    return chunks
  }
}
