/// The parts of a long text worth reading for some words: its beginning, and the lines
/// around the first places the words' letters occur. Marking a passage (`snippet`) or
/// quoting a sentence (offline answers) then costs the same for a 12 MB manual as for a
/// note: over the whole of Node.js's one-page API reference a snippet took 2 s and an
/// offline answer 3.7 s.
///
/// The places are found byte by byte, ASCII letters compared without case, so a word is
/// found in any case; a word with other letters is not looked for (the beginning of the text
/// is still read). Texts up to `wholeTextLimit` bytes are read whole, so what a note or a
/// README shows does not change.
package enum TextExcerpt {
  /// Texts up to this many bytes of UTF-8 are read whole.
  package static let wholeTextLimit = 256 * 1024
  /// Bytes of a long text's beginning always read.
  static let headBytes = 32 * 1024
  /// Bytes read on each side of a place, at most (less where a line ends first).
  static let reach = 1024
  /// Places read at most, over all the words.
  static let maximumPlaces = 64

  /// `text` itself when it is at most `wholeTextLimit` bytes; otherwise its first
  /// `headBytes` bytes and the lines around the first places (at most `maximumPlaces`, each
  /// at most `reach` bytes each way) where one of `needles` starts a word, in text order, the
  /// parts joined by line breaks. `isWhole` is false when something was left out.
  package static func excerpt(of text: String, around needles: [String]) -> (text: String, isWhole: Bool) {
    var text = text
    return text.withUTF8 { bytes in
      guard bytes.count > wholeTextLimit else { return (String(decoding: bytes, as: UTF8.self), true) }
      // Each word its share of the places, so a common word does not crowd out a rare one.
      let patterns = Set(needles).map { Array($0.utf8) }.filter { $0.count >= 3 && $0.allSatisfy { $0 < 0x80 } }
      var places: [Int] = []
      for pattern in patterns {
        places += wordStarts(of: pattern.map(lowercased), in: bytes, limit: max(1, maximumPlaces / patterns.count))
      }
      places.sort()
      var parts: [Range<Int>] = [0..<boundary(headBytes, in: bytes)]
      for place in places.prefix(maximumPlaces) {
        var start = place
        while start > 0, place - start < reach, bytes[start - 1] != 0x0A { start -= 1 }
        var end = place
        while end < bytes.count, end - place < reach, bytes[end] != 0x0A { end += 1 }
        let part = boundary(start, in: bytes)..<boundary(end, in: bytes)
        if let last = parts.last, part.lowerBound <= last.upperBound {
          parts[parts.count - 1] = last.lowerBound..<max(last.upperBound, part.upperBound)
        } else {
          parts.append(part)
        }
      }
      var excerpt = ""
      for (index, part) in parts.enumerated() {
        if index > 0 { excerpt += "\n" }
        excerpt += String(decoding: UnsafeBufferPointer(rebasing: bytes[part]), as: UTF8.self)
      }
      return (excerpt, parts.count == 1 && parts[0] == 0..<bytes.count)
    }
  }

  /// What to look for to find a search word in a text: its folded letters, or for a word of
  /// five letters or more its Porter stem (a prefix of its forms: "documentation" is found
  /// at "documents"), without the `i` the stemmer writes for a final `y` ("study", "studies").
  package static func needle(for word: String) -> String {
    // A search term's letters and digits: `waterfall*` is looked for as `waterfall`.
    let folded = String(TextFolding.fold(word).prefix { $0.isLetter || $0.isNumber })
    guard folded.count >= 5 else { return folded }
    var stem = PorterStemmer.stem(folded)
    if stem.hasSuffix("i") { stem.removeLast() }
    return stem.count >= 3 ? stem : folded
  }

  /// The first `limit` offsets where `pattern` (lower case ASCII) starts a word of `bytes`,
  /// compared without case.
  private static func wordStarts(of pattern: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> [Int] {
    var found: [Int] = []
    guard let first = pattern.first, bytes.count >= pattern.count else { return found }
    let last = bytes.count - pattern.count
    var offset = 0
    scan: while offset <= last, found.count < limit {
      defer { offset += 1 }
      guard lowercased(bytes[offset]) == first else { continue }
      if offset > 0, isWordByte(bytes[offset - 1]) { continue }
      for index in 1..<pattern.count where lowercased(bytes[offset + index]) != pattern[index] { continue scan }
      found.append(offset)
    }
    return found
  }

  private static func lowercased(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte }

  /// Letters, digits and every byte of a multi-byte character.
  private static func isWordByte(_ byte: UInt8) -> Bool {
    byte >= 0x80 || (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
  }

  /// `offset`, moved back to the start of the character it falls in.
  private static func boundary(_ offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
    var offset = min(offset, bytes.count)
    while offset > 0, offset < bytes.count, bytes[offset] & 0xC0 == 0x80 { offset -= 1 }
    return offset
  }
}
