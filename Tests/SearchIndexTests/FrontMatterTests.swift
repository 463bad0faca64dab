import Testing
@testable import SearchIndex

@Suite struct FrontMatterTests {
  /// A comparable view of a front-matter value.
  enum Value: Equatable {
    case scalar(String, quoted: Bool)
    case list([String], quoted: [Bool])

    init(_ value: FrontMatter.Value) {
      switch value {
      case .scalar(let text, let quoted): self = .scalar(text, quoted: quoted)
      case .list(let elements): self = .list(elements.map(\.0), quoted: elements.map(\.quoted))
      }
    }
  }

  func entries(_ front: FrontMatter) -> [(key: String, value: Value, line: Int)] {
    front.entries.map { ($0.key, Value($0.value), $0.line) }
  }

  /// The error a text raises, as (line, message); nil when it parses.
  func failure(_ text: String) -> (line: Int, text: String)? {
    do {
      _ = try FrontMatter.parse(text)
      return nil
    } catch {
      return (error.line, error.text)
    }
  }

  @Test func textWithoutALeadingRuleHasNoFrontMatter() throws {
    let text = "# Title\n\nkey: value\n---\n"
    let front = try FrontMatter.parse(text)
    #expect(front.entries.isEmpty)
    #expect(front.body == Substring(text))
    #expect(front.lineCount == 0)
  }

  @Test func readsKeysValuesAndFileLineNumbers() throws {
    let front = try FrontMatter.parse("""
      ---
      title: Sourdough starter

      # a comment
      rating: 4
      done: true
      ---
      # Heading
      Body text.
      """)
    let got = entries(front)
    #expect(got.map(\.key) == ["title", "rating", "done"])
    #expect(got.map(\.value) == [
      .scalar("Sourdough starter", quoted: false), .scalar("4", quoted: false), .scalar("true", quoted: false),
    ])
    #expect(got.map(\.line) == [2, 5, 6])
    #expect(front.lineCount == 7)
    #expect(front.body == "# Heading\nBody text.")
  }

  @Test func valuesMayContainColonsAndAreTrimmed() throws {
    let front = try FrontMatter.parse("---\nurl:   https://example.com:8080/x  \n---\n")
    #expect(entries(front).map(\.value) == [.scalar("https://example.com:8080/x", quoted: false)])
  }

  @Test func quotedStringsKeepTheirTextAndDecodeEscapes() throws {
    let front = try FrontMatter.parse(#"""
      ---
      title: "2026"
      subject: "say \"hi\"\nthen: leave"
      empty: ""
      ---
      """#)
    #expect(entries(front).map(\.value) == [
      .scalar("2026", quoted: true), .scalar("say \"hi\"\nthen: leave", quoted: true), .scalar("", quoted: true),
    ])
  }

  @Test func readsFlowLists() throws {
    let front = try FrontMatter.parse(#"""
      ---
      keywords: [baking, recipe, "flour, water"]
      empty: []
      spaced: [ a ,  b c ]
      blanks: ["", x]
      ---
      """#)
    #expect(entries(front).map(\.value) == [
      .list(["baking", "recipe", "flour, water"], quoted: [false, false, true]),
      .list([], quoted: []),
      .list(["a", "b c"], quoted: [false, false]),
      .list(["", "x"], quoted: [true, false]),
    ])
  }

  @Test func aDotsLineAlsoClosesTheBlock() throws {
    let front = try FrontMatter.parse("---\ntitle: A\n...\nbody\n")
    #expect(entries(front).map(\.key) == ["title"])
    #expect(front.body == "body\n")
  }

  @Test func acceptsWindowsLineEndings() throws {
    let front = try FrontMatter.parse("---\r\ntitle: A\r\nrating: 3\r\n---\r\nbody\r\n")
    #expect(entries(front).map(\.value) == [.scalar("A", quoted: false), .scalar("3", quoted: false)])
    #expect(front.body == "body\r\n")
  }

  @Test func skipsAByteOrderMarkBeforeTheBlock() throws {
    let front = try FrontMatter.parse("\u{FEFF}---\ntitle: A\n---\nbody\n")
    #expect(entries(front).map(\.key) == ["title"])
    #expect(front.body == "body\n")
  }

  @Test(arguments: [
    ("---\ntitle: A\n", 1, "front matter starting here is not closed by a '---' line"),
    ("---\ntitle: A\njust words\n---\n", 3, "expected 'key: value' in front matter"),
    ("---\n: value\n---\n", 2, "empty key in front matter"),
    ("---\na: 1\nkeywords: [a, b\n---\n", 3, "list is not closed by ']'"),
    ("---\nkeywords: [\"a, b]\n---\n", 2, "unterminated quoted string in list"),
    ("---\ntitle: \"open\n---\n", 2, "unterminated quoted string"),
    ("---\ntitle: \"\n---\n", 2, "unterminated quoted string"),
  ])
  func malformedBlocksReportTheirLine(_ text: String, _ line: Int, _ message: String) {
    let error = failure(text)
    #expect(error?.line == line)
    #expect(error?.text == message)
  }

  /// Texts made of pieces that separate lines or not (a lone "\r", "\r\n" as one Character,
  /// other Unicode line breaks, combining marks after spaces), deterministic.
  static func randomTexts(count: Int, seed: UInt64) -> [String] {
    let pieces = ["a", "bc", "\n", "\r\n", "\r", "\u{85}", "\u{2028}", " ", "\t", " \u{301}", "é", "e\u{301}", "---", "#"]
    var state = seed
    func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
    return (0..<count).map { _ in (0..<next(14)).map { _ in pieces[next(pieces.count)] }.joined() }
  }

  /// Lines taken one at a time (front matter reads no further than it needs) are exactly the
  /// lines `split` cuts, for both separator rules the importers use.
  @Test func linesOneAtATimeAreTheSplitLines() {
    let rules: [(Character) -> Bool] = [{ $0 == "\n" || $0 == "\r\n" }, \.isNewline]
    for text in Self.randomTexts(count: 2_000, seed: 7) {
      for rule in rules {
        let lines = TextLines(Substring(text), separatedBy: rule)
        let taken = Array(sequence(state: lines) { $0.next() }).map(String.init)
        let split = text.split(omittingEmptySubsequences: false, whereSeparator: rule).map(String.init)
        #expect(taken == split, "\(text.unicodeScalars.map { $0.value })")
      }
    }
  }

  /// Trimming by index equals trimming a character at a time (as before), including a
  /// space carrying a combining mark, which is not trimmed.
  @Test func trimmingEqualsTrimmingACharacterAtATime() {
    func reference(_ text: String, _ set: String) -> String {
      let scalars = Set(set.unicodeScalars)
      let trimmable = { (character: Character) in character.unicodeScalars.allSatisfy(scalars.contains) }
      var s = Substring(text)
      while let first = s.first, trimmable(first) { s = s.dropFirst() }
      while let last = s.last, trimmable(last) { s = s.dropLast() }
      return String(s)
    }
    for text in Self.randomTexts(count: 2_000, seed: 11) {
      #expect(text.trimming(" \t\r\n") == reference(text, " \t\r\n"), "\(text.unicodeScalars.map { $0.value })")
      var trailing = Substring(text)
      while let last = trailing.last, last == " " || last == "\t" || last == "\r" { trailing = trailing.dropLast() }
      #expect(text.trimmingTrailingWhitespace == trailing)
    }
    #expect(" \u{301}x \n".trimming(" \n") == " \u{301}x")
  }
}
