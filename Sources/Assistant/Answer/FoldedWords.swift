import SearchIndex

/// The folded words of a text as the answer's sentence choice reads them: its runs of letters
/// and digits, folded (`TextFolding.fold(text).split { !$0.isLetter && !$0.isNumber }`).
///
/// ASCII lines are cut byte by byte, into the same words: Unicode's character properties, asked
/// once per character, cost most of choosing the sentences of a long document's answer (a
/// package's 95 KB changelog, ten of them for one question).
enum FoldedWords {
  static func of(_ text: String) -> [String] {
    // Folding goes scalar by scalar, so each line can be read alone.
    var words: [String] = []
    TextLines.forEach(in: text) { line, isASCII in
      if isASCII {
        appendASCIIWords(of: line, to: &words)
      } else {
        words += TextFolding.fold(String(decoding: line, as: UTF8.self)).split { !$0.isLetter && !$0.isNumber }.map(String.init)
      }
    }
    return words
  }

  private static func appendASCIIWords(of bytes: UnsafeBufferPointer<UInt8>, to words: inout [String]) {
    var start = -1
    for index in 0..<bytes.count {
      if isWordByte(bytes[index]) {
        if start < 0 { start = index }
      } else if start >= 0 {
        words.append(lowercased(UnsafeBufferPointer(rebasing: bytes[start..<index])))
        start = -1
      }
    }
    if start >= 0 { words.append(lowercased(UnsafeBufferPointer(rebasing: bytes[start...]))) }
  }

  /// True for an ASCII letter or digit.
  @inline(__always)
  static func isWordByte(_ byte: UInt8) -> Bool {
    byte &- 0x30 < 10 || (byte | 0x20) &- 0x61 < 26
  }

  /// True for an ASCII letter.
  @inline(__always)
  static func isLetterByte(_ byte: UInt8) -> Bool {
    (byte | 0x20) &- 0x61 < 26
  }

  /// True for what `Character.isWhitespace` says of an ASCII byte: tab to carriage return, space.
  @inline(__always)
  static func isWhitespaceByte(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte &- 0x09 < 5
  }

  private static func lowercased(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    String(unsafeUninitializedCapacity: bytes.count) { buffer in
      for (index, byte) in bytes.enumerated() { buffer[index] = byte &- 0x41 < 26 ? byte | 0x20 : byte }
      return bytes.count
    }
  }
}

/// The lines of a text, each with whether it is ASCII: a line feed ends every character and
/// every sentence, so a reader of words or sentences can take each line alone, an ASCII one
/// byte by byte.
enum TextLines {
  static func forEach(in text: String, _ body: (_ line: UnsafeBufferPointer<UInt8>, _ isASCII: Bool) -> Void) {
    var text = text
    text.withUTF8 { bytes in
      var lineStart = 0
      while lineStart < bytes.count {
        var lineEnd = lineStart
        var isASCII = true
        while lineEnd < bytes.count, bytes[lineEnd] != 0x0A {
          if bytes[lineEnd] >= 0x80 { isASCII = false }
          lineEnd += 1
        }
        body(UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd]), isASCII)
        lineStart = lineEnd + 1
      }
    }
  }
}
