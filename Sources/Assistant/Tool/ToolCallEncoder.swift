import Foundation
import QueryEngine
import SearchIndex

/// Writes a textual query as a tool call in Apple's `FullArguments` shape (`explain --json`,
/// `plan`): predicates become query nodes, a linear pipeline becomes stages with ids and
/// `from` references.
///
/// Not every query has an exact equivalent in that shape (scores, forks, named statements,
/// some modifier combinations); `encode(_:verifyingWith:)` checks that decoding the structured
/// form gives the same parsed query (compared as `RoundTripShape`s, trees without what the
/// round trip legitimately changes) and otherwise falls back to the `dsl` query type, so the
/// JSON always means exactly the query.
public struct ToolCallEncoder: Sendable {
  public init() {}

  /// Why a query has no structured form.
  struct Unsupported: Error { var reason: String }

  /// The tool call for `text`: structured when decoding it gives the same tree as `text`,
  /// else `{"type":"dsl"}`; `text` is type-checked with `executor`. Also says which form was
  /// used.
  public func encode(_ text: String, verifyingWith executor: QueryExecutor, options: QueryOptions) throws(QueryError) -> (json: JSONValue, structured: Bool, reason: String?) {
    try QueryError.catching { try verifiedEncoding(text, executor: executor, options: options) }
  }

  /// `encode`, untyped inside: parsing and type-checking `text`, encoding it, and decoding the
  /// structured form back to a parsed query to compare with `text`'s own tree.
  func verifiedEncoding(_ text: String, executor: QueryExecutor, options: QueryOptions) throws -> (json: JSONValue, structured: Bool, reason: String?) {
    let fallback: JSONValue = ["query": ["type": "dsl", "value": ["query": .string(text)]]]
    let syntax = try Parser.parse(SourceText(text))
    let structured: JSONValue
    do {
      structured = try encode(syntax)
    } catch let error as Unsupported {
      return (fallback, false, error.reason)
    }
    // A query that does not type-check has no structured form: its diagnostics are the caller's.
    _ = try executor.prepare(syntax, source: SourceText(text), options: options)
    let decoder = ToolCallDecoder(clock: options.clock, identity: options.identity)
    guard case .search(let request) = try decoder.decode(structured) else { return (fallback, false, "not a search") }
    // The decoded call's tree; a call the decoder could only give as text is that text parsed.
    let decoded = try request.syntax ?? Parser.parse(SourceText(request.query))
    if RoundTripShape.of(decoded) == RoundTripShape.of(syntax) { return (structured, true, nil) }
    return (fallback, false, "the structured form would mean a different query")
  }

