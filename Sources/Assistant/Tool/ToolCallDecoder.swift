import Foundation
import QueryEngine
import SearchIndex

/// Decodes tool calls of the shape Apple's SpotlightSearchTool hands to models
/// (`FullArguments`, see ../shared/reference/spotlight-tool-fullarguments.schema.json) into
/// queries of Searchlight's language, so a model's call becomes the same typed graph as a
/// typed query. Also accepts `{"query":{"type":"dsl","value":{"query":"..."}}}`.
///
/// Every problem is a `ToolCallError` naming the JSON path, what was expected and a corrected
/// example; nothing is silently dropped: what cannot be honoured exactly is reported in
/// `SearchRequest.notes`.
public struct ToolCallDecoder: Sendable {
  /// The clock temporal nodes resolve against.
  public var clock: QueryClock
  /// Who "me" is, for `personMe` nodes and `user` entities.
  public var identity: Identity
  /// Items per page when the call gives no `pageSize`.
  public var defaultPageSize = 20
  /// True when the index has embeddings: `semanticSimilar` becomes a `similar` search and the
  /// `semantic` ranking model scores by embedding similarity; otherwise both fall back to
  /// keywords and text relevance.
  public var hasEmbeddings: Bool
  /// The stages the executor knows, when the caller knows them: a `forEach` operation naming
  /// none of them is an instruction for a model, reported in band.
  public var stageNames: Set<String>?

  public init(clock: QueryClock, identity: Identity = Identity(), hasEmbeddings: Bool = false) {
    self.clock = clock
    self.identity = identity
    self.hasEmbeddings = hasEmbeddings
  }

  static let queryTypes = ["search", "schema", "help", "display", "dsl"]
  static let searchExample = #"{"query":{"type":"search","value":{"root":{"type":"allText","value":{"terms":["budget"]}},"pageSize":10}}}"#

  /// Decodes the tool call's arguments (the JSON text the model produced).
  public func decode(_ arguments: String) throws(ToolCallError) -> ToolRequest {
    let json: JSONValue
    do {
      json = try JSONParser.parse(arguments)
    } catch {
      throw ToolCallError(path: "$", message: "the arguments are not valid JSON: \(error.message) at line \(error.line), column \(error.column)",
                          example: Self.searchExample)
    }
    return try decode(json)
  }

