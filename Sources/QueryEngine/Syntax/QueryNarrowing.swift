/// A query narrowed to the items that also meet a condition, written as query text: what a
/// search page's facet runs when it is picked. Done on the syntax tree, so every form a query
/// takes narrows alike: a bare predicate, a pipeline, named statements merged
/// (`ranked = search ...; titled = search ...; merge(ranked, titled) | ...`, the built-in
/// planner's known-item form), strings that hold `|` or `;`.
public enum QueryNarrowing {
  /// `text` with `condition` ANDed to the predicate of every `search` whose items a reply
  /// can show: `search (P) && C` for each statement but a `let` (whose value, an average say,
  /// is not one of the items). The rest of the text is kept as written. Nil when `text` or
  /// the result does not parse, or no search can be narrowed (`merge` of names alone).
  public static func narrowed(_ text: String, by condition: String) -> String? {
    guard let syntax = try? Parser.parse(SourceText(text)) else { return nil }
    var insertions: [(offset: Int, text: String)] = []
    for statement in syntax.statements where !statement.isLet {
      guard case .search(let predicate, _)? = statement.pipeline.source else { continue }
      insertions.append((predicate.span.start, "("))
      insertions.append((predicate.span.end, ") && " + condition))
    }
    guard !insertions.isEmpty else { return nil }
    var bytes = Array(text.utf8)
    // From the end, so the offsets of the insertions still to make stay valid.
    for insertion in insertions.reversed() { bytes.insert(contentsOf: Array(insertion.text.utf8), at: insertion.offset) }
    let narrowed = String(decoding: bytes, as: UTF8.self)
    guard (try? Parser.parse(SourceText(narrowed))) != nil else { return nil }
    return narrowed
  }

  /// The condition that an attribute holds `value` exactly (`attribute == "value"`, every
  /// wildcard and quote escaped), or, for no value, that it is absent (`attribute != "*"`).
  public static func condition(_ attribute: String, equals value: String?) -> String {
    guard let value else { return attribute + " != \"*\"" }
    let wildcards = Set(value.unicodeScalars.enumerated().filter { $0.element == "*" || $0.element == "?" }.map(\.offset))
    let literal = StringLiteral(
      text: value, form: .doubleQuoted, escapedWildcards: wildcards, modifiers: "", modifierSpan: nil, boost: nil, boostSpan: nil)
    return attribute + " == " + SyntaxPrinter.text(Expression(.string(literal), SourceSpan(0, 0)))
  }
}
