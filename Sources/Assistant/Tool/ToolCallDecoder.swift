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
      return .help(topic: "display")
    case "dsl":
      guard let value else { throw query.fail("missing 'value'", example: #"{"type":"dsl","value":{"query":"search \"budget\" | top 5"}}"#) }
      try value.checkKeys(["query", "fetchAttributes", "pageSize", "cursor", "label"])
      let text = try value.required("query", expected: "a query in Searchlight's language").string()
      var writer = DSLWriter()
      writer.write(text, path: "\(value.path).query")
      return .search(SearchRequest(
        query: text, fetchAttributes: try value.optional("fetchAttributes")?.strings(), namedAttributes: [],
        pageSize: try value.optional("pageSize")?.integer(in: 1...1000) ?? defaultPageSize, offset: try Self.offset(value),
        label: try value.optional("label")?.string(), autoDisplay: false, notes: [], marks: writer.pathMarks))
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
    if let filters = try value.optional("postFilters")?.strings(), !filters.isEmpty {
      throw ToolCallError(path: "\(value.path).postFilters", message: "postFilters are not supported; put conditions in root or in a filter stage",
                          example: #"{"type":"operation","value":{"logic":"all","children":[...]}}"#)
    }
    if let scopes = value.optional("scopes") {
      state.scopes = try scopes.strings()
    }
    let ranking = value.optional("modelComposition") ?? value.optional("ranking")
    var writer = DSLWriter()
    if let pipeline = value.optional("pipeline") {
      // A query stage that is a reply returns the pages up to this one (and one more item).
      try state.pipeline(pipeline, ranking: ranking, label: try value.optional("label")?.string(), pageSize: offset + pageSize, into: &writer)
    } else {
      writer.write("search ")
      let root = value.optional("root")
      try state.searchPredicate(root, into: &writer)
      if let ranking { try state.rankingStage(ranking, into: &writer) }
      // One more than the page, to know whether another page exists.
      if let label = try value.optional("label")?.string() {
        writer.write(" | top \(offset + pageSize + 1) as \"\(Self.escapeLabel(label))\"")
      } else {
        writer.write(" | top \(offset + pageSize + 1)")
      }
    }
    return SearchRequest(
      query: writer.text, fetchAttributes: try value.optional("fetchAttributes")?.strings(), namedAttributes: state.namedAttributes,
      pageSize: pageSize, offset: offset, label: try value.optional("label")?.string(),
      autoDisplay: try value.optional("autoDisplay")?.bool() ?? false, notes: state.notes, marks: writer.pathMarks)
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
  /// Whether a predicate needed Swift-only functions (recurring dates), so the search must
  /// filter with `where`.
  var needsSwiftFilter = false
  /// The phrase of the first `semanticSimilar` node, for the `semantic` ranking model.
  var semanticPhrase: String?

  init(decoder: ToolCallDecoder) { self.decoder = decoder }

  static let nodeTypes = [
    "operation", "predicate", "contentType", "temporal", "person", "personMe", "allText", "application", "documentsFor",
    "semanticSimilar",
  ]
  static let nodeExample = #"{"type":"predicate","value":{"attribute":"title","operator":"prefix","value":{"type":"string","value":"June"}}}"#

  /// `search PREDICATE`: the root, scopes, and (for recurring dates) a where stage.
  mutating func searchPredicate(_ root: JSONCursor?, into writer: inout DSLWriter) throws(ToolCallError) {
    var body = DSLWriter()
    if let root {
      try node(root, into: &body)
    } else {
      body.write("*")
    }
    let scope = scopes.map { "domainIdentifier == \(DSLWriter.pattern($0, trailing: false))" }.joined(separator: " || ")
    if needsSwiftFilter {
      // Calendar parts of dates (recurring) are computed in Swift: filter after the search.
      writer.write(scopes.isEmpty ? "*" : "(\(scope))")
      writer.write(" | where ")
      writer.appendShifted(body)
    } else {
      if !scopes.isEmpty { writer.write("(\(scope)) && ") }
      writer.write("(")
      writer.appendShifted(body)
      writer.write(")")
    }
  }

  // MARK: Nodes

  mutating func node(_ cursor: JSONCursor, into writer: inout DSLWriter) throws(ToolCallError) {
    let (type, value) = try cursor.discriminated(Self.nodeTypes, what: "query node", example: Self.nodeExample)
    guard let value else { throw cursor.fail("missing 'value' of the \(type) node", example: Self.nodeExample) }
    try writer.group(cursor.path) { (writer: inout DSLWriter) throws(ToolCallError) in
      switch type {
      case "operation": try operation(value, into: &writer)
      case "predicate": try predicate(value, into: &writer)
      case "contentType": try contentType(value, into: &writer)
      case "temporal": try temporal(value, into: &writer)
      case "person": try person(value, into: &writer)
      case "personMe": try personMe(value, into: &writer)
      case "allText": try allText(value, into: &writer)
      case "application", "documentsFor": try application(value, documents: type == "documentsFor", into: &writer)
      default: try semanticSimilar(value, into: &writer)
      }
    }
  }

  mutating func operation(_ value: JSONCursor, into writer: inout DSLWriter) throws(ToolCallError) {
    try value.checkKeys(["logic", "children"])
    let logicCursor = try value.required("logic", expected: "all, any or none")
    let logic = try logicCursor.string()
    guard ["all", "any", "none"].contains(logic) else {
      throw ToolCallError(path: logicCursor.path, message: "unknown logic \"\(logic)\"", expected: "all, any or none")
    }
    let children = try value.required("children", expected: "a non-empty array of query nodes").array()
    guard !children.isEmpty else {
      throw ToolCallError(path: "\(value.path).children", message: "an operation must have at least one child",
                          example: "[\(Self.nodeExample)]")
    }
    if logic == "none" { writer.write("!") }
    writer.write("(")
    for (index, child) in children.enumerated() {
      if index > 0 { writer.write(logic == "all" ? " && " : " || ") }
      writer.write("(")
      try node(child, into: &writer)
      writer.write(")")
    }
    writer.write(")")
  }

  static let operators = [
    "equals", "prefix", "slowInfix", "containsWord", "in", "`in`", "containsAny", "greaterThan", "lessThan",
    "greaterThanOrEqual", "lessThanOrEqual", "range",
  ]

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

  func render(_ literal: Literal, modifiers: String, path: String) throws(ToolCallError) -> String {
    switch literal {
    case .string(let s): return DSLWriter.exact(s) + modifiers
    case .number(let n): return DSLWriter.number(n)
    case .bool(let b): return b ? "true" : "false"
    case .date(let d): return "$time.iso(\(d))"
    case .variable(let name): return "$" + name
    case .array: throw ToolCallError(path: path, message: "a list needs the operator in, containsAny or range")
    }
  }

  mutating func predicate(_ value: JSONCursor, into writer: inout DSLWriter) throws(ToolCallError) {
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
    var text = ""
    writer.write(attribute, path: attributeCursor.path)
    func textValue() throws(ToolCallError) -> String {
      switch literal {
      case .string(let s): return s
      case .number(let n): return DSLWriter.number(n)
      case .variable: return ""
      default: throw ToolCallError(path: valueCursor.path, message: "\(op) needs a string value", example: #"{"type":"string","value":"June"}"#)
      }
    }
    switch op {
    case "equals":
      text = " == " + (try render(literal, modifiers: modifiers, path: valueCursor.path))
    case "prefix":
      if case .variable(let name) = literal { text = " == $\(name)" } else { text = " == " + DSLWriter.pattern(try textValue(), trailing: true) + modifiers }
    case "slowInfix":
      text = " == " + DSLWriter.pattern(try textValue(), leading: true, trailing: true) + modifiers
    case "containsWord":
      text = " == " + DSLWriter.pattern(try textValue()) + modifiers + "w"
    case "in", "`in`", "containsAny":
      guard case .array(let values) = literal, !values.isEmpty else {
        throw ToolCallError(path: valueCursor.path, message: "\(op) needs a non-empty array value", example: #"{"type":"array","value":["Oregon","Utah"]}"#)
      }
      let word = op == "containsAny" ? "w" : ""
      let parts = values.map { v in attribute + " == " + (word.isEmpty ? DSLWriter.exact(v) : DSLWriter.pattern(v)) + modifiers + word }
      // The attribute was written already; write the rest of the first comparison, then the others.
      text = String(parts[0].dropFirst(attribute.count)) + parts.dropFirst().map { " || " + $0 }.joined()
      writer.write(text, path: valueCursor.path)
      return
    case "range":
      guard case .array(let bounds) = literal, bounds.count == 2 else {
        throw ToolCallError(path: valueCursor.path, message: "range needs an array of two values [low, high]", example: #"{"type":"array","value":["2","8"]}"#)
      }
      func bound(_ s: String) -> String {
        if let n = Double(s) { return DSLWriter.number(n) }
        return "$time.iso(\(s))"
      }
      writer.rewriteLastAttribute(attributeLength: attribute.utf8.count, as: "InRange(\(attribute), \(bound(bounds[0])), \(bound(bounds[1])))")
      return
    default:
      let symbol = ["greaterThan": ">", "lessThan": "<", "greaterThanOrEqual": ">=", "lessThanOrEqual": "<="][op]!
      if case .string(let s) = literal {
        // A number or a date written as a string.
        if let n = Double(s) {
          text = " \(symbol) " + DSLWriter.number(n)
        } else if ISO8601.parse(s, defaultZone: decoder.clock.timeZone) != nil {
          text = " \(symbol) $time.iso(\(s))"
        } else {
          text = " \(symbol) " + DSLWriter.exact(s)
        }
      } else {
        text = " \(symbol) " + (try render(literal, modifiers: "", path: valueCursor.path))
      }
    }
    writer.write(text, path: valueCursor.path)
  }

  mutating func contentType(_ value: JSONCursor, into writer: inout DSLWriter) throws(ToolCallError) {
    try value.checkKeys(["contentTypes"])
    let types = try value.required("contentTypes", expected: "an array of content types such as email, note").strings()
    guard !types.isEmpty else {
      throw ToolCallError(path: "\(value.path).contentTypes", message: "contentTypes is empty", example: #"{"contentTypes":["email"]}"#)
    }
    // Friendly names match their singular form as a prefix: "emails" and "email" find "email".
    let parts = types.map { type -> String in
      var stem = type.lowercased()
      if stem.count > 3, stem.hasSuffix("s") { stem.removeLast() }
      return "contentType == " + DSLWriter.pattern(stem, trailing: true) + "c"
    }
    writer.write("(" + parts.joined(separator: " || ") + ")", path: "\(value.path).contentTypes")
  }

  mutating func allText(_ value: JSONCursor, into writer: inout DSLWriter) throws(ToolCallError) {
    try value.checkKeys(["terms"])
    let terms = try value.required("terms", expected: "an array of words to find").strings()
    let words = terms.flatMap { $0.split(whereSeparator: { $0.isWhitespace }) }.map(String.init)
    guard words.contains(where: { $0.contains(where: { $0.isLetter || $0.isNumber }) }) else {
      throw ToolCallError(path: "\(value.path).terms", message: "terms has no words", example: #"{"terms":["budget","review"]}"#)
    }
    writer.write(DSLWriter.searchText(words.joined(separator: " ")), path: "\(value.path).terms")
  }

  mutating func semanticSimilar(_ value: JSONCursor, into writer: inout DSLWriter) throws(ToolCallError) {
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
      var text = "similar " + DSLWriter.searchText(phrase) + " within " + DSLWriter.number(distance)
      if count > 0 { text += " limit \(count)" }
      text += " keywords " + DSLWriter.searchText(words.joined(separator: " "))
      writer.write(text, path: value.path)
      return
    }
    notes.append("semanticSimilar ran as a ranked search for any of: \(words.joined(separator: ", ")) (this index has no embeddings)")
    writer.write("(" + words.map { DSLWriter.searchText($0) }.joined(separator: " || ") + ")", path: "\(value.path).keywords")
  }

  mutating func application(_ value: JSONCursor, documents: Bool, into writer: inout DSLWriter) throws(ToolCallError) {
    try value.checkKeys(["application"])
    let name = try value.required("application", expected: "an application name such as Mail").string()
    // Apps donate into domains named after them (com.apple.mail -> mail).
    let short = name.split(separator: ".").last.map { String($0).lowercased() } ?? name.lowercased()
    notes.append("application \"\(name)\" matched as domainIdentifier \(short)*")
    writer.write("domainIdentifier == " + DSLWriter.pattern(short, trailing: true) + "c", path: "\(value.path).application")
    if documents { writer.write(" && contentType != \"email\"c") }
  }

  // MARK: People

  /// Person attributes by role.
  static let roleAttributes: [String: [String]] = [
    "originator": ["authorNames", "authorEmailAddresses"],
    "recipient": ["recipientNames", "recipientEmailAddresses"],
    "participant": ["participants", "authorNames", "recipientNames", "editors"],
    "any": ["authorNames", "authorEmailAddresses", "recipientNames", "recipientEmailAddresses", "participants", "editors"],
  ]

  static func personTest(_ name: String, attributes: [String]) -> String {
    let isEmail = name.contains("@")
    return "(" + attributes.filter { isEmail == $0.hasSuffix("Addresses") || (!isEmail && !$0.hasSuffix("Addresses")) }
      .map { "\($0) == " + DSLWriter.pattern(name) + (isEmail ? "cd" : "cdw") }.joined(separator: " || ") + ")"
  }

  mutating func person(_ value: JSONCursor, into writer: inout DSLWriter) throws(ToolCallError) {
    let example = #"{"type":"originator","value":"Sam Ortiz"}"#
    let (role, name) = try value.discriminated(["originator", "recipient", "participant", "any"], what: "person", example: example)
    guard let name else { throw value.fail("missing the person's name", example: example) }
    let text = try name.string()
    guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw name.fail("the name is empty", example: example) }
    namedAttributes += Self.roleAttributes[role]!.filter { !$0.hasSuffix("Addresses") }
    writer.write(Self.personTest(text, attributes: Self.roleAttributes[role]!), path: name.path)
  }

  mutating func personMe(_ value: JSONCursor, into writer: inout DSLWriter) throws(ToolCallError) {
    let (type, flag) = try value.discriminated(["fromMe", "toMe"], what: "personMe", example: #"{"type":"fromMe","value":true}"#)
    let positive = try flag?.bool() ?? true
    let identity = decoder.identity
    guard !identity.isEmpty else {
      throw ToolCallError(path: value.path, message: "personMe needs to know who the user is, and no identity is configured",
                          expected: "a person node with a name instead", example: #"{"type":"person","value":{"type":"originator","value":"Alex Morgan"}}"#)
    }
    let attributes = Self.roleAttributes[type == "fromMe" ? "originator" : "recipient"]!
    let tests = (identity.names + identity.emails).map { Self.personTest($0, attributes: attributes) }
    writer.write((positive ? "" : "!") + "(" + tests.joined(separator: " || ") + ")", path: value.path)
  }

  // MARK: Time

  static let temporalTypes = ["on", "after", "before", "between", "recurring"]
  static let temporalExample = #"{"type":"on","reference":{"type":"relative","value":"lastWeek"},"tense":"past"}"#
  /// The dates a temporal node looks at: an item matches when either falls in the period.
  static let temporalAttributes = ["contentModificationDate", "contentCreationDate"]

  mutating func temporal(_ value: JSONCursor, into writer: inout DSLWriter) throws(ToolCallError) {
    let type = try value.discriminated(Self.temporalTypes, what: "temporal", example: Self.temporalExample).0
    namedAttributes += Self.temporalAttributes
    func condition(_ test: (String) -> String) -> String {
      "(" + Self.temporalAttributes.map(test).joined(separator: " || ") + ")"
    }
    switch type {
    case "on":
      try value.checkKeys(["type", "reference", "offset", "tense"], example: Self.temporalExample)
      var (start, end) = try period(value.required("reference", expected: "a relative or absolute reference", example: Self.temporalExample),
                                    offset: value.optional("offset"))
      if let tense = try value.optional("tense")?.string() {
        let now = decoder.clock.now
        switch tense {
        case "past": end = min(end, now)
        case "future": start = max(start, now)
        case "current": break
        default: throw ToolCallError(path: "\(value.path).tense", message: "unknown tense \"\(tense)\"", expected: "past, current or future")
        }
      }
      writer.write(condition { "\($0) >= \(Self.iso(start)) && \($0) < \(Self.iso(end))" }, path: value.path)
    case "after":
      try value.checkKeys(["type", "reference", "offset"], example: Self.temporalExample)
      let (_, end) = try period(value.required("reference", expected: "a relative or absolute reference"), offset: value.optional("offset"))
      writer.write(condition { "\($0) >= \(Self.iso(end))" }, path: value.path)
    case "before":
      try value.checkKeys(["type", "reference", "offset"], example: Self.temporalExample)
      let (start, _) = try period(value.required("reference", expected: "a relative or absolute reference"), offset: value.optional("offset"))
      writer.write(condition { "\($0) < \(Self.iso(start))" }, path: value.path)
    case "between":
      try value.checkKeys(["type", "startReference", "startOffset", "endReference", "endOffset"])
      let (start, _) = try period(value.required("startReference", expected: "a reference"), offset: value.optional("startOffset"))
      let (_, end) = try period(value.required("endReference", expected: "a reference"), offset: value.optional("endOffset"))
      guard start < end else {
        throw ToolCallError(path: value.path, message: "the period is empty: it starts \(ISO8601.format(start)) and ends \(ISO8601.format(end))",
                            expected: "a startReference before the endReference")
      }
      writer.write(condition { "\($0) >= \(Self.iso(start)) && \($0) < \(Self.iso(end))" }, path: value.path)
    default:
      try value.checkKeys(["type", "value"])
      guard let components = value.optional("value") else { throw value.fail("missing 'value' of recurring", example: #"{"type":"recurring","value":{"month":{"type":"concrete","value":12}}}"#) }
      try components.checkKeys(["month", "day", "weekday", "weekOfYear"])
      var tests: [String] = []
      for (key, function, range) in [("month", "month", 1...12), ("day", "dayOfMonth", 1...31), ("weekday", "weekday", 1...7), ("weekOfYear", "weekOfYear", 1...53)] {
        guard let part = components.optional(key) else { continue }
        let (_, inner) = try part.discriminated(["concrete", "variable", "weekday", "weekOfYear", key], what: "\(key) value", example: #"{"type":"concrete","value":12}"#)
        guard let inner else { throw part.fail("missing 'value'") }
        let number: String
        if case .object = inner.value {
          number = String(try inner.required("value", expected: "an integer").integer(in: range))
        } else if case .string(let variable) = inner.value {
          number = "$" + (variable.hasPrefix("$") ? String(variable.dropFirst()) : variable)
        } else {
          number = String(try inner.integer(in: range))
        }
        tests.append("\(function)(contentCreationDate) == \(number)")
      }
      guard !tests.isEmpty else {
        throw ToolCallError(path: components.path, message: "recurring needs at least one of month, day, weekday, weekOfYear",
                            example: #"{"month":{"type":"concrete","value":12}}"#)
      }
      needsSwiftFilter = true
      writer.write("(" + tests.joined(separator: " && ") + ")", path: value.path)
    }
  }

  static func iso(_ date: Date) -> String { "$time.iso(\(ISO8601.format(date)))" }

  static let relativeReferences = ["now", "today", "yesterday", "thisWeek", "thisMonth", "thisYear", "lastWeek", "lastMonth", "lastYear", "nextWeek", "nextMonth"]

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
      let map: [String: (String, Double)] = [
        "now": ("now", 0), "today": ("today", 0), "yesterday": ("yesterday", 0), "thisWeek": ("this_week", 0),
        "thisMonth": ("this_month", 0), "thisYear": ("this_year", 0), "lastWeek": ("last_week", 0), "lastMonth": ("last_month", 0),
        "lastYear": ("last_year", 0), "nextWeek": ("next_week", 0), "nextMonth": ("this_month", 1),
      ]
      guard let (function, shift) = map[name], let resolved = TimeResolver.resolve(function: function, offset: shift, clock: clock) else {
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

extension DSLWriter {
  /// Appends another writer's text, keeping its path marks.
  mutating func appendShifted(_ other: DSLWriter) {
    let base = text.utf8.count
    write(other.text)
    for mark in other.pathMarks { appendMark((mark.range.lowerBound + base)..<(mark.range.upperBound + base), mark.path) }
  }

}
