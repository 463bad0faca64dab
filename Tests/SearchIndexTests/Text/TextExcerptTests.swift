import SearchIndex
import Testing

/// The parts of a long text read for some words: the beginning and the lines around the
/// words' first places; short texts whole.
@Suite struct TextExcerptTests {
  /// A text of `lines` lines of filler (each with a two-byte letter, so cuts meet
  /// multi-byte characters), with `line` inserted after the `at`th.
  static func longText(lines: Int = 12_000, inserting line: String, at: Int) -> String {
    var text = (0..<lines).map { "filler line \($0) with café and nothing else to say here" }
    text.insert(line, at: at)
    return text.joined(separator: "\n")
  }

  @Test func aShortTextIsReadWhole() {
    let text = "Short note.\nIt mentions the needle."
    let excerpt = TextExcerpt.excerpt(of: text, around: ["needle"])
    #expect(excerpt.text == text && excerpt.isWhole)
  }

  @Test func aLongTextIsReadAtItsBeginningAndWhereTheWordsAre() {
    let text = Self.longText(inserting: "The Needle is deep inside this text.", at: 9_000)
    #expect(text.utf8.count > TextExcerpt.wholeTextLimit)
    let excerpt = TextExcerpt.excerpt(of: text, around: ["needle"])
    #expect(!excerpt.isWhole)
    let lines = excerpt.text.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.first == "filler line 0 with café and nothing else to say here")
    #expect(lines.contains("The Needle is deep inside this text."), "the line of the place, whole")
    #expect(excerpt.text.utf8.count < 40 * 1024, "\(excerpt.text.utf8.count) bytes")
    #expect(!excerpt.text.unicodeScalars.contains("\u{FFFD}"), "cut inside a character")
    // Only where a word starts: "needles" starts with it, "haystackneedle" does not.
    let inside = Self.longText(inserting: "a haystackneedle here", at: 9_000)
    #expect(!TextExcerpt.excerpt(of: inside, around: ["needle"]).text.contains("haystackneedle"))
    // Nothing found: the beginning alone.
    let nothing = TextExcerpt.excerpt(of: text, around: ["absent"])
    #expect(!nothing.isWhole && !nothing.text.contains("Needle") && nothing.text.hasPrefix("filler line 0"))
  }

  /// Every word gets its share of the places: a word that occurs on every line does not
  /// crowd out one that occurs once, late.
  @Test func aCommonWordLeavesRoomForARareOne() {
    let text = Self.longText(inserting: "the rare zeppelin line", at: 11_000)
    let excerpt = TextExcerpt.excerpt(of: text, around: ["filler", "zeppelin"])
    #expect(excerpt.text.contains("the rare zeppelin line"))
  }

  @Test func aWordIsLookedForByItsStem() {
    #expect(TextExcerpt.needle(for: "Documentation") == "document")
    #expect(TextExcerpt.needle(for: "studies") == "stud")
    #expect(TextExcerpt.needle(for: "tmux") == "tmux")
    #expect(TextExcerpt.needle(for: "Waterfall*") == "waterfal")
  }
}
