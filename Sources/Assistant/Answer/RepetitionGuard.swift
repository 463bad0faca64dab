import SearchIndex

/// Notices a model stuck in a loop while it streams, so the answer loop can stop the request
/// instead of waiting for the token limit or the timeout.
///
/// Small models on a CPU degenerate into repeating one line or phrase; a 135M model once
/// repeated one line until a 300 s timeout. The guard watches the words of the text (case and
/// punctuation ignored) and the lines, and trips on:
/// - the same run of words three or more times back to back, covering at least
///   `minimumLoopWords` words (`"the trail the trail the trail …"`, a sentence said thrice);
/// - a run of `longRunWords` or more words said twice back to back;
/// - the same line of four or more words `repeatedLineLimit` times anywhere in the text.
///
/// Prose that merely reuses words (a list of items that share a phrase, a name said in every
/// sentence) never meets these bounds.
package struct RepetitionGuard: Sendable {
  /// Words a back-to-back loop must cover (repeats times its length) before it counts.
  package static let minimumLoopWords = 24
  /// A run this long said twice in a row is a loop by itself.
  package static let longRunWords = 16
  /// Occurrences of one line (of four or more words) that make a loop.
  package static let repeatedLineLimit = 3
  /// Longest period looked for, in words.
  static let maximumPeriod = 64
  /// Words kept for the check; older ones cannot be part of a loop the check still finds.
  static let window = 512

  /// Hashes of the folded words seen so far (the last `window`).
  private var words: [Int] = []
  /// The word being written, not yet ended by a separator.
  private var partialWord = ""
  /// The line being written.
  private var partialLine = ""
  private var lineCounts: [String: Int] = [:]
  /// True once a loop has been seen; it stays true.
  package private(set) var tripped = false

  package init() {}

  /// Adds a piece of streamed text; true when the text is now looping.
  @discardableResult
  package mutating func feed(_ piece: String) -> Bool {
    guard !tripped else { return true }
    for character in piece {
      if character == "\n" {
        endWord()
        endLine()
      } else {
        partialLine.append(character)
        if character.isLetter || character.isNumber {
          partialWord.append(character)
        } else {
          endWord()
        }
      }
      if tripped { return true }
    }
    return false
  }

  private mutating func endWord() {
    guard !partialWord.isEmpty else { return }
    words.append(TextFolding.fold(partialWord).hashValue)
    partialWord = ""
    if words.count > Self.window * 2 { words.removeFirst(words.count - Self.window) }
    // Checked per word, so a loop inside one long piece is caught where it starts to count.
    if loopsAtTheEnd() { tripped = true }
  }

  private mutating func endLine() {
    let line = TextFolding.fold(partialLine).split(whereSeparator: { !$0.isLetter && !$0.isNumber }).joined(separator: " ")
    partialLine = ""
    guard line.split(separator: " ").count >= 4 else { return }
    lineCounts[line, default: 0] += 1
    if lineCounts[line, default: 0] >= Self.repeatedLineLimit { tripped = true }
  }

  /// Whether the words end in a run repeated back to back often and long enough.
  private func loopsAtTheEnd() -> Bool {
    let count = words.count
    guard count >= 2 else { return false }
    for period in 1...min(Self.maximumPeriod, count / 2) {
      var repeats = 1
      while (repeats + 1) * period <= count, matches(period: period, back: repeats) {
        repeats += 1
      }
      let covered = repeats * period
      if repeats >= 3 && covered >= Self.minimumLoopWords { return true }
      if repeats >= 2 && period >= Self.longRunWords { return true }
    }
    return false
  }

  /// Whether the `period` words ending `back` periods before the end equal the last `period`.
  private func matches(period: Int, back: Int) -> Bool {
    let end = words.count
    let earlier = end - (back + 1) * period
    for offset in 0..<period where words[earlier + offset] != words[end - period + offset] {
      return false
    }
    return true
  }
}