  /// The structured form of a parsed query, or `Unsupported`.
  func encode(_ query: QuerySyntax) throws -> JSONValue {
    guard query.statements.count == 1, let statement = query.statements.first, statement.name == nil else {
      throw Unsupported(reason: "named statements and variables have no structured form")
    }
    guard case .search(let predicate, _)? = statement.pipeline.source else {
      throw Unsupported(reason: "only searches have a structured form")
    }
    let root = try node(predicate)
    if statement.pipeline.stages.isEmpty {
      throw Unsupported(reason: "a plain search returns every match; the tool returns pages")
    }
    var stages: [JSONValue] = []
    var query: JSONObject = [:]
    if let root { query["query"] = root } else { query["query"] = ["type": .string(AppleVocabulary.NodeKind.allText.rawValue), "value": ["terms": []]] }
    if root == nil { throw Unsupported(reason: "a search of every item has no query node") }
    stages.append(["id": "s0", "kind": Self.kind(.query, .object(query))])
    var previous = "s0"
    var grouped = false
    for (index, stage) in statement.pipeline.stages.enumerated() {
      let id = "s\(index + 1)"
      guard case .clauses(let clauses) = stage.arguments else { throw Unsupported(reason: "'\(stage.name)' has no structured form") }
      let kind: JSONValue
      switch (stage.name, clauses.count) {
      case ("where", 1) where clauses[0].count == 1:
        guard let filter = try node(clauses[0][0]) else { throw Unsupported(reason: "where *") }
        kind = Self.kind(.filter, ["from": .string(previous), "filterPredicate": filter])
      case ("sort", 1):
        guard let attribute = clauses[0].first?.identifierName else { throw Unsupported(reason: "sort by an expression") }
        let descending = clauses[0].count == 2 && clauses[0][1].identifierName == "desc"
        kind = Self.kind(.sort, ["from": .string(previous), "sortBy": .string(attribute), "sortOrder": descending ? "desc" : "asc"])
      case ("limit", 1) where clauses[0].count == 1:
        guard case .number(let n) = clauses[0][0].kind else { throw Unsupported(reason: "limit by a variable") }
        kind = Self.kind(.limit, ["from": .string(previous), "limit": .number(n)])
      case ("group", 1) where clauses[0].count == 2 && clauses[0][0].identifierName == "by":
        guard let attribute = clauses[0][1].identifierName else { throw Unsupported(reason: "group by an expression") }
        kind = Self.kind(.groupBy, ["from": .string(previous), "attribute": .string(attribute)])
        grouped = true
        stages.append(["id": .string(id), "kind": kind])
        previous = id
        continue
      case ("count", 0):
        kind = Self.kind(grouped ? .valueCount : .count, ["from": .string(previous)])
      default:
        throw Unsupported(reason: "'\(stage.name)' has no structured form")
      }
      grouped = false
      stages.append(["id": .string(id), "kind": kind])
      previous = id
    }
    if grouped { throw Unsupported(reason: "a pipeline ending in a group has no structured reply") }
    return ["query": ["type": "search", "value": ["pipeline": ["stages": .array(stages)]]]]
  }

  /// A predicate as a query node; nil for `*` (every item).
  func node(_ expression: QueryEngine.Expression) throws -> JSONValue? {
    switch expression.kind {
    case .anyAttribute: return nil
    case .binary(let op, let lhs, let rhs) where op == .and || op == .or:
      var children: [JSONValue] = []
      for side in [lhs, rhs] {
        // Flatten runs of the same operator.
        if case .binary(let inner, _, _) = side.kind, inner == op, let encoded = try node(side), let nested = Self.operation(encoded),
          nested.logic == (op == .and ? AppleVocabulary.Logic.all : .any).rawValue
        {
          children += nested.children
        } else if let child = try node(side) {
          children.append(child)
        } else {
          throw Unsupported(reason: "* inside an operation")
        }
      }
      return Self.node(.operation, ["logic": .string((op == .and ? AppleVocabulary.Logic.all : .any).rawValue), "children": .array(children)])
    case .unary(.not, let operand):
      guard let child = try node(operand) else { throw Unsupported(reason: "!*") }
      return Self.node(.operation, ["logic": .string(AppleVocabulary.Logic.none.rawValue), "children": [child]])
    case .string(let literal):
      guard literal.form == .doubleQuoted, literal.modifiers.isEmpty, literal.escapedWildcards.isEmpty else {
        throw Unsupported(reason: "phrases have no structured form")
      }
      return Self.node(.allText, ["terms": [.string(literal.text)]])
    case .comparison(let op, let lhs, let rhs, let bracket):
      guard bracket == nil, let attribute = lhs.identifierName else { throw Unsupported(reason: "comparison form") }
      return try comparison(op, attribute: attribute, rhs)
    case .call(let name, _, let arguments) where name == "InRange" && arguments.count == 3:
      guard let attribute = arguments[0].value.identifierName else { throw Unsupported(reason: "InRange form") }
      func bound(_ e: QueryEngine.Expression) throws -> String {
        switch e.kind {
        case .number(let n): return JSONValue.format(number: n)
        case .unary(.negate, let inner): if case .number(let n) = inner.kind { return JSONValue.format(number: -n) }
        default: break
        }
        throw Unsupported(reason: "InRange bounds other than numbers")
      }
      return predicate(attribute, .range, ["type": "array", "value": [.string(try bound(arguments[1].value)), .string(try bound(arguments[2].value))]], caseSensitive: nil)
    default:
      throw Unsupported(reason: "this predicate has no structured form")
    }
  }

