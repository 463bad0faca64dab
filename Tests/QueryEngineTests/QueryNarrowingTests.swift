import Testing
@testable import QueryEngine

/// A query narrowed to a facet's group: the condition joins the predicate of every search a
/// reply can show, on the syntax tree, so that every form a query takes stays valid.
@Suite struct QueryNarrowingTests {
  static let condition = #"domainIdentifier == "trails""#

  @Test(arguments: [
    // A bare predicate, and a pipeline.
    (#""lake""#, #"("lake") && domainIdentifier == "trails""#),
    (#"search "lake" || "glacier"^2 | top 5"#, #"search ("lake" || "glacier"^2) && domainIdentifier == "trails" | top 5"#),
    // The built-in planner's known-item form: both searches, the merge untouched.
    (
      #"ranked = search "review"s^2 || "budget"s^2 | top 1000; titled = search title == "budget review"cd; merge(ranked, titled) | top 10"#,
      #"ranked = search ("review"s^2 || "budget"s^2) && domainIdentifier == "trails" | top 1000; titled = search (title == "budget review"cd) && domainIdentifier == "trails"; merge(ranked, titled) | top 10"#
    ),
    // `|`, `;` and `&&` inside strings are text, and a `let` keeps its value.
    (
      #"let best = search * | stats max(rating); search title != "a | b; c && d" && rating == $best"#,
      #"let best = search * | stats max(rating); search (title != "a | b; c && d" && rating == $best) && domainIdentifier == "trails""#
    ),
    // A reference narrows through the search it names.
    (#"hikes = search keywords == "summit"; hikes | count"#, #"hikes = search (keywords == "summit") && domainIdentifier == "trails"; hikes | count"#),
  ])
  func everySearchAReplyShowsIsNarrowed(_ query: String, _ expected: String) throws {
    #expect(QueryNarrowing.narrowed(query, by: Self.condition) == expected)
    _ = try Parser.parse(SourceText(expected))
  }

  @Test func aQueryWithNothingToNarrowGivesNothing() {
    #expect(QueryNarrowing.narrowed(#"title == "june"#, by: Self.condition) == nil, "it does not parse")
    #expect(QueryNarrowing.narrowed(#"let n = search * | count"#, by: Self.condition) == nil, "a let alone")
    #expect(QueryNarrowing.narrowed(#""lake""#, by: "rating >") == nil, "the narrowed text does not parse")
  }

  /// The condition's literal is the value itself, whatever it holds: wildcards, quotes and
  /// backslashes are escaped, so it is compared exactly; no value is the attribute's absence.
  @Test(arguments: [#"Trails"#, #"a*b?c"#, #"say "hi" \ bye"#, "two\nlines", "*", "Ünïcödé ✓"])
  func aGroupsConditionComparesItsValueExactly(_ value: String) throws {
    let text = QueryNarrowing.condition("title", equals: value)
    let expression = try Parser.parseExpression(SourceText(text))
    guard case .comparison(.equal, let left, let right, _) = expression.kind, case .identifier("title") = left.kind,
      case .string(let literal) = right.kind
    else {
      Issue.record("\(text) is not title == \"...\"")
      return
    }
    #expect(literal.text == value)
    let wildcards = Set(value.unicodeScalars.enumerated().filter { $0.element == "*" || $0.element == "?" }.map(\.offset))
    #expect(literal.escapedWildcards == wildcards, "every wildcard is literal")
    #expect(QueryNarrowing.condition("title", equals: nil) == #"title != "*""#)
  }
}
