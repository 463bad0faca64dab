import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex

@Suite struct ParserTests {
  /// The tree `searchlight parse` prints, without the statement/search header lines.
  func tree(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> String {
    do {
      let query = try Parser.parse(SourceText(text))
      return SyntaxPrinter.tree(query)
    } catch {
      Issue.record("\(text) does not parse:\n\(error)", sourceLocation: sourceLocation)
      return ""
    }
  }

  func predicateTree(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> String {
    tree(text, sourceLocation: sourceLocation).split(separator: "\n").dropFirst(2).map { String($0.dropFirst(4)) }.joined(separator: "\n")
  }

  // MARK: Precedence

  @Test func andBindsTighterThanOr() {
    #expect(predicateTree("a == 1 || b == 2 && c == 3") == """
      or
        compare ==
          name a
          number 1
        and
          compare ==
            name b
            number 2
          compare ==
            name c
            number 3
      """)
    #expect(predicateTree("a == 1 && b == 2 || c == 3") == """
      or
        and
          compare ==
            name a
            number 1
          compare ==
            name b
            number 2
        compare ==
          name c
          number 3
      """)
  }

  @Test func parenthesesGroupFirst() {
    #expect(predicateTree("(a == 1 || b == 2) && c == 3") == """
      and
        or
          compare ==
            name a
            number 1
          compare ==
            name b
            number 2
        compare ==
          name c
          number 3
      """)
  }

  @Test func notAppliesToTheNextComparisonOnly() {
    #expect(predicateTree("!a == 1 && !(b == 2 || c == 3)") == """
      and
        not
          compare ==
            name a
            number 1
        not
          or
            compare ==
              name b
              number 2
            compare ==
              name c
              number 3
      """)
  }

  @Test func trueAndFalseAreBooleans() {
    #expect(predicateTree("true || !false") == "or\n  true\n  not\n    false")
  }

  @Test func orAndAndAreLeftAssociative() {
    #expect(predicateTree("a == 1 || b == 2 || c == 3").hasPrefix("or\n  or\n"))
  }

  @Test func arithmeticBindsTighterThanComparison() {
    #expect(predicateTree("rating / 5 + 1 > 2 * 3") == """
      compare >
        +
          /
            name rating
            number 5
          number 1
        *
          number 2
          number 3
      """)
  }

  @Test(arguments: [("==", "=="), ("=", "=="), ("!=", "!="), ("<", "<"), (">", ">"), ("<=", "<="), (">=", ">=")])
  func comparisonOperators(written: String, parsed: String) {
    #expect(predicateTree("rating \(written) 3") == "compare \(parsed)\n  name rating\n  number 3")
  }

  // MARK: Values

  @Test(arguments: [
    (#"title == "june*""#, #"string "june*""#),
    ("title == 'june*'", #"string "june*" exact"#),
    ("title == june*", #"string "june*" bare"#),
    ("title == *.pdf", #"string "*.pdf" bare"#),
    ("title == *", #"string "*" bare"#),
    ("title == j?ne", #"string "j?ne" bare"#),
    ("d == 2026-05-01", #"string "2026-05-01" bare"#),
    ("d == 2026-05-01T08:00:00Z", #"string "2026-05-01T08:00:00Z" bare"#),
    ("rating == 4.5", "number 4.5"),
    ("rating == -3", "negate\n    number 3"),
    ("rating == 1e3", "number 1000"),
    ("d > 30d", "duration 2592000s"),
    ("title == waterfall", "name waterfall"),
    (#"title == "x"cdw"#, #"string "x" modifiers cdw"#),
    (#"title == "x"wdc"#, #"string "x" modifiers wdc"#),
    (#"title == "a\*b""#, #"string "a*b""#),
    (#"title == $maxState"#, "variable $maxState"),
    (#"d > $time.today(-7)"#, "time today(-7)"),
    (#"d > $time.now(+3600)"#, "time now(3600)"),
    (#"d > $time.iso(2026-10-01T00:00:00Z)"#, "time iso(2026-10-01T00:00:00Z)"),
  ])
  func valueForms(query: String, value: String) {
    let lines = predicateTree(query).split(separator: "\n", maxSplits: 2).map(String.init)
    #expect(lines.count == 3, "\(query)")
    #expect(lines.last == "  " + value, "\(query)")
  }

  @Test func bracketModifiersAttachToTheComparison() {
    #expect(predicateTree(#"title ==[cd] "x""#) == "compare == [cd]\n  name title\n  string \"x\"")
  }

  @Test func anyAttributeAndEveryAttribute() {
    #expect(predicateTree(#"* == "x""#) == "compare ==\n  any text attribute (*)\n  string \"x\"")
    #expect(predicateTree(#"** == "x""#) == "compare ==\n  any attribute (**)\n  string \"x\"")
    #expect(predicateTree("search *") == "any text attribute (*)")
  }

  @Test func inRangeIsACall() {
    #expect(predicateTree("InRange(distance, 2, 8)") == "call InRange\n  name distance\n  number 2\n  number 8")
  }

  @Test func aBareQuotedStringIsAPredicate() {
    #expect(predicateTree(#""june launch""#) == #"string "june launch""#)
  }

  // MARK: Pipelines and graphs

  @Test func pipelinesWithLabelsClausesAndCalls() {
    #expect(tree(#"search "x" | sort rating desc, title | top 5 as "Best" | custom(weight: 2, 3)"#) == """
      statement
        search
          string "x"
        stage sort
          clause
            name rating
            name desc
          name title
        stage top as "Best"
          number 5
        stage custom
          weight:
            number 2
          number 3
      """)
  }

  @Test func forkBranchesNamedStatementsLetAndMerge() {
    #expect(tree(#"let m = search * | count; a = search "x"; b = search "y"; merge(a, b) | fork (count as "N") (top 3 | text)"#) == """
      statement let m
        search
          any text attribute (*)
        stage count
      statement a =
        search
          string "x"
      statement b =
        search
          string "y"
      statement
        merge a, b
        stage fork
          branch
            stage count as "N"
          branch
            stage top
              number 3
            stage text
      """)
  }

  @Test func aDefinedNameIsAReferenceAndAnUndefinedOneIsAPredicate() {
    #expect(tree(#"hikes = search "hike"; hikes | count"#).contains("  from hikes"))
    #expect(tree("rating = 3").hasPrefix("statement\n  search\n    compare =="))
  }

  @Test func jsonCarriesKindsAndByteSpans() throws {
    let query = try Parser.parse(SourceText(#"é == "x"c | top 2"#))
    let json = SyntaxPrinter.json(query)
    let statement = try #require(json["statements"]?.arrayValue?.first)
    let predicate = try #require(statement["pipeline"]?["source"]?["predicate"])
    #expect(predicate["kind"] == "comparison")
    #expect(predicate["span"] == [0, 10])
    #expect(predicate["left"]?["span"] == [0, 2])
    #expect(predicate["right"] == ["kind": "string", "value": "x", "form": "doubleQuoted", "modifiers": "c", "span": [6, 10]])
    #expect(statement["pipeline"]?["stages"]?.arrayValue?.first?["span"] == [13, 18])
  }

  // MARK: Limits and recovery

  @Test func deepNestingIsAnErrorNotACrash() {
    let deep = String(repeating: "(", count: 5000) + "a == 1" + String(repeating: ")", count: 5000)
    #expect(parseDiagnostics(deep).first?.id == "parse.too-deep")
    let nots = String(repeating: "!", count: 5000) + "a == 1"
    #expect(parseDiagnostics(nots).first?.id == "parse.too-deep")
    let negations = "rating > " + String(repeating: "-", count: 5000) + "1"
    #expect(parseDiagnostics(negations).first?.id == "parse.too-deep")
  }

  @Test func moderateNestingParses() {
    let nested = String(repeating: "(", count: 100) + "a == 1" + String(repeating: ")", count: 100)
    #expect(parseDiagnostics(nested).isEmpty)
  }

  @Test func everyBadStageIsReportedInOneRun() {
    let found = parseDiagnostics(#"search "x" | top | sort , | fork (count)"#)
    #expect(found.map(\.id) == ["parse.empty-clause", "parse.fork-branches"])
  }

  @Test func diagnosticsAreSortedByPosition() {
    let found = parseDiagnostics("a @ b | | ~")
    #expect(found.map(\.span.start) == found.map(\.span.start).sorted())
    #expect(found.count >= 2)
  }

  @Test func parseExpressionRejectsTrailingInput() {
    #expect(throws: DiagnosticsError.self) { try Parser.parseExpression(SourceText("1 + 2 3")) }
    #expect((try? Parser.parseExpression(SourceText("0.6 * rating / 5")))?.span == SourceSpan(0, 16))
  }
}