  /// Decodes parsed arguments.
  public func decode(_ json: JSONValue) throws(ToolCallError) -> ToolRequest {
    let root = JSONCursor(json)
    try root.checkKeys(["query"], example: Self.searchExample)
    let query = try root.required("query", expected: "{\"type\": \"search\", \"value\": {...}}", example: Self.searchExample)
    let (type, value) = try query.discriminated(Self.queryTypes, what: "query", example: Self.searchExample)
    switch type {
    case "schema":
      guard let value else { throw query.fail("missing 'value'", example: #"{"type":"schema","value":{"queryType":"schema"}}"#) }
      try value.checkKeys(["queryType", "attribute", "contentType"])
      let kindText = try value.required("queryType", expected: "schema, attribute or content_type").string()
      guard let kind = SchemaRequest.Kind(rawValue: kindText == "contentType" ? "content_type" : kindText) else {
        throw ToolCallError(path: "\(value.path).queryType", message: "unknown queryType \"\(kindText)\"", expected: "schema, attribute or content_type",
                            example: #"{"queryType":"attribute","attribute":"stateOrProvince"}"#)
      }
      let attribute = try value.optional("attribute")?.string()
      if kind == .attribute, attribute == nil {
        throw ToolCallError(path: "\(value.path).attribute", message: "queryType attribute needs 'attribute'",
                            example: #"{"queryType":"attribute","attribute":"stateOrProvince"}"#)
      }
      return .schema(SchemaRequest(kind: kind, attribute: attribute, contentType: try value.optional("contentType")?.string()))
    case "help":
      let topic = try value?.optional("topic")?.string() ?? ""
      return .help(topic: topic)
    case "display":
      // Apple's display query asks the host to show results to the user; here the results a
      // search marks with autoDisplay are shown, and the answer says how.
      if let value {
        try value.checkKeys(["display"], example: #"{"type":"display","value":{"display":true}}"#)
        _ = try value.optional("display")?.bool()
      }
      return .help(topic: "display")
    case "dsl":
      guard let value else { throw query.fail("missing 'value'", example: #"{"type":"dsl","value":{"query":"search \"budget\" | top 5"}}"#) }
      try value.checkKeys(["query", "fetchAttributes", "pageSize", "cursor", "label"])
      let text = try value.required("query", expected: "a query in Searchlight's language").string()
      // Query text from the model: parsed when it runs, its diagnostics reported at this path.
      return .search(SearchRequest(
        query: text, fetchAttributes: try value.optional("fetchAttributes")?.strings(), namedAttributes: [],
        pageSize: try value.optional("pageSize")?.integer(in: 1...1000) ?? defaultPageSize, offset: try Self.offset(value),
        label: try value.optional("label")?.string(), autoDisplay: false, notes: [], marks: [(0..<text.utf8.count, "\(value.path).query")]))
    default:
      return .search(try decodeSearch(value ?? JSONCursor(.object(JSONObject()), path: "\(query.path).value")))
    }
  }

  // MARK: Search

  static let searchKeys = [
    "root", "source", "ranking", "modelComposition", "pipeline", "rankingMetadata", "scopes", "fetchAttributes", "pageSize",
    "cursor", "postFilters", "autoDisplay", "label",
  ]

  func decodeSearch(_ value: JSONCursor) throws(ToolCallError) -> SearchRequest {
    try value.checkKeys(Self.searchKeys, example: Self.searchExample)
    var state = DecodingState(decoder: self)
    let pageSize = try value.optional("pageSize")?.integer(in: 1...1000) ?? defaultPageSize
    let offset = try Self.offset(value)
    if let scopes = value.optional("scopes") {
      state.scopes = try scopes.strings()
    }
    state.source = try Self.source(value.optional("source"))
    state.postFilters = try Self.postFilters(value.optional("postFilters"))
    state.rankingMetadata = try state.rankingMetadata(value.optional("rankingMetadata"))
    let ranking = value.optional("modelComposition") ?? value.optional("ranking")
    var statements: [StatementFragment] = []
    if let pipeline = value.optional("pipeline") {
      // A query stage that is a reply returns the pages up to this one (and one more item).
      statements = try state.pipeline(pipeline, ranking: ranking, label: try value.optional("label")?.string(), pageSize: offset + pageSize)
    } else {
      var pipeline = try state.searchPredicate(value.optional("root"))
      try state.afterRetrieval(ranking: ranking, into: &pipeline)
      // One more than the page, to know whether another page exists; `top` keeps the best
      // by relevance or score, `limit` the first in the order rankingMetadata asked for.
      let keep = state.rankingMetadata == nil ? "top" : "limit"
      pipeline.append(StageFragment(keep, [[.integer(offset + pageSize + 1)]], label: try value.optional("label")?.string()))
      statements = [StatementFragment(pipeline: pipeline)]
    }
    let rendered = QueryRenderer.render(statements)
    return SearchRequest(
      query: rendered.text, fetchAttributes: try value.optional("fetchAttributes")?.strings(), namedAttributes: state.namedAttributes,
      pageSize: pageSize, offset: offset, label: try value.optional("label")?.string(),
      autoDisplay: try value.optional("autoDisplay")?.bool() ?? false, notes: state.notes,
      stageFetchAttributes: state.stageFetchAttributes, syntax: rendered.syntax, marks: rendered.marks)
  }

  /// Apple's `source` values and the items each covers: items indexed from files carry a
  /// `file:` contentURL; everything else was donated by an app (Core Spotlight's side).
  static let sources = ["all", "both", "coreSpotlight", "managed", "files"]

  /// The condition a `source` puts on the items; nil when it covers every item.
  static func source(_ cursor: JSONCursor?) throws(ToolCallError) -> QueryFragment? {
    guard let cursor else { return nil }
    let name = try cursor.string()
    switch name {
    case "all", "both": return nil
    case "coreSpotlight", "managed": return .compare(.name("contentURL"), .notEqual, .pattern("file:", trailing: true))
    case "files": return .compare(.name("contentURL"), .equal, .pattern("file:", trailing: true))
    default:
      var message = "unknown source \"\(name)\""
      if let suggestion = closestMatch(to: name, in: sources) { message += "; did you mean \"\(suggestion)\"?" }
      throw ToolCallError(path: cursor.path, message: message, expected: sources.joined(separator: ", "), example: #""source":"all""#)
    }
  }

  /// `postFilters`: Spotlight query strings, each checked to be one predicate (no stages, no
  /// statements), with the path of its entry.
  static func postFilters(_ cursor: JSONCursor?) throws(ToolCallError) -> [(text: String, predicate: QueryEngine.Expression, path: String)] {
    guard let cursor else { return [] }
    var filters: [(String, QueryEngine.Expression, String)] = []
    for entry in try cursor.array() {
      let text = try entry.string()
      let example = #"["rating > 3", "contentModificationDate >= $time.today(-30)"]"#
      guard text.contains(where: { !$0.isWhitespace }) else { throw entry.fail("the filter is empty", expected: "a Spotlight query string", example: example) }
      let syntax: QuerySyntax
      do {
        syntax = try Parser.parse(SourceText(text))
      } catch {
        let (line, column) = error.source.location(of: error.primary.span.start)
        throw ToolCallError(path: entry.path, message: "\(error.primary.message) (line \(line), column \(column))",
                            expected: error.primary.help ?? "a Spotlight query string", example: example)
      }
      guard syntax.statements.count == 1, let statement = syntax.statements.first, statement.name == nil, statement.pipeline.stages.isEmpty,
        case .search(let predicate, _)? = statement.pipeline.source
      else {
        throw entry.fail("a post filter is one predicate, without stages or statements", expected: "a Spotlight query string", example: example)
      }
      let bytes = Array(text.utf8)
      let start = predicate.span.start
      filters.append((String(decoding: bytes[start..<predicate.span.end], as: UTF8.self), predicate.mappingSpans { $0.shifted(by: -start) }, entry.path))
    }
    return filters
  }

  /// The items to skip, from the `cursor` an earlier result gave ("offset:20").
  static func offset(_ value: JSONCursor) throws(ToolCallError) -> Int {
    guard let cursor = try value.optional("cursor")?.string(), !cursor.isEmpty else { return 0 }
    guard let parsed = Int(cursor.hasPrefix("offset:") ? String(cursor.dropFirst(7)) : cursor), parsed >= 0 else {
      throw ToolCallError(path: "\(value.path).cursor", message: "unknown cursor \"\(cursor)\"", expected: "the cursor of an earlier result, e.g. \"offset:20\"")
    }
    return parsed
  }

  static func escapeLabel(_ label: String) -> String {
    label.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
  }
}

/// Mutable state while decoding one search: notes, named attributes, statement names.
struct DecodingState {
  let decoder: ToolCallDecoder
  var notes: [String] = []
  var namedAttributes: [String] = []
  var scopes: [String] = []
  /// The condition of the search's `source`, if it narrows the items.
  var source: QueryFragment?
  /// `postFilters`, applied after ranking.
  var postFilters: [(text: String, predicate: QueryEngine.Expression, path: String)] = []
  /// The order `rankingMetadata` asks for, as the clause of a sort stage, and its path.
  var rankingMetadata: (keys: [QueryFragment], path: String)?
  /// Per-stage `fetchAttributes`, by the label of the stage's reply.
  var stageFetchAttributes: [String: [String]] = [:]
  /// Whether a predicate needed Swift-only functions (recurring dates), so the search must
  /// filter with `where`.
  var needsSwiftFilter = false
  /// The phrase of the first `semanticSimilar` node, for the `semantic` ranking model.
  var semanticPhrase: String?

  init(decoder: ToolCallDecoder) { self.decoder = decoder }

  static let nodeTypes = AppleVocabulary.names(AppleVocabulary.NodeKind.self)
  static let nodeExample = #"{"type":"predicate","value":{"attribute":"title","operator":"prefix","value":{"type":"string","value":"June"}}}"#

  /// `search PREDICATE`: the root, scopes, source, and (for recurring dates) a where stage.
  mutating func searchPredicate(_ root: JSONCursor?, opens: [String] = []) throws(ToolCallError) -> PipelineFragment {
    let body: QueryFragment = if let root { try node(root) } else { .star }
    // A scope is a domain with its sub-domains, as `delete --domain` reads it: "mail" covers
    // mail.inbox and mail.sent.
    let scope = QueryFragment.or(scopes.flatMap { scope -> [QueryFragment] in
      [.compare(.name("domainIdentifier"), .equal, .pattern(scope)), .compare(.name("domainIdentifier"), .equal, .pattern(scope + ".", trailing: true))]
    })
    var narrowing: [QueryFragment] = []
    if !scopes.isEmpty { narrowing.append(.paren(scope)) }
    if let source { narrowing.append(.paren(source)) }
    if needsSwiftFilter {
      // Calendar parts of dates (recurring) are computed in Swift: filter after the search.
      var pipeline = PipelineFragment(.search(narrowing.isEmpty ? .star : .and(narrowing)), opens: opens)
      pipeline.append(StageFragment("where", [[body]]))
      return pipeline
    }
    return PipelineFragment(.search(.and(narrowing + [.paren(body)])), opens: opens)
  }

  /// What follows the retrieval of the search's main query: the ranking model's score, the
  /// post filters (after ranking, as Apple applies them), and the order `rankingMetadata` asks
  /// for.
  mutating func afterRetrieval(ranking: JSONCursor?, into pipeline: inout PipelineFragment) throws(ToolCallError) {
    if let ranking, let score = try rankingStage(ranking) { pipeline.append(score) }
    for filter in postFilters {
      pipeline.append(StageFragment("where", [[.marked(filter.path, .paren(.parsed(filter.text, filter.predicate)))]]))
    }
    if let order = rankingMetadata {
      var sort = StageFragment("sort", [order.keys])
      sort.argumentsPath = order.path
      pipeline.append(sort)
    }
  }

  /// `rankingMetadata`: how the results are ordered. Alphabetical and recency sort by an
  /// attribute (title and the modification date unless `sortAttribute` names another),
  /// temporal adjacency by the distance from now, relevance keeps the ranked order.
  mutating func rankingMetadata(_ cursor: JSONCursor?) throws(ToolCallError) -> (keys: [QueryFragment], path: String)? {
    guard let cursor else { return nil }
    let example = #"{"rankingType":"alphabetical","wasExplicit":true,"sortAttribute":"title","sortDirection":"ascending"}"#
    try cursor.checkKeys(["rankingType", "wasExplicit", "sortAttribute", "sortDirection"], example: example)
    let typeCursor = try cursor.required("rankingType", expected: "temporal-adjacency, recency, alphabetical or relevance", example: example)
    let type = try typeCursor.string()
    _ = try cursor.optional("wasExplicit")?.bool()
    let attribute = try cursor.optional("sortAttribute")?.string()
    if let attribute, !attribute.isEmpty {
      guard attribute.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
        throw ToolCallError(path: "\(cursor.path).sortAttribute", message: "\"\(attribute)\" is not an attribute name", expected: "an attribute name such as title")
      }
    }
    var descending: Bool?
    if let directionCursor = cursor.optional("sortDirection") {
      let direction = try directionCursor.string()
      switch direction.lowercased() {
      case "ascending", "asc": descending = false
      case "descending", "desc": descending = true
      default:
        throw ToolCallError(path: directionCursor.path, message: "unknown sortDirection \"\(direction)\"", expected: "ascending or descending")
      }
    }
    let chosen = attribute.flatMap { $0.isEmpty ? nil : Self.sortKey($0) }
    switch type {
    case "alphabetical":
      let key = chosen ?? "title"
      namedAttributes.append(key)
      return ([.name(key), .name(descending == true ? "desc" : "asc")], typeCursor.path)
    case "recency":
      let key = chosen ?? "contentModificationDate"
      namedAttributes.append(key)
      return ([.name(key), .name(descending == false ? "asc" : "desc")], typeCursor.path)
    case "temporal-adjacency", "temporalAdjacency":
      let key = chosen ?? "contentModificationDate"
      namedAttributes.append(key)
      // Closest to now first, in the past or the future.
      return ([.call("abs", [.arithmetic(.subtract, .name(key), .now)]), .name("asc")], typeCursor.path)
    case "relevance":
      if let chosen { return ([.name(chosen), .name(descending == false ? "asc" : "desc")], typeCursor.path) }
      return nil
    default:
      var message = "unknown rankingType \"\(type)\""
      if let suggestion = closestMatch(to: type, in: ["temporal-adjacency", "recency", "alphabetical", "relevance"]) { message += "; did you mean \"\(suggestion)\"?" }
      throw ToolCallError(path: typeCursor.path, message: message, expected: "temporal-adjacency, recency, alphabetical or relevance", example: example)
    }
  }

  // MARK: Nodes

  mutating func node(_ cursor: JSONCursor) throws(ToolCallError) -> QueryFragment {
    let (type, value) = try cursor.discriminated(Self.nodeTypes, what: "query node", example: Self.nodeExample)
    // allText also comes in the inline form Apple's runtime errors show,
    // {"type":"allText","terms":[...]}, and with the terms as the value itself.
    var inlineTerms: JSONCursor?
    if type == "allText" {
      if value == nil, let terms = cursor.optional("terms") {
        try cursor.checkKeys(["type", "terms"], example: #"{"type":"allText","value":{"terms":["budget"]}}"#)
        inlineTerms = terms
      } else if let value, case .array = value.value {
        inlineTerms = value
      }
    }
    guard let value = value ?? inlineTerms else { throw cursor.fail("missing 'value' of the \(type) node", example: Self.nodeExample) }
    if let inlineTerms { return .marked(cursor.path, try allTextTerms(inlineTerms)) }
    let fragment: QueryFragment
    switch type {
    case "operation": fragment = try operation(value)
    case "predicate": fragment = try predicate(value)
    case "contentType": fragment = try contentType(value)
    case "temporal": fragment = try temporal(value)
    case "person": fragment = try person(value)
    case "personMe": fragment = try personMe(value)
    case "allText": fragment = try allText(value)
    case "application", "documentsFor": fragment = try application(value, documents: type == "documentsFor")
    default: fragment = try semanticSimilar(value)
    }
    return .marked(cursor.path, fragment)
  }

  mutating func operation(_ value: JSONCursor) throws(ToolCallError) -> QueryFragment {
    try value.checkKeys(["logic", "children"])
    let logicCursor = try value.required("logic", expected: "all, any or none")
    let logic = try logicCursor.string()
    guard AppleVocabulary.Logic(rawValue: logic) != nil else {
      throw ToolCallError(path: logicCursor.path, message: "unknown logic \"\(logic)\"", expected: "all, any or none")
    }
    let children = try value.required("children", expected: "a non-empty array of query nodes").array()
    guard !children.isEmpty else {
      throw ToolCallError(path: "\(value.path).children", message: "an operation must have at least one child",
                          example: "[\(Self.nodeExample)]")
    }
    var operands: [QueryFragment] = []
    for child in children { operands.append(.paren(try node(child))) }
    let combined = QueryFragment.paren(logic == "all" ? .and(operands) : .or(operands))
    return logic == "none" ? .not(combined) : combined
  }

  /// The operator names, and "`in`" as models sometimes escape it.
  static let operators = AppleVocabulary.names(AppleVocabulary.PredicateOperator.self) + ["`in`"]

  /// A predicate value: text, number, Boolean, date, list or variable.
  enum Literal {
    case string(String)
    case number(Double)
    case bool(Bool)
    case date(String)
    case array([String])
    case variable(String)
  }

  func literal(_ cursor: JSONCursor) throws(ToolCallError) -> Literal {
    let example = #"{"type":"string","value":"June"}"#
    let (type, value) = try cursor.discriminated(["string", "int", "double", "bool", "date", "array", "variable"], what: "value", example: example)
    guard let value else { throw cursor.fail("missing 'value'", example: example) }
    switch type {
    case "string": return .string(try value.string())
    case "int": return .number(Double(try value.integer()))
    case "double": return .number(try value.number())
    case "bool": return .bool(try value.bool())
    case "date":
      let text = try value.string()
      guard ISO8601.parse(text, defaultZone: decoder.clock.timeZone) != nil else {
        throw ToolCallError(path: value.path, message: "\"\(text)\" is not an ISO-8601 date", expected: "YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ",
                            example: #"{"type":"date","value":"2026-10-01"}"#)
      }
      return .date(text)
    case "array": return .array(try value.strings())
    default:
      let name = try value.string()
      guard let first = name.unicodeScalars.first, first.properties.isAlphabetic || name.hasPrefix("$") else {
        throw ToolCallError(path: value.path, message: "\"\(name)\" is not a variable name")
      }
      return .variable(name.hasPrefix("$") ? String(name.dropFirst()) : name)
    }
  }

  func render(_ literal: Literal, modifiers: String, path: String) throws(ToolCallError) -> QueryFragment {
    switch literal {
    case .string(let s): return .exact(s, modifiers: modifiers)
    case .number(let n): return .number(n)
    case .bool(let b): return .bool(b)
    case .date(let d): return .iso(d)
    case .variable(let name): return .variable(name)
    case .array: throw ToolCallError(path: path, message: "a list needs the operator in, containsAny or range")
    }
  }

  mutating func predicate(_ value: JSONCursor) throws(ToolCallError) -> QueryFragment {
    try value.checkKeys(["attribute", "operator", "value", "caseSensitive"], example: Self.nodeExample)
    let attributeCursor = try value.required("attribute", expected: "an attribute name such as title", example: Self.nodeExample)
    let attribute = try attributeCursor.string()
    guard !attribute.isEmpty, attribute.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) || attribute == "*" else {
      throw ToolCallError(path: attributeCursor.path, message: "\"\(attribute)\" is not an attribute name", expected: "an attribute name such as title")
    }
    namedAttributes.append(attribute)
    let operatorCursor = try value.required("operator", expected: Self.operators.joined(separator: ", "))
    let op = try operatorCursor.string()
    guard Self.operators.contains(op) else {
      var message = "unknown operator \"\(op)\""
      if let suggestion = closestMatch(to: op, in: Self.operators) { message += "; did you mean \"\(suggestion)\"?" }
      throw ToolCallError(path: operatorCursor.path, message: message, expected: Self.operators.filter { $0 != "`in`" }.joined(separator: ", "),
                          example: Self.nodeExample)
    }
    let valueCursor = try value.required("value", expected: "a discriminated value", example: #"{"type":"string","value":"June"}"#)
    let literal = try self.literal(valueCursor)
    let caseSensitive = try value.optional("caseSensitive")?.bool() ?? false
    let modifiers = caseSensitive ? "" : "cd"
    let name: QueryFragment = attribute == "*" ? .star : .name(attribute)
    let subject = QueryFragment.marked(attributeCursor.path, name)
    func compare(_ op: ComparisonOperator, _ value: QueryFragment, bracket: String? = nil) -> QueryFragment {
      .compare(subject, op, .marked(valueCursor.path, value), bracket: bracket)
    }
    func textValue() throws(ToolCallError) -> String {
      switch literal {
      case .string(let s): return s
      case .number(let n): return QuerySpelling.number(n)
      case .variable: return ""
      default: throw ToolCallError(path: valueCursor.path, message: "\(op) needs a string value", example: #"{"type":"string","value":"June"}"#)
      }
    }
    let ordering = Dictionary(uniqueKeysWithValues: AppleVocabulary.PredicateOperator.allCases.compactMap { op in op.ordering.map { (op.rawValue, $0) } })
    if case .variable(let name) = literal {
      // A variable stands for a whole value (bound by an earlier stage): it can be equal,
      // hold as a word, or be ordered; modifiers go in brackets after the operator.
      switch op {
      case "equals": return compare(.equal, .variable(name), bracket: modifiers.isEmpty ? nil : modifiers)
      case "containsWord": return compare(.equal, .variable(name), bracket: modifiers + "w")
      case "greaterThan", "lessThan", "greaterThanOrEqual", "lessThanOrEqual": return compare(ordering[op]!, .variable(name))
      default:
        throw ToolCallError(path: valueCursor.path, message: "\(op) needs the text itself; a variable stands for a whole value",
                            expected: "equals, containsWord or an ordering operator with a variable", example: #"{"attribute":"stateOrProvince","operator":"equals","value":{"type":"variable","value":"best"}}"#)
      }
    }
    switch op {
    case "equals":
      return compare(.equal, try render(literal, modifiers: modifiers, path: valueCursor.path))
    case "prefix":
      return compare(.equal, .pattern(try textValue(), trailing: true, modifiers: modifiers))
    case "slowInfix":
      return compare(.equal, .pattern(try textValue(), leading: true, trailing: true, modifiers: modifiers))
    case "containsWord":
      return compare(.equal, .pattern(try textValue(), modifiers: modifiers + "w"))
    case "in", "`in`", "containsAny":
      guard case .array(let values) = literal, !values.isEmpty else {
        throw ToolCallError(path: valueCursor.path, message: "\(op) needs a non-empty array value", example: #"{"type":"array","value":["Oregon","Utah"]}"#)
      }
      let word = op == "containsAny"
      let parts = values.enumerated().map { index, v -> QueryFragment in
        let value: QueryFragment = word ? .pattern(v, modifiers: modifiers + "w") : .exact(v, modifiers: modifiers)
        return index == 0 ? compare(.equal, value) : .marked(valueCursor.path, .compare(name, .equal, value))
      }
      return .or(parts)
    case "range":
      guard case .array(let bounds) = literal, bounds.count == 2 else {
        throw ToolCallError(path: valueCursor.path, message: "range needs an array of two values [low, high]", example: #"{"type":"array","value":["2","8"]}"#)
      }
      func bound(_ s: String) -> QueryFragment {
        if let n = Double(s) { return .number(n) }
        return .iso(s)
      }
      return .marked(valueCursor.path, .call("InRange", [subject, bound(bounds[0]), bound(bounds[1])]))
    default:
      let symbol = ordering[op]!
      if case .string(let s) = literal {
        // A number or a date written as a string.
        if let n = Double(s) { return compare(symbol, .number(n)) }
        if ISO8601.parse(s, defaultZone: decoder.clock.timeZone) != nil { return compare(symbol, .iso(s)) }
        return compare(symbol, .exact(s, modifiers: ""))
      }
      return compare(symbol, try render(literal, modifiers: "", path: valueCursor.path))
    }
  }

  mutating func contentType(_ value: JSONCursor) throws(ToolCallError) -> QueryFragment {
    try value.checkKeys(["contentTypes"])
    let types = try value.required("contentTypes", expected: "an array of content types such as email, note").strings()
    guard !types.isEmpty else {
      throw ToolCallError(path: "\(value.path).contentTypes", message: "contentTypes is empty", example: #"{"contentTypes":["email"]}"#)
    }
    // Friendly names match their singular form as a prefix: "emails" and "email" find "email".
    let parts = types.map { type -> QueryFragment in
      var stem = type.lowercased()
      if stem.count > 3, stem.hasSuffix("s") { stem.removeLast() }
      return .compare(.name("contentType"), .equal, .pattern(stem, trailing: true, modifiers: "c"))
    }
    return .marked("\(value.path).contentTypes", .paren(.or(parts)))
  }

  mutating func allText(_ value: JSONCursor) throws(ToolCallError) -> QueryFragment {
    try value.checkKeys(["terms"])
    return try allTextTerms(try value.required("terms", expected: "an array of words to find"))
  }

  /// The words of an allText node, every one required.
  mutating func allTextTerms(_ terms: JSONCursor) throws(ToolCallError) -> QueryFragment {
    let path = terms.path
    let words = try terms.strings().flatMap { $0.split(whereSeparator: { $0.isWhitespace }) }.map(String.init)
    guard words.contains(where: { $0.contains(where: { $0.isLetter || $0.isNumber }) }) else {
      throw ToolCallError(path: path, message: "terms has no words", example: #"{"terms":["budget","review"]}"#)
    }
    return .marked(path, .words(words.joined(separator: " ")))
  }

  mutating func semanticSimilar(_ value: JSONCursor) throws(ToolCallError) -> QueryFragment {
    try value.checkKeys(["contentType", "query", "keywords", "maxDistance", "maxCount"])
    let keywords = try value.optional("keywords")?.strings() ?? []
    var words = keywords.flatMap { $0.split(whereSeparator: { $0.isWhitespace }) }.map(String.init)
      .filter { $0.contains(where: { $0.isLetter || $0.isNumber }) }
    if words.isEmpty, let query = try value.optional("query")?.string() {
      words = query.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init).filter { $0.count > 2 }
    }
    guard !words.isEmpty else {
      throw ToolCallError(path: "\(value.path).keywords", message: "semanticSimilar needs keywords (or a query with content words)",
                          example: #"{"contentType":"text","query":"trips to the mountains","keywords":["mountains","trip"],"maxDistance":0.8,"maxCount":0}"#)
    }
    if decoder.hasEmbeddings {
      let query = try value.optional("query")?.string() ?? words.joined(separator: " ")
      let phrase = query.contains(where: { $0.isLetter || $0.isNumber }) ? query : words.joined(separator: " ")
      var distance = SimilarSearch.defaultMaxDistance
      if let cursor = value.optional("maxDistance") {
        distance = try cursor.number()
        guard distance >= 0, distance <= 2 else {
          throw ToolCallError(path: "\(value.path).maxDistance", message: "maxDistance is a cosine distance from 0 to 2",
                              example: #"{"maxDistance":0.8}"#)
        }
      }
      let count = try value.optional("maxCount")?.integer(in: 0...1_000_000) ?? 0
      if semanticPhrase == nil { semanticPhrase = phrase }
      return .marked(value.path, .similar(phrase: phrase, distance: distance, count: count, keywords: words.joined(separator: " ")))
    }
    notes.append("semanticSimilar ran as a ranked search for any of: \(words.joined(separator: ", ")) (this index has no embeddings)")
    return .marked("\(value.path).keywords", .paren(.or(words.map { .words($0) })))
  }

  mutating func application(_ value: JSONCursor, documents: Bool) throws(ToolCallError) -> QueryFragment {
    try value.checkKeys(["application"])
    let name = try value.required("application", expected: "an application name such as Mail").string()
    // Apps donate into domains named after them (com.apple.mail -> mail).
    let short = name.split(separator: ".").last.map { String($0).lowercased() } ?? name.lowercased()
    notes.append("application \"\(name)\" matched as domainIdentifier \(short)*")
    let domain = QueryFragment.marked("\(value.path).application", .compare(.name("domainIdentifier"), .equal, .pattern(short, trailing: true, modifiers: "c")))
    guard documents else { return domain }
    return .and([domain, .compare(.name("contentType"), .notEqual, .pattern("email", modifiers: "c"))])
  }

  // MARK: People

  /// Person attributes by role.
  static let roleAttributes = Dictionary(uniqueKeysWithValues: AppleVocabulary.PersonRole.allCases.map { ($0.rawValue, $0.attributes) })

  static func personTest(_ name: String, attributes: [String]) -> QueryFragment {
    let isEmail = name.contains("@")
    return .paren(.or(attributes.filter { isEmail == $0.hasSuffix("Addresses") || (!isEmail && !$0.hasSuffix("Addresses")) }
      .map { .compare(.name($0), .equal, .pattern(name, modifiers: isEmail ? "cd" : "cdw")) }))
  }

  mutating func person(_ value: JSONCursor) throws(ToolCallError) -> QueryFragment {
    let example = #"{"type":"originator","value":"Sam Ortiz"}"#
    let (role, name) = try value.discriminated(AppleVocabulary.names(AppleVocabulary.PersonRole.self), what: "person", example: example)
    guard let name else { throw value.fail("missing the person's name", example: example) }
    let text = try name.string()
    guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw name.fail("the name is empty", example: example) }
    namedAttributes += Self.roleAttributes[role]!.filter { !$0.hasSuffix("Addresses") }
    return .marked(name.path, Self.personTest(text, attributes: Self.roleAttributes[role]!))
  }

  mutating func personMe(_ value: JSONCursor) throws(ToolCallError) -> QueryFragment {
    let (type, flag) = try value.discriminated(["fromMe", "toMe"], what: "personMe", example: #"{"type":"fromMe","value":true}"#)
    let positive = try flag?.bool() ?? true
    let identity = decoder.identity
    guard !identity.isEmpty else {
      throw ToolCallError(path: value.path, message: "personMe needs to know who the user is, and no identity is configured",
                          expected: "a person node with a name instead", example: #"{"type":"person","value":{"type":"originator","value":"Alex Morgan"}}"#)
    }
    let attributes = Self.roleAttributes[type == "fromMe" ? "originator" : "recipient"]!
    let tests = QueryFragment.paren(.or((identity.names + identity.emails).map { Self.personTest($0, attributes: attributes) }))
    return .marked(value.path, positive ? tests : .not(tests))
  }

  // MARK: Time

  static let temporalTypes = ["on", "after", "before", "between", "recurring"]
  static let temporalExample = #"{"type":"on","reference":{"type":"relative","value":"lastWeek"},"tense":"past"}"#
  /// The dates a temporal node looks at: an item matches when either falls in the period.
  static let temporalAttributes = ["contentModificationDate", "contentCreationDate"]

  mutating func temporal(_ value: JSONCursor) throws(ToolCallError) -> QueryFragment {
    let type = try value.discriminated(Self.temporalTypes, what: "temporal", example: Self.temporalExample).0
    namedAttributes += Self.temporalAttributes
    func condition(_ test: (String) -> QueryFragment) -> QueryFragment {
      .marked(value.path, .paren(.or(Self.temporalAttributes.map(test))))
    }
    func within(_ attribute: String, _ start: Date, _ end: Date) -> QueryFragment {
      .and([.compare(.name(attribute), .greaterEqual, Self.iso(start)), .compare(.name(attribute), .less, Self.iso(end))])
    }
    switch type {
    case "on":
      try value.checkKeys(["type", "reference", "offset", "tense"], example: Self.temporalExample)
      let bound = try reference(value.required("reference", expected: "a relative or absolute reference", example: Self.temporalExample),
                                offset: value.optional("offset"))
      var tense: String?
      if let tenseCursor = value.optional("tense") {
        tense = try tenseCursor.string()
        guard ["past", "current", "future"].contains(tense!) else {
          throw ToolCallError(path: tenseCursor.path, message: "unknown tense \"\(tense!)\"", expected: "past, current or future")
        }
      }
      switch bound {
      case .period(var start, var end):
        let now = decoder.clock.now
        if tense == "past" { end = min(end, now) }
        if tense == "future" { start = max(start, now) }
        return condition { within($0, start, end) }
      case .components(let parts, _):
        needsSwiftFilter = true
        let clamp: ComparisonOperator? = tense == "past" ? .lessEqual : tense == "future" ? .greaterEqual : nil
        return condition { attribute in
          guard let clamp else { return Self.componentTest(parts, attribute) }
          return .and([Self.componentTest(parts, attribute), .compare(.name(attribute), clamp, .now)])
        }
      }
    case "after":
      try value.checkKeys(["type", "reference", "offset"], example: Self.temporalExample)
      let bound = try reference(value.required("reference", expected: "a relative or absolute reference"), offset: value.optional("offset"))
      if case .components = bound { needsSwiftFilter = true }
      return condition { bound.test($0, after: true) }
    case "before":
      try value.checkKeys(["type", "reference", "offset"], example: Self.temporalExample)
      let bound = try reference(value.required("reference", expected: "a relative or absolute reference"), offset: value.optional("offset"))
      if case .components = bound { needsSwiftFilter = true }
      return condition { bound.test($0, after: false) }
    case "between":
      try value.checkKeys(["type", "startReference", "startOffset", "endReference", "endOffset"])
      let startBound = try reference(value.required("startReference", expected: "a reference"), offset: value.optional("startOffset"))
      let endBound = try reference(value.required("endReference", expected: "a reference"), offset: value.optional("endOffset"))
      if case .period(let start, _) = startBound, case .period(_, let end) = endBound {
        guard start < end else {
          throw ToolCallError(path: value.path, message: "the period is empty: it starts \(ISO8601.format(start)) and ends \(ISO8601.format(end))",
                              expected: "a startReference before the endReference")
        }
        return condition { within($0, start, end) }
      } else {
        // From the start of the first period to the end of the second: not before the one,
        // not after the other.
        needsSwiftFilter = true
        return condition { .and([.not(.paren(startBound.test($0, after: false))), .not(.paren(endBound.test($0, after: true)))]) }
      }
    default:
      try value.checkKeys(["type", "value"])
      guard let components = value.optional("value") else { throw value.fail("missing 'value' of recurring", example: #"{"type":"recurring","value":{"month":{"type":"concrete","value":12}}}"#) }
      try components.checkKeys(["month", "day", "weekday", "weekOfYear"])
      var tests: [QueryFragment] = []
      for (key, function, range) in [("month", "month", 1...12), ("day", "dayOfMonth", 1...31), ("weekday", "weekday", 1...7), ("weekOfYear", "weekOfYear", 1...53)] {
        guard let part = components.optional(key) else { continue }
        let (_, inner) = try part.discriminated(["concrete", "variable", "weekday", "weekOfYear", key], what: "\(key) value", example: #"{"type":"concrete","value":12}"#)
        guard let inner else { throw part.fail("missing 'value'") }
        let number: QueryFragment
        if case .object = inner.value {
          number = .integer(try inner.required("value", expected: "an integer").integer(in: range))
        } else if case .string(let variable) = inner.value {
          number = .variable(variable.hasPrefix("$") ? String(variable.dropFirst()) : variable)
        } else {
          number = .integer(try inner.integer(in: range))
        }
        tests.append(.compare(.call(function, [.name("contentCreationDate")]), .equal, number))
      }
      guard !tests.isEmpty else {
        throw ToolCallError(path: components.path, message: "recurring needs at least one of month, day, weekday, weekOfYear",
                            example: #"{"month":{"type":"concrete","value":12}}"#)
      }
      needsSwiftFilter = true
      return .marked(value.path, .paren(.and(tests)))
    }
  }

  static func iso(_ date: Date) -> QueryFragment { .iso(ISO8601.format(date)) }

  /// A reference resolved: a period of time, or (when a component is a variable bound by an
  /// earlier stage) calendar components compared at run time.
  enum Bound {
    case period(Date, Date)
    /// (calendar function, number or `$variable`) from the year down, and the JSON path.
    case components([(function: String, value: QueryFragment)], path: String)

    /// The condition that `attribute` lies after the period (`after`) or before it.
    func test(_ attribute: String, after: Bool) -> QueryFragment {
      switch self {
      case .period(let start, let end):
        return after ? .compare(.name(attribute), .greaterEqual, DecodingState.iso(end)) : .compare(.name(attribute), .less, DecodingState.iso(start))
      case .components(let parts, _):
        // Compared as a tuple from the year down: earlier components equal, this one beyond.
        let op: ComparisonOperator = after ? .greater : .less
        func part(_ part: (function: String, value: QueryFragment), _ op: ComparisonOperator) -> QueryFragment {
          .compare(.call(part.function, [.name(attribute)]), op, part.value)
        }
        return .paren(.or(parts.indices.map { index in
          .and(parts[..<index].map { part($0, .equal) } + [part(parts[index], op)])
        }))
      }
    }
  }

  /// Every component equal: the date lies in the period they name.
  static func componentTest(_ parts: [(function: String, value: QueryFragment)], _ attribute: String) -> QueryFragment {
    .paren(.and(parts.map { .compare(.call($0.function, [.name(attribute)]), .equal, $0.value) }))
  }

  /// A reference with an optional offset, as a period or, with variable components, as
  /// components.
  func reference(_ reference: JSONCursor, offset: JSONCursor?) throws(ToolCallError) -> Bound {
    if reference.optional("type")?.value == .string("absolute"), let value = reference.optional("value"), let parts = try variableComponents(value) {
      if let offset {
        throw ToolCallError(path: offset.path, message: "an offset cannot shift a date whose components are variables",
                            expected: "no offset, or concrete components", example: #"{"year":{"type":"variable","value":"year"},"month":{"type":"concrete","value":6}}"#)
      }
      return .components(parts, path: value.path)
    }
    let (start, end) = try period(reference, offset: offset)
    return .period(start, end)
  }

  /// The components of an absolute date when any is a variable; nil when all are numbers.
  func variableComponents(_ value: JSONCursor) throws(ToolCallError) -> [(function: String, value: QueryFragment)]? {
    let keys = [("year", "year", 1...9999), ("month", "month", 1...12), ("day", "dayOfMonth", 1...31), ("hour", "hour", 0...23), ("minute", "", 0...59), ("second", "", 0...59)]
    let hasVariable = keys.contains { value.optional($0.0)?.optional("type")?.value == .string("variable") }
    guard hasVariable else { return nil }
    try value.checkKeys(keys.map(\.0))
    var parts: [(String, QueryFragment)] = []
    for (key, function, range) in keys {
      guard let part = value.optional(key) else {
        // Components after a missing one would not name one period.
        continue
      }
      if function.isEmpty {
        throw ToolCallError(path: part.path, message: "with a variable component, an absolute date goes down to the hour",
                            expected: "year, month, day and hour", example: #"{"year":{"type":"variable","value":"year"},"month":{"type":"concrete","value":6}}"#)
      }
      guard parts.count == keys.firstIndex(where: { $0.0 == key })! else {
        throw ToolCallError(path: part.path, message: "\(key) needs the components above it", expected: "year, then month, then day, then hour")
      }
      if case .number = part.value {
        parts.append((function, .integer(try part.integer(in: range))))
        continue
      }
      let (type, inner) = try part.discriminated(["concrete", key, "variable"], what: key, example: #"{"type":"variable","value":"year"}"#)
      guard let inner else { throw part.fail("missing 'value'") }
      if type == "variable" {
        let name = try inner.string()
        guard name.contains(where: { $0.isLetter }) else { throw inner.fail("\"\(name)\" is not a variable name") }
        parts.append((function, .variable(Self.variableName(name))))
      } else if case .object = inner.value {
        parts.append((function, .integer(try inner.required("value", expected: "an integer").integer(in: range))))
      } else {
        parts.append((function, .integer(try inner.integer(in: range))))
      }
    }
    return parts
  }

  static let relativeReferences = AppleVocabulary.names(AppleVocabulary.RelativeReference.self)

  /// The period `[start, end)` of a reference shifted by an offset.
  func period(_ reference: JSONCursor, offset: JSONCursor?) throws(ToolCallError) -> (Date, Date) {
    let clock = decoder.clock
    let calendar = clock.calendar
    let example = #"{"type":"relative","value":"lastWeek"}"#
    let (type, value) = try reference.discriminated(["relative", "absolute"], what: "reference", example: example)
    guard let value else { throw reference.fail("missing 'value'", example: example) }
    var start: Date, end: Date
    if type == "relative" {
      let name = try value.string()
      guard let (function, shift) = AppleVocabulary.RelativeReference(rawValue: name)?.timeFunction,
        let resolved = TimeResolver.resolve(function: function, offset: shift, clock: clock)
      else {
        var message = "unknown relative reference \"\(name)\""
        if let suggestion = closestMatch(to: name, in: Self.relativeReferences) { message += "; did you mean \"\(suggestion)\"?" }
        throw ToolCallError(path: value.path, message: message, expected: Self.relativeReferences.joined(separator: ", "))
      }
      (start, end) = (resolved.start, resolved.end)
      if name == "now" { end = start.addingTimeInterval(1) }
    } else {
      (start, end) = try absolutePeriod(value)
    }
    if let offset {
      try offset.checkKeys(["value", "unit"], example: #"{"value":-7,"unit":"days"}"#)
      let amount = try offset.required("value", expected: "a signed whole number").integer()
      let unitCursor = try offset.required("unit", expected: "hours, days, weeks, months or years")
      let unitName = try unitCursor.string()
      let units: [String: Calendar.Component] = ["hours": .hour, "days": .day, "weeks": .weekOfYear, "months": .month, "years": .year]
      guard let unit = units[unitName] else {
        throw ToolCallError(path: unitCursor.path, message: "unknown unit \"\(unitName)\"", expected: "hours, days, weeks, months or years")
      }
      start = calendar.date(byAdding: unit, value: amount, to: start) ?? start
      end = calendar.date(byAdding: unit, value: amount, to: end) ?? end
    }
    return (start, end)
  }

  /// A period from date components: the finest component given sets its length (a year, a
  /// month, a day, an hour...).
  func absolutePeriod(_ value: JSONCursor) throws(ToolCallError) -> (Date, Date) {
    try value.checkKeys(["year", "month", "day", "hour", "minute", "second"], example: #"{"year":{"type":"concrete","value":2026},"month":{"type":"month","value":{"value":6}}}"#)
    func component(_ key: String, _ range: ClosedRange<Int>) throws(ToolCallError) -> Int? {
      guard let part = value.optional(key) else { return nil }
      if case .number = part.value { return try part.integer(in: range) }
      let (type, inner) = try part.discriminated(["concrete", key, "variable"], what: "\(key)", example: #"{"type":"concrete","value":6}"#)
      guard let inner else { throw part.fail("missing 'value'") }
      if type == "variable" {
        throw ToolCallError(path: inner.path, message: "variables in absolute dates are not supported; write the number", example: #"{"type":"concrete","value":6}"#)
      }
      if case .object = inner.value { return try inner.required("value", expected: "an integer").integer(in: range) }
      return try inner.integer(in: range)
    }
    guard let year = try component("year", 1...9999) else {
      throw ToolCallError(path: "\(value.path).year", message: "an absolute date needs a year", example: #"{"year":{"type":"concrete","value":2026}}"#)
    }
    let month = try component("month", 1...12), day = try component("day", 1...31)
    let hour = try component("hour", 0...23), minute = try component("minute", 0...59), second = try component("second", 0...59)
    let calendar = decoder.clock.calendar
    var parts = DateComponents(year: year, month: month ?? 1, day: day ?? 1, hour: hour ?? 0, minute: minute ?? 0, second: second ?? 0)
    parts.timeZone = decoder.clock.timeZone
    guard let start = calendar.date(from: parts), calendar.component(.day, from: start) == (day ?? 1) else {
      throw ToolCallError(path: value.path, message: "\(year)-\(month ?? 1)-\(day ?? 1) is not a date")
    }
    let unit: Calendar.Component = second != nil ? .second : minute != nil ? .minute : hour != nil ? .hour : day != nil ? .day : month != nil ? .month : .year
    return (start, calendar.date(byAdding: unit, value: 1, to: start) ?? start)
  }
}