  private static func operation(_ value: JSONValue) -> (logic: String, children: [JSONValue])? {
    guard value["type"]?.stringValue == AppleVocabulary.NodeKind.operation.rawValue, let logic = value["value"]?["logic"]?.stringValue,
      let children = value["value"]?["children"]?.arrayValue
    else { return nil }
    return (logic, children)
  }

  private func predicate(_ attribute: String, _ op: AppleVocabulary.PredicateOperator, _ value: JSONValue, caseSensitive: Bool?) -> JSONValue {
    var object: JSONObject = ["attribute": .string(attribute), "operator": .string(op.rawValue), "value": value]
    if let caseSensitive { object["caseSensitive"] = .bool(caseSensitive) }
    return Self.node(.predicate, .object(object))
  }

  /// `{"type": kind, "value": value}` for a query node, named from the vocabulary table.
  static func node(_ kind: AppleVocabulary.NodeKind, _ value: JSONValue) -> JSONValue {
    ["type": .string(kind.rawValue), "value": value]
  }

  /// `{"type": kind, "value": value}` for a stage, named from the vocabulary table.
  static func kind(_ kind: AppleVocabulary.StageKind, _ value: JSONValue) -> JSONValue {
    ["type": .string(kind.rawValue), "value": value]
  }

  private func comparison(_ op: ComparisonOperator, attribute: String, _ rhs: QueryEngine.Expression) throws -> JSONValue {
    var number: Double?
    switch rhs.kind {
    case .number(let n): number = n
    case .unary(.negate, let inner): if case .number(let n) = inner.kind { number = -n }
    default: break
    }
    if let number {
      let value: JSONValue = number == number.rounded() && abs(number) < 1e15 ? ["type": "int", "value": .number(number)] : ["type": "double", "value": .number(number)]
      guard let predicateOperator = AppleVocabulary.PredicateOperator(op) else { throw Unsupported(reason: "!= has no structured form") }
      return predicate(attribute, predicateOperator, value, caseSensitive: nil)
    }
    if case .boolean(let b) = rhs.kind, op == .equal {
      return predicate(attribute, .equals, ["type": "bool", "value": .bool(b)], caseSensitive: nil)
    }
    guard case .string(let literal) = rhs.kind, op == .equal, literal.escapedWildcards.isEmpty else {
      throw Unsupported(reason: "this comparison has no structured form")
    }
    let modifiers = Set(literal.modifiers)
    let text = literal.text
    let wild = literal.form != .singleQuoted
    let inner = text.trimmingCharacters(in: CharacterSet(charactersIn: "*"))
    let hasInnerWildcards = wild && (inner.contains("*") || inner.contains("?"))
    if hasInnerWildcards { throw Unsupported(reason: "wildcards inside a value") }
    let caseSensitive: Bool
    if modifiers.isEmpty {
      caseSensitive = true
    } else if modifiers == ["c", "d"] {
      caseSensitive = false
    } else if modifiers == ["c", "d", "w"] {
      guard !wild || (!text.hasPrefix("*") && !text.hasSuffix("*")) else { throw Unsupported(reason: "word wildcards") }
      return predicate(attribute, .containsWord, ["type": "string", "value": .string(text)], caseSensitive: false)
    } else {
      throw Unsupported(reason: "modifiers \(literal.modifiers) have no structured form")
    }
    let value: JSONValue = ["type": "string", "value": .string(wild ? inner : text)]
    if wild && text.hasPrefix("*") && text.hasSuffix("*") && text.count > 1 { return predicate(attribute, .slowInfix, value, caseSensitive: caseSensitive) }
    if wild && text.hasSuffix("*") && !text.hasPrefix("*") { return predicate(attribute, .prefix, value, caseSensitive: caseSensitive) }
    if wild && text.hasPrefix("*") { throw Unsupported(reason: "suffix patterns") }
    return predicate(attribute, .equals, value, caseSensitive: caseSensitive)
  }
}
