/// Cuts streamed answer text into sentences as they complete, for the grounding check.
///
/// A sentence ends at a line break, or at `.`, `!` or `?` (after any closing quotes or
/// brackets) once the next character is white space: a number such as `4.5` never ends one,
/// and the end is known only when the character after it has arrived.
///
/// In `passThrough` mode every piece of text comes out at once, split only where a sentence
/// ends inside it, with each completed sentence reported right after its text (so a marker can
/// follow it). Otherwise text is held back until its sentence is complete and comes out as
/// that sentence, so it can be dropped.
struct SentenceStream {
  enum Output: Equatable {
    /// Text to show now (pass-through only).
    case text(String)
    /// A completed sentence: in pass-through mode already shown; otherwise its text,
    /// including the white space before it, to show or drop.
    case sentence(String)
  }

  let passThrough: Bool
  /// Text of the sentence in progress (shown already in pass-through mode).
  private var pending = ""

  init(passThrough: Bool) {
    self.passThrough = passThrough
  }

  mutating func feed(_ piece: String) -> [Output] {
    var outputs: [Output] = []
    let combined = Array(pending + piece)
    let shownBefore = pending.count
    var sentenceStart = 0
    var pieceStart = shownBefore
    for index in shownBefore..<combined.count where Self.endsSentence(combined, at: index) {
      if passThrough, index > pieceStart {
        outputs.append(.text(String(combined[pieceStart..<index])))
        pieceStart = index
      }
      outputs.append(.sentence(String(combined[sentenceStart..<index])))
      sentenceStart = index
    }
    if passThrough, pieceStart < combined.count {
      outputs.append(.text(String(combined[pieceStart...])))
    }
    pending = String(combined[sentenceStart...])
    return outputs
  }

  /// The last sentence, at the end of the text; nil when only white space is left.
  mutating func finish() -> Output? {
    defer { pending = "" }
    guard pending.contains(where: { !$0.isWhitespace }) else {
      // Trailing white space still belongs to the text when it is held back.
      return passThrough || pending.isEmpty ? nil : .sentence(pending)
    }
    return .sentence(pending)
  }

  /// Whether a sentence ends just before `characters[index]`: a line break, or white space
  /// after `.`, `!` or `?` and any closing quotes and brackets.
  static func endsSentence(_ characters: [Character], at index: Int) -> Bool {
    let character = characters[index]
    guard character.isWhitespace, index > 0 else { return false }
    if character.isNewline { return true }
    var before = index - 1
    while before > 0, "\"'”’)]*_".contains(characters[before]) { before -= 1 }
    return ".!?".contains(characters[before])
  }
}
