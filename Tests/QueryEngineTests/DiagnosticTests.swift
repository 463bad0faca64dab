import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex

/// Every diagnostic of the predicate language: its id, message, position and help.
@Suite struct DiagnosticTests {
  static let modifierHelp = "modifiers are c (ignore case), d (ignore diacritics), w (words), t (tokens)"
  /// Text searches also take s.
  static let searchModifierHelp = modifierHelp + ", s (any form of a word)"

  @Test func unknownAttributeSuggestsTheClosestName() {
    expectDiagnostic(#"titel == "x""#, DiagnosticSpec(
      id: "name.unknown-attribute", message: "unknown attribute 'titel'", column: 1, help: "did you mean 'title'?"))
    expectDiagnostic(#"rating > 3 && stateOrProvnce == "Utah""#, DiagnosticSpec(
      id: "name.unknown-attribute", message: "unknown attribute 'stateOrProvnce'", column: 15, help: "did you mean 'stateOrProvince'?"))
    expectDiagnostic(#"zzzzqqq == "x""#, DiagnosticSpec(
      id: "name.unknown-attribute", message: "unknown attribute 'zzzzqqq'", column: 1, help: nil))
  }

  /// Operators written as words of SQL or NSPredicate say what to write instead, with the
  /// user's attribute and string in the example; `and`, `or`, `not` and `like` carry a fix-it
  /// that makes the query valid.
  @Test func operatorWordsSayWhatToWrite() throws {
    let cases: [(String, DiagnosticSpec)] = [
      ("rating > 3 and distance < 5", .init(id: "parse.operator-word", message: "conditions are joined with '&&', not 'and'", column: 12,
                                            help: "write '&&' (and '||' for or, '!' for not)")),
      ("rating > 3 OR distance < 5", .init(id: "parse.operator-word", message: "either condition is written with '||', not 'or'", column: 12,
                                           help: "write '||' (and '&&' for and, '!' for not)")),
      ("not rating > 3", .init(id: "parse.operator-word", message: "a condition is negated with '!', not 'not'", column: 1,
                               help: "write '!' before the condition")),
      (#"title like "half*""#, .init(id: "parse.operator-word", message: "a pattern is compared with '=='", column: 7,
                                     help: #"write title == "half*" (* and ? are wildcards; c, d or w after the string ignore case, diacritics, or match words)"#)),
      (#"title CONTAINS "dome""#, .init(id: "parse.operator-word", message: "text inside a value is a pattern with '*' around it", column: 7,
                                        help: #"write title == "*dome*"c"#)),
      (#"title beginswith "half""#, .init(id: "parse.operator-word", message: "a value's start is a pattern that ends in '*'", column: 7,
                                          help: #"write title == "half*"c"#)),
      (#"stateOrProvince IN ("Utah", "Idaho")"#, .init(id: "parse.operator-word", message: "one of several values is written with '||'", column: 17,
                                                       help: #"write stateOrProvince == "a" || stateOrProvince == "b""#)),
      ("distance between 3 and 5", .init(id: "parse.operator-word", message: "a range is written with InRange or two comparisons", column: 10,
                                         help: "write InRange(distance, LOW, HIGH), or distance >= LOW && distance <= HIGH")),
    ]
    for (text, spec) in cases { expectDiagnostic(text, spec) }
    for (text, fixed) in [("rating > 3 and distance < 5", "rating > 3 && distance < 5"), ("rating > 3 or distance < 5", "rating > 3 || distance < 5"),
                          ("not rating > 3", "! rating > 3"), (#"title like "half*""#, #"title == "half*""#)] {
      let fixIts = try #require(failure(text)).primary.fixIts
      #expect(fixIts.count == 1, "\(text)")
      var bytes = Array(text.utf8)
      for fixIt in fixIts { bytes.replaceSubrange(fixIt.span.start..<fixIt.span.end, with: Array(fixIt.replacement.utf8)) }
      #expect(String(decoding: bytes, as: UTF8.self) == fixed)
      _ = try Parser.parse(SourceText(fixed))
    }
    // A word that is no operator keeps the general message.
    expectDiagnostic("rating > 3 extra", .init(id: "parse.expected-separator", message: "expected '|' or ';', found 'extra'", column: 12,
                                               help: "separate stages with '|' and statements with ';'"))
  }

  /// A date written as words that name a `$time` function suggests the function.
  @Test func dateWordsSuggestTheTimeFunction() throws {
    expectDiagnostic(#"dueDate > "last week""#, DiagnosticSpec(
      id: "type.mismatch", message: #"'dueDate' is a date; "last week" is not an ISO-8601 date"#, column: 11, help: "did you mean '$time.last_week'?"))
    expectDiagnostic("dueDate < Yesterday", DiagnosticSpec(
      id: "type.mismatch", message: #"'dueDate' is a date; "Yesterday" is not an ISO-8601 date"#, column: 11, help: "did you mean '$time.yesterday'?"))
    let fixIts = try #require(failure(#"dueDate >= "this_month""#)).primary.fixIts
    #expect(fixIts == [Diagnostic.FixIt(span: SourceSpan(11, 23), replacement: "$time.this_month")])
    // `iso` names a function that needs an argument: no suggestion.
    expectDiagnostic(#"dueDate > "iso""#, DiagnosticSpec(
      id: "type.mismatch", message: #"'dueDate' is a date; "iso" is not an ISO-8601 date"#, column: 11,
      help: "write a date such as 2026-05-01, $time.iso(2026-05-01T08:00:00Z) or $time.today(-7)"))
  }

  @Test func unknownAttributeCarriesAFixIt() throws {
    let error = try #require(failure(#"rating > 3 || titel == "x""#))
    #expect(error.primary.fixIts == [Diagnostic.FixIt(span: SourceSpan(14, 19), replacement: "title")])
  }

  @Test func typeMismatchOfTextAgainstANumber() throws {
    expectDiagnosticIgnoringMessage(#"rating == "high""#, id: "type.mismatch", column: 11, help: "compare it with a number, e.g. rating > 3")
    let error = try #require(failure(#"rating == "high""#))
    #expect(error.primary.message == #"'rating' is a number; "high" is text"#)
  }

  @Test func typeMismatchesOfDatesBooleansAndText() {
    expectDiagnostic(#"dueDate == "soon""#, DiagnosticSpec(
      id: "type.mismatch", message: #"'dueDate' is a date; "soon" is not an ISO-8601 date"#, column: 12,
      help: "write a date such as 2026-05-01, $time.iso(2026-05-01T08:00:00Z) or $time.today(-7)"))
    expectDiagnostic("title == true", DiagnosticSpec(
      id: "type.mismatch", message: "'title' is text; compare it with a quoted string", column: 10))
    expectDiagnostic("dueDate == true", DiagnosticSpec(id: "type.mismatch", message: "'dueDate' is a date; true/false is not", column: 12))
    expectDiagnostic("rating == $time.today", DiagnosticSpec(
      id: "type.mismatch", message: "'rating' is a number; the value is a date", column: 11, help: "compare it with a number, e.g. rating > 3"))
    expectDiagnostic("InRange(title, 2, 8)", DiagnosticSpec(
      id: "type.mismatch", message: "InRange needs numbers or dates matching 'title' (text)", column: 16))
  }

  @Test func orderingNeedsNumbersOrDates() {
    expectDiagnostic(#"title > "m""#, DiagnosticSpec(
      id: "type.ordering-string", message: "'>' needs a number or a date; 'title' is text", column: 1,
      help: #"compare text with == or != and patterns such as "june*"cd"#))
    expectDiagnostic(#"rating > "*""#, DiagnosticSpec(
      id: "type.ordering-presence", message: #"'> "*"' has no meaning"#, column: 10,
      help: #"use == "*" for items that have the attribute, != "*" for those without"#))
    expectDiagnostic("pinned > true", DiagnosticSpec(
      id: "type.ordering-bool", message: "'>' needs a number or a date; 'pinned' is true or false", column: 10))
  }

  @Test func anAttributeAloneIsNotACondition() {
    expectDiagnostic("rating", DiagnosticSpec(
      id: "type.not-a-condition", message: "'rating' is a number, not a condition", column: 1,
      help: #"compare it, e.g. rating == "*" for items that have it"#))
    expectDiagnostic("3", DiagnosticSpec(
      id: "type.not-a-condition", message: "expected a condition, found a number", column: 1,
      help: #"compare it, e.g. rating > 3, or search for text with "words""#))
  }

  @Test func comparingTwoAttributes() {
    expectDiagnostic("title == rating", DiagnosticSpec(
      id: "type.attribute-comparison", message: "comparing two attributes needs a value on the right", column: 10,
      help: #"quote the text to compare with: title == "rating""#))
  }

  @Test func unknownTimeFunctionSuggestsTheClosest() {
    expectDiagnostic("contentCreationDate > $time.tomorow", DiagnosticSpec(
      id: "time.unknown-function", message: "unknown $time function 'tomorow'", column: 23, help: "did you mean '$time.tomorrow'?"))
    expectDiagnostic("dueDate > $time.lastweek", DiagnosticSpec(
      id: "time.unknown-function", message: "unknown $time function 'lastweek'", column: 11, help: "did you mean '$time.last_week'?"))
    expectDiagnostic("dueDate > $time.iso(2026-13-45)", DiagnosticSpec(
      id: "time.invalid-iso", message: "'2026-13-45' is not an ISO-8601 date", column: 11,
      help: "write $time.iso(2026-10-01) or $time.iso(2026-10-01T08:00:00Z)"))
    expectDiagnostic("dueDate > $time.today(x)", DiagnosticSpec(
      id: "parse.expected-offset", message: "expected a signed number offset in $time.today(...)", column: 23,
      help: "write $time.today(-7) or $time.today(-7d) for seven days ago"))
    expectDiagnostic("dueDate > $time", DiagnosticSpec(
      id: "lex.time-function-missing", message: "expected a function after '$time'", column: 11,
      help: "write $time.now, $time.today, $time.this_month, ... or $time.iso(2026-10-01)"))
    expectDiagnostic("dueDate > $time.iso(2026-10-01", DiagnosticSpec(
      id: "lex.unterminated-iso", message: "$time.iso( is not closed by ')'", column: 11))
  }

  @Test func datesTooFarAwayAreDiagnosedNotCrashes() {
    for query in ["dueDate > $time.today(-1e99)", "dueDate > $time.now(1e300)", "dueDate == $time.this_year(1e18)", "dueDate > $time.this_week(1e15)"] {
      guard let error = failure(query) else { continue }
      #expect(error.primary.id == "time.out-of-range", "\(query)")
      #expect(error.primary.message.hasPrefix("the offset of $time."), "\(query)")
      #expect(error.source.location(of: error.primary.span.start) == (1, query.hasPrefix("dueDate ==") ? 12 : 11))
    }
    expectDiagnostic("dueDate > 1e300", DiagnosticSpec(
      id: "time.out-of-range", message: "the date is too far from today", column: 11,
      help: "a number compared with a date counts seconds since 2001-01-01; dates must lie within about 100,000 years"))
    expectDiagnostic("InRange(dueDate, 0, -1e300)", DiagnosticSpec(
      id: "time.out-of-range", message: "the date is too far from today", column: 21,
      help: "a number compared with a date counts seconds since 2001-01-01; dates must lie within about 100,000 years"))
  }

  @Test func largeButRealisticOffsetsResolve() throws {
    for query in ["dueDate > $time.today(-36500)", "dueDate < $time.now(1e9)", "dueDate > $time.this_year(-2000)", "dueDate > 3e9"] {
      if case .failure(let error) = bind(query) { Issue.record("\(query): \(error)") }
    }
  }

  @Test func unknownModifierLetters() {
    expectDiagnostic(#"title == "x"cz"#, DiagnosticSpec(id: "modifier.unknown", message: "unknown modifier 'z'", column: 14, help: Self.modifierHelp))
    expectDiagnostic("title == 'x'q", DiagnosticSpec(id: "modifier.unknown", message: "unknown modifier 'q'", column: 13, help: Self.modifierHelp))
    expectDiagnostic(#""june"q"#, DiagnosticSpec(id: "modifier.unknown", message: "unknown modifier 'q'", column: 7, help: Self.searchModifierHelp))
    expectDiagnostic(#"title == "walks"s"#, DiagnosticSpec(id: "modifier.stem-comparison",
      message: "the s modifier (any form of a word) applies to text searches, not comparisons", column: 17,
      help: #"search the words instead (search "walks"s), or compare words with the w modifier"#))
    expectDiagnostic(#"title ==[q] "x""#, DiagnosticSpec(id: "modifier.unknown", message: "unknown modifier 'q'", column: 1, help: Self.modifierHelp))
    expectDiagnostic(#"title ==[cd "x""#, DiagnosticSpec(id: "lex.unterminated-modifiers", message: "modifier list is not closed by ']'", column: 9))
  }

  @Test func lexicalMistakes() {
    expectDiagnostic(#"title == "june"#, DiagnosticSpec(
      id: "lex.unterminated-string", message: "unterminated string", column: 10, help: #"add a closing ""#))
    expectDiagnostic(#"title == "x" @ rating > 3"#, DiagnosticSpec(
      id: "lex.unexpected-character", message: "unexpected character '@'", column: 14))
    expectDiagnostic("rating > 3 & distance < 5", DiagnosticSpec(
      id: "lex.single-ampersand", message: "'&' is not an operator", column: 12, help: "use '&&' for AND"))
    expectDiagnostic("$", DiagnosticSpec(
      id: "lex.empty-variable", message: "expected a name after '$'", column: 1,
      help: "write $time.today, $time.now(-3600) or a variable such as $maxState"))
  }

  @Test func chainedComparisons() {
    expectDiagnostic("rating > 1 < 5", DiagnosticSpec(
      id: "parse.chained-comparison", message: "comparisons cannot be chained", column: 12,
      help: "use InRange(attribute, low, high) or join two comparisons with &&"))
    expectDiagnostic("2 < distance < 8", DiagnosticSpec(
      id: "parse.chained-comparison", message: "comparisons cannot be chained", column: 14,
      help: "use InRange(attribute, low, high) or join two comparisons with &&"))
  }

  @Test(arguments: ["", "   ", "# only a comment", "\n\n", ";;"])
  func emptyQueries(text: String) throws {
    let error = try #require(failure(text))
    #expect(error.primary.id == "parse.empty")
    #expect(error.primary.message == "empty query")
    #expect(error.primary.help?.hasPrefix(#"write a predicate such as title == "june*"cd"#) == true)
    #expect(error.primary.span.end <= text.utf8.count)
  }

  @Test func expectedValues() {
    let valueHelp = #"compare with a quoted string, a number or a date, e.g. title == "june*"cd"#
    expectDiagnostic("title ==", DiagnosticSpec(id: "parse.expected-value", message: "expected a value after '=='", column: 9, help: valueHelp))
    expectDiagnostic("title == )", DiagnosticSpec(id: "parse.expected-value", message: "expected a value after '=='", column: 10, help: valueHelp))
    expectDiagnostic("rating >= | count", DiagnosticSpec(id: "parse.expected-value", message: "expected a value after '>='", column: 11, help: valueHelp))
    expectDiagnostic("rating > 3 && ,", DiagnosticSpec(
      id: "parse.expected-value", message: "expected a value, found ','", column: 15,
      help: #"a predicate looks like title == "june*"cd, rating > 3, or "words to search""#))
  }

  @Test func parenthesesAndPipes() {
    expectDiagnostic("(rating > 3", DiagnosticSpec(
      id: "parse.expected-paren", message: "expected ')', found end of query", column: 12, help: "close the parenthesis opened here"))
    expectDiagnostic("search | count", DiagnosticSpec(
      id: "parse.expected-predicate", message: "expected a predicate after 'search'", column: 8,
      help: #"write search * for every item, or search "words", or search title == "x"cd"#))
    expectDiagnostic(#"search "x" |"#, DiagnosticSpec(
      id: "parse.expected-stage", message: "expected a stage after '|'", column: 13,
      help: "add a stage such as 'top 5', 'count' or 'group by keywords', or remove the '|'"))
    expectDiagnostic(#""x" | | count"#, DiagnosticSpec(
      id: "parse.expected-stage", message: "expected a stage name, found '|'", column: 7,
      help: "stages are words such as where, sort, top, group, count, stats, table, text"))
  }

  @Test func searchesAndVariablesAndCalls() {
    expectDiagnostic(#""***""#, DiagnosticSpec(
      id: "text.empty", message: "the search text has no words", column: 1, help: #"search for words, e.g. "june launch""#))
    expectDiagnostic("stateOrProvince == $nowhere", DiagnosticSpec(
      id: "name.unknown-variable", message: "unknown variable '$nowhere'", column: 20,
      help: "bind it first: let nowhere = search ... | select max-by count"))
    expectDiagnostic("relevance > 1", DiagnosticSpec(
      id: "graph.computed-search", message: "a search compares stored attributes; computed values belong in 'where'", column: 1,
      help: "write search ... | where relevance > 1"))
    expectDiagnostic("InRange(distance, 2)", DiagnosticSpec(
      id: "call.arity", message: "InRange takes an attribute, a low and a high value", column: 1, help: "write InRange(distance, 2, 8)"))
    expectDiagnostic("foo(1) > 2", DiagnosticSpec(id: "call.unknown-function", message: "unknown function 'foo'", column: 1))
    expectDiagnostic("InRang(distance, 1, 2)", DiagnosticSpec(
      id: "call.unknown-function", message: "unknown function 'InRang'", column: 1, help: "did you mean 'InRange'?"))
  }

  @Test func positionsCountLinesAndCharactersNotBytes() {
    expectDiagnostic("rating > 3 &&\n  \"Zürich\" || titel == \"x\"", DiagnosticSpec(
      id: "name.unknown-attribute", message: "unknown attribute 'titel'", line: 2, column: 15, help: "did you mean 'title'?"))
    expectDiagnostic(#"title == "Zürich" && dueDate == "soon""#, DiagnosticSpec(
      id: "type.mismatch", message: #"'dueDate' is a date; "soon" is not an ISO-8601 date"#, column: 33,
      help: "write a date such as 2026-05-01, $time.iso(2026-05-01T08:00:00Z) or $time.today(-7)"))
  }

  @Test func everyStatementsProblemsAreReportedAtOnce() throws {
    let error = try #require(failure(#"a = search titel == "x"; b = search rating == "high"; merge(a, b, c)"#))
    #expect(error.diagnostics.map(\.id) == ["name.unknown-attribute", "type.mismatch", "graph.unknown-name"])
    #expect(error.diagnostics.map(\.span.start) == [11, 46, 66])
  }

  /// Like `expectDiagnostic`, for a diagnostic whose message is checked separately.
  func expectDiagnosticIgnoringMessage(_ text: String, id: String, column: Int, help: String?, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let error = failure(text, sourceLocation: sourceLocation) else { return }
    #expect(error.primary.id == id, sourceLocation: sourceLocation)
    #expect(error.source.location(of: error.primary.span.start) == (1, column), sourceLocation: sourceLocation)
    #expect(error.primary.help == help, sourceLocation: sourceLocation)
  }
}

@Suite struct DiagnosticRendererTests {
  @Test func theRenderedFormHasMessageLocationLineCaretAndHelp() throws {
    let error = try #require(failure(#"rating > 3 && titel == "x""#))
    #expect(DiagnosticRenderer.render(error) == """
      error: unknown attribute 'titel'
       --> query:1:15
        |
      1 | rating > 3 && titel == "x"
        |               ^~~~~
      help: did you mean 'title'?

      """)
  }

  @Test func theCaretIsOnTheRightLineOfAMultiLineQuery() throws {
    let error = try #require(failure("search *\n| where rating > 1 < 2\n| count"))
    #expect(DiagnosticRenderer.render(error.primary, in: error.source) == """
      error: comparisons cannot be chained
       --> query:2:20
        |
      2 | | where rating > 1 < 2
        |                    ^
      help: use InRange(attribute, low, high) or join two comparisons with &&

      """)
  }

  @Test func theCaretCountsCharactersAfterMultiByteText() throws {
    let error = try #require(failure(#"title == "Zürich" && ratng > 3"#))
    let rendered = DiagnosticRenderer.render(error)
    #expect(rendered.contains("\n1 | title == \"Zürich\" && ratng > 3\n  |                      ^~~~~\n"))
  }

  @Test func aSpanAtTheEndGetsOneCaret() throws {
    let error = try #require(failure("title =="))
    #expect(DiagnosticRenderer.excerpt(error.primary.span, in: error.source) == "  |\n1 | title ==\n  |         ^\n")
  }

  @Test func aSpanRunningPastItsLineIsCutAtTheLineEnd() {
    let source = SourceText("title == \"abc\ndef")
    #expect(DiagnosticRenderer.excerpt(SourceSpan(9, 17), in: source) == "  |\n1 | title == \"abc\n  |          ^~~~\n")
  }

  @Test func notesShowTheirPosition() {
    let source = SourceText("a == 1 || b == 2")
    let diagnostic = Diagnostic("x.test", "a test", at: SourceSpan(0, 1), notes: [.init("the other side", span: SourceSpan(10, 11)), .init("plain")])
    #expect(DiagnosticRenderer.render(diagnostic, in: source).hasSuffix("note: the other side (at 1:11)\nnote: plain\n"))
  }

  @Test func colourIsOnlyAddedWhenAsked() throws {
    let error = try #require(failure("titel == 1"))
    #expect(!DiagnosticRenderer.render(error).contains("\u{1B}["))
    #expect(DiagnosticRenderer.render(error, color: true).contains("\u{1B}[31m"))
  }

  @Test func theFileNameReplacesQuery() {
    let source = SourceText("x", name: "stages/notes.stage")
    #expect(DiagnosticRenderer.render(Diagnostic("x.y", "bad", at: SourceSpan(0, 1)), in: source).contains(" --> stages/notes.stage:1:1\n"))
  }
}
