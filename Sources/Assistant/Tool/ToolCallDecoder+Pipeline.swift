import Foundation
import QueryEngine
import SearchIndex

extension DecodingState {
  static let stageTypes = AppleVocabulary.names(AppleVocabulary.StageKind.self)
  static let stageExample = #"{"id":"trails","kind":{"type":"query","value":{"query":{"type":"allText","value":{"terms":["waterfall"]}}}}}"#

  /// One stage of a `pipeline.stages` array.
  struct PipelineStage {
    var id: String
    var name: String
    var type: String
    var value: JSONCursor
    var cursor: JSONCursor
    var label: String?
    /// Ids this stage reads from.
    var inputs: [(id: String, path: String)]
  }

  /// A pipeline specification becomes named statements, one per stage, in dependency order.
  mutating func pipeline(_ cursor: JSONCursor, ranking: JSONCursor?, label: String?, pageSize: Int, into writer: inout DSLWriter) throws(ToolCallError) {
    try cursor.checkKeys(["stages"], example: #"{"stages":[\#(Self.stageExample)]}"#)
    let list = try cursor.required("stages", expected: "a non-empty array of stages", example: "[\(Self.stageExample)]").array()
    guard !list.isEmpty else {
      throw ToolCallError(path: "\(cursor.path).stages", message: "a pipeline needs at least one stage, starting with a query stage",
                          example: "[\(Self.stageExample)]")
    }
    var stages: [PipelineStage] = []
    var names = Set<String>()
    for element in list {
      try element.checkKeys(["id", "output", "header", "kind"], example: Self.stageExample)
      let idCursor = try element.required("id", expected: "a unique stage id", example: Self.stageExample)
      let id = try idCursor.string()
      let name = Self.statementName(id)
      guard !id.isEmpty, names.insert(name).inserted else {
        throw ToolCallError(path: idCursor.path, message: id.isEmpty ? "the stage id is empty" : "stage id \"\(id)\" is used twice",
                            expected: "a unique id per stage")
      }
      let kind = try element.required("kind", expected: "{\"type\": ..., \"value\": ...}", example: Self.stageExample)
      let (type, value) = try kind.discriminated(Self.stageTypes, what: "stage", example: Self.stageExample)
      guard let value else { throw kind.fail("missing 'value' of the \(type) stage", example: Self.stageExample) }
      var label = try element.optional("header")?.string()
      if let output = element.optional("output") {
        let (_, outputLabel) = try output.discriminated(["agent", "user", "both"], what: "output", example: #"{"type":"agent","value":"Matches"}"#)
        label = try outputLabel?.string() ?? label ?? id
      }
      var inputs: [(String, String)] = []
      if let from = value.optional("from") { inputs.append((try from.string(), from.path)) }
      if type == "merge" {
        let ids = try value.required("inputStageIds", expected: "an array of at least two stage ids").array()
        guard ids.count >= 2 else {
          throw ToolCallError(path: "\(value.path).inputStageIds", message: "merge needs at least two stage ids", example: #"{"inputStageIds":["a","b"]}"#)
        }
        for id in ids { inputs.append((try id.string(), id.path)) }
      }
      if let extract = value.optional("extractValue"), let from = extract.optional("fromStageId") { inputs.append((try from.string(), from.path)) }
      // Compute has no `from`: it reads the stage listed before it.
      if type == "compute", let prior = stages.last { inputs.append((prior.id, kind.path)) }
      stages.append(PipelineStage(id: id, name: name, type: type, value: value, cursor: element, label: label, inputs: inputs))
    }
    guard let first = stages.first, first.type == "query", first.value.optional("from") == nil else {
      throw ToolCallError(path: "\(cursor.path).stages[0]", message: "a pipeline must begin with a query stage", example: Self.stageExample)
    }
    let ordered = try Self.dependencyOrder(stages, path: "\(cursor.path).stages")
    // A query stage's `fetchAttributes` shape its items' replies and those of the stages that
    // pass its items on (filter, sort, limit, ...), by the label each reply carries.
    var fetchByID: [String: [String]] = [:]
    for stage in ordered {
      if stage.type == "query", let fetch = try stage.value.optional("fetchAttributes")?.strings() {
        fetchByID[stage.id] = fetch
        namedAttributes += fetch
      } else if let input = stage.inputs.first, let inherited = fetchByID[input.id] {
        fetchByID[stage.id] = inherited
      }
      if let fetch = fetchByID[stage.id] { stageFetchAttributes[stage.label ?? stage.id] = fetch }
    }
    var grouped: [String: (attribute: String, input: String, path: String)] = [:]
    var referenced = Set<String>()
    for stage in ordered { for input in stage.inputs { referenced.insert(Self.statementName(input.id)) } }
    // A linear chain (each stage reads only the one before it, nothing else reads it) becomes
    // one pipeline, so SQLite can run its leading stages in one statement.
    let linear = Self.isLinear(ordered)
    if linear, let last = ordered.last { writer.write("\(last.name) = ") }
    var previous: String?
    var first_ = true
    for (position, stage) in ordered.enumerated() {
      let next = position + 1 < ordered.count ? ordered[position + 1] : nil
      if linear, stage.type == "groupBy", let next, Self.readsGroupsAsStatistic(next) {
        // `group by A` then `valueAverage(x)` is `stats avg(x) by A` over the items.
        let attribute = try stage.value.required("attribute", expected: "the attribute to group by").string()
        grouped[stage.name] = (attribute, previous ?? "", "\(stage.value.path).attribute")
        namedAttributes.append(attribute)
        previous = stage.name
        continue
      }
      let readers = ordered.filter { $0.inputs.contains { $0.id == stage.id } }
      if !linear, stage.type == "groupBy", !readers.isEmpty, readers.allSatisfy(Self.readsGroupsAsStatistic),
        let from = try stage.value.optional("from")?.string()
      {
        // Read only by value stages, which run on its input by its attribute: as a statement
        // of its own it would be an extra reply nobody asked for.
        let attribute = try stage.value.required("attribute", expected: "the attribute to group by").string()
        grouped[stage.name] = (attribute, Self.statementName(from), "\(stage.value.path).attribute")
        namedAttributes.append(attribute)
        previous = stage.name
        continue
      }
      if !first_ && !linear { writer.write("; ") }
      first_ = false
      try writer.group(stage.cursor.path) { (writer: inout DSLWriter) throws(ToolCallError) in
        try statement(stage, previous: previous, grouped: &grouped, ranking: ranking, isFirst: stage.id == first.id,
                      terminal: linear ? next == nil : !referenced.contains(stage.name), inline: linear, pageSize: pageSize, into: &writer)
      }
      previous = stage.name
    }
    if let label, let last = ordered.last, !referenced.contains(last.name), last.label == nil {
      notes.append("label \"\(label)\" applies to the pipeline's last stage")
    }
  }

  static let valueStages = Set(AppleVocabulary.StageKind.allCases.filter { $0.statistic != nil }.map(\.rawValue))

  /// True for a stage that computes a statistic per group of the groupBy it reads (a value
  /// stage, or a forEach of a statistic): it runs on the groupBy's input, by its attribute.
  static func readsGroupsAsStatistic(_ stage: PipelineStage) -> Bool {
    if valueStages.contains(stage.type) { return true }
    guard stage.type == "forEach", let operation = stage.value.optional("operation") else { return false }
    return (try? forEachOperation(operation, stageNames: nil))?.isStatistic ?? false
  }

  /// True when every stage reads exactly the stage before it and nothing else needs it.
  static func isLinear(_ stages: [PipelineStage]) -> Bool {
    for (index, stage) in stages.enumerated() {
      if stage.value.optional("extractValue") != nil || stage.value.optional("bindVariable") != nil { return false }
      if stage.type == "merge" || stage.type == "compute" { return false }
      if index < stages.count - 1, stage.label != nil { return false }
      if index == 0 { if !stage.inputs.isEmpty { return false }; continue }
      guard stage.inputs.count == 1, stage.inputs[0].id == stages[index - 1].id else { return false }
    }
    return true
  }

  /// A stage id as a statement name: letters, digits and `_`, starting with a letter.
  static func statementName(_ id: String) -> String {
    let cleaned = String(id.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    return "s_" + cleaned
  }

  /// Stages sorted so each comes after the stages it reads from; cycles and unknown ids are
  /// errors at the offending `from`.
  static func dependencyOrder(_ stages: [PipelineStage], path: String) throws(ToolCallError) -> [PipelineStage] {
    let ids = Set(stages.map(\.id))
    for stage in stages {
      for input in stage.inputs where !ids.contains(input.id) {
        var message = "stage \"\(stage.id)\" reads from unknown stage \"\(input.id)\""
        if let suggestion = closestMatch(to: input.id, in: ids) { message += "; did you mean \"\(suggestion)\"?" }
        throw ToolCallError(path: input.path, message: message, expected: "the id of another stage: \(stages.map(\.id).joined(separator: ", "))")
      }
    }
    var ordered: [PipelineStage] = []
    var state: [String: Int] = [:]  // 1 visiting, 2 done
    func visit(_ stage: PipelineStage, chain: [String]) throws(ToolCallError) {
      if state[stage.id] == 2 { return }
      if state[stage.id] == 1 {
        throw ToolCallError(path: stage.inputs.first?.path ?? path, message: "the stages form a cycle: \((chain + [stage.id]).joined(separator: " -> "))",
                            expected: "each stage reads from earlier stages only")
      }
      state[stage.id] = 1
      for input in stage.inputs {
        if let upstream = stages.first(where: { $0.id == input.id }) { try visit(upstream, chain: chain + [stage.id]) }
      }
      state[stage.id] = 2
      ordered.append(stage)
    }
    for stage in stages { try visit(stage, chain: []) }
    return ordered
  }

  // swiftlint:disable:next function_body_length
  mutating func statement(
    _ stage: PipelineStage, previous: String?, grouped: inout [String: (attribute: String, input: String, path: String)], ranking: JSONCursor?,
    isFirst: Bool, terminal: Bool, inline: Bool = false, pageSize: Int, into writer: inout DSLWriter
  ) throws(ToolCallError) {
    let value = stage.value
    var from: String?
    if let cursor = value.optional("from") { from = Self.statementName(try cursor.string()) }
    func requireFrom() throws(ToolCallError) -> String {
      guard let from else {
        throw ToolCallError(path: "\(value.path).from", message: "missing 'from': which stage does \(stage.type) read?", expected: "the id of an earlier stage")
      }
      // Inline, the input is the pipeline so far: the stage continues it.
      return inline ? "" : from
    }
    func labelSuffix() -> String { " as \"\(ToolCallDecoder.escapeLabel(stage.label ?? stage.id))\"" }
    if !inline { writer.write("\(stage.name) = ") }
    var letStatements: [String] = []
    var labelled = true
    switch stage.type {
    case "query":
      try value.checkKeys(["query", "fetchAttributes", "limit", "from", "extractValue"])
      let node = try value.required("query", expected: "a query node", example: Self.nodeExample)
      if let from {
        writer.write((inline ? "" : from) + " | where ")
        var body = DSLWriter()
        try self.node(node, into: &body)
        writer.appendShifted(body)
      } else {
        writer.write("search ")
        try searchPredicate(node, into: &writer)
      }
      let start = writer.text.utf8.count
      // The search's ranking, post filters and order apply to the pipeline's first query.
      if isFirst { try afterRetrieval(ranking: ranking, into: &writer) }
      // After the order rankingMetadata asks for, keep the first items, not the most relevant.
      let keep = isFirst && rankingMetadata != nil ? "limit" : "top"
      if let limit = try value.optional("limit")?.integer(in: 1...100_000) {
        writer.write(" | \(keep) \(limit)")
      } else if terminal {
        // A query stage that is a reply: one page (and one more item, to tell if there are more).
        writer.write(" | \(keep) \(pageSize + 1)")
      } else if stage.label != nil, writer.text.utf8.count == start {
        // A label names a stage's reply, and a bare search has no stage to carry it: the
        // stage's items flow on unlabelled, and a reply statement shows a page of them.
        letStatements.append("\(stage.name)_shown = \(stage.name) | \(keep) \(pageSize + 1)" + labelSuffix())
        labelled = false
      }
    case "filter":
      try value.checkKeys(["from", "extractValue", "filterPredicate"])
      writer.write(try requireFrom() + " | where ")
      var body = DSLWriter()
      try node(try value.required("filterPredicate", expected: "a query node", example: Self.nodeExample), into: &body)
      writer.appendShifted(body)
    case "sort":
      try value.checkKeys(["from", "sortBy", "sortOrder"])
      let attribute = try value.required("sortBy", expected: "an attribute").string()
      namedAttributes.append(attribute)
      writer.write(try requireFrom() + " | sort ")
      writer.write(Self.sortKey(attribute), path: "\(value.path).sortBy")
      writer.write(try Self.direction(value.optional("sortOrder")))
    case "limit":
      try value.checkKeys(["from", "limit", "sortBy", "sortOrder", "extractValue"])
      writer.write(try requireFrom())
      if let attribute = try value.optional("sortBy")?.string() {
        namedAttributes.append(attribute)
        writer.write(" | sort ")
        writer.write(Self.sortKey(attribute), path: "\(value.path).sortBy")
        writer.write(try Self.direction(value.optional("sortOrder")))
      }
      writer.write(" | limit \(try value.required("limit", expected: "a positive whole number").integer(in: 1...1_000_000))")
    case "sampling":
      try value.checkKeys(["from", "strategy", "sampleSize", "seed", "diversityAttributes", "stratifyBy", "scoreField", "topRatio"])
      let strategy = try value.required("strategy", expected: "random, stratified, entropy or score_aware").string()
      let size = try value.required("sampleSize", expected: "a positive whole number").integer(in: 1...1_000_000)
      let seed = try value.optional("seed")?.integer() ?? 1
      var stratum = try value.optional("stratifyBy")?.string()
      switch strategy {
      case "random": stratum = nil
      case "stratified":
        guard stratum != nil else {
          throw ToolCallError(path: "\(value.path).stratifyBy", message: "a stratified sample needs stratifyBy", example: #""stratifyBy":"stateOrProvince""#)
        }
      case "entropy":
        if stratum == nil, let attributes = value.optional("diversityAttributes") { stratum = try attributes.strings().first }
        notes.append("the entropy sample was drawn stratified by \(stratum ?? "nothing")")
      case "score_aware":
        writer.write(try requireFrom() + " | top \(size)")
        notes.append("the score_aware sample kept the \(size) best-scored items")
        break
      default:
        throw ToolCallError(path: "\(value.path).strategy", message: "unknown strategy \"\(strategy)\"", expected: "random, stratified, entropy or score_aware")
      }
      if strategy != "score_aware" {
        writer.write(try requireFrom() + " | sample \(size) seed \(seed)")
        if let stratum { writer.write(" by "); writer.write(stratum, path: "\(value.path).stratifyBy") }
      }
    case "groupBy":
      try value.checkKeys(["from", "attribute"])
      let attribute = try value.required("attribute", expected: "the attribute to group by").string()
      namedAttributes.append(attribute)
      let input = try requireFrom()
      writer.write((inline ? "" : input) + " | group by ")
      writer.write(attribute, path: "\(value.path).attribute")
      grouped[stage.name] = (attribute, input, "\(value.path).attribute")
    case "count":
      try value.checkKeys(["from"])
      writer.write(try requireFrom() + " | count")
    case "valueCount":
      try value.checkKeys(["from", "bindVariable"])
      let input = try requireFrom()
      writer.write((inline ? "" : input) + " | count")
      if let variable = try value.optional("bindVariable")?.string() {
        letStatements.append("let \(Self.variableName(variable)) = \(input) | count | select max-by count")
      }
    case "valueSum", "valueAverage", "valueMax", "valueMin", "valueMedian", "valueStddev":
      try value.checkKeys(["from", "field", "bindVariable"])
      let function = AppleVocabulary.StageKind(rawValue: stage.type)!.statistic!
      let field = try value.required("field", expected: "a number or date attribute").string()
      namedAttributes.append(field)
      let input = try requireFrom()
      // Inline, `input` is empty: look the group up by the stage it reads.
      if let from, let group = grouped[from] {
        // Statistics per group run on the grouped stage's items, by the group attribute.
        writer.write((inline ? "" : group.input) + " | stats \(function)(")
        writer.write(field, path: "\(value.path).field")
        writer.write(") by ")
        writer.write(group.attribute, path: group.path)
        if let variable = try value.optional("bindVariable")?.string() {
          letStatements.append("let \(Self.variableName(variable)) = \(stage.name) | select max-by \"\(function)(\(field))\"")
        }
      } else {
        writer.write((inline ? "" : input) + " | stats \(function)(")
        writer.write(field, path: "\(value.path).field")
        writer.write(")")
        if let variable = try value.optional("bindVariable")?.string() {
          letStatements.append("let \(Self.variableName(variable)) = \(stage.name)")
        }
      }
    case "itemSelect":
      try value.checkKeys(["from", "field", "sortBy", "order", "index"])
      let field = try value.required("field", expected: "the attribute to return").string()
      namedAttributes.append(field)
      writer.write(try requireFrom() + " | select ")
      if let sortBy = try value.optional("sortBy")?.string() {
        let order = try value.optional("order")?.string() ?? "desc"
        writer.write((order == "asc" ? "min-by " : "max-by ") + sortBy, path: "\(value.path).sortBy")
      } else if let index = value.optional("index") {
        writer.write(try Self.selector(index), path: index.path)
      } else {
        writer.write("first")
      }
    case "extractGroupItems":
      try value.checkKeys(["from", "extractValue", "groupKey", "limit", "offset"])
      let key = try value.required("groupKey", expected: "a group key or a $variable").string()
      let offset = try value.optional("offset")?.integer(in: 0...1_000_000) ?? 0
      writer.write(try requireFrom() + " | extract ")
      writer.write(key.hasPrefix("$") ? "$" + Self.variableName(String(key.dropFirst())) : DSLWriter.exact(key), path: "\(value.path).groupKey")
      let limit = try value.optional("limit")?.integer(in: 1...1_000_000)
      if limit != nil || offset > 0 {
        // The group's items from `offset` on, at most `limit` of them.
        writer.write(" | limit \(limit ?? 1_000_000)" + (offset > 0 ? " offset \(offset)" : ""), path: "\(value.path).\(offset > 0 ? "offset" : "limit")")
      }
    case "merge":
      try value.checkKeys(["inputStageIds"])
      let ids = try value.required("inputStageIds", expected: "stage ids").strings().map(Self.statementName)
      writer.write("merge(\(ids.joined(separator: ", ")))")
    case "compute":
      try value.checkKeys(["expression", "outputFields"])
      guard let input = stage.inputs.first else {
        throw ToolCallError(path: stage.cursor.path, message: "compute needs an earlier stage to compute over")
      }
      let expression = try value.required("expression", expected: "an expression such as rating / 5").string()
      writer.write("\(Self.statementName(input.id)) | table ")
      writer.write(expression, path: "\(value.path).expression")
    case "custom":
      try value.checkKeys(["from", "stageType", "processingMode", "parameters"])
      let type = try value.required("stageType", expected: "the name of a registered stage").string()
      let parameters = try value.optional("parameters")?.array() ?? []
      writer.write(try requireFrom() + " | ")
      writer.write(type, path: "\(value.path).stageType")
      writer.write("(")
      // Each key and value is marked with its own path, so a bad argument is reported there.
      for (index, parameter) in parameters.enumerated() {
        try parameter.checkKeys(["key", "value"])
        let keyCursor = try parameter.required("key", expected: "a parameter name")
        let valueCursor = try parameter.required("value", expected: "the parameter's value as text")
        let raw = try valueCursor.string()
        let literal = Double(raw).map(DSLWriter.number) ?? (["true", "false"].contains(raw) || Self.isDuration(raw) ? raw : DSLWriter.pattern(raw))
        if index > 0 { writer.write(", ") }
        writer.write(try keyCursor.string(), path: keyCursor.path)
        writer.write(": ")
        writer.write(literal, path: valueCursor.path)
      }
      writer.write(")")
    case "hydration":
      try value.checkKeys(["from", "contentTypes", "timeoutSeconds", "maxFileSizeMB", "allowFileSystem"])
      let timeout = try value.optional("timeoutSeconds")?.number() ?? 5
      guard (0.1...300).contains(timeout) else {
        throw ToolCallError(path: "\(value.path).timeoutSeconds", message: "timeoutSeconds must be from 0.1 to 300")
      }
      writer.write(try requireFrom() + " | hydrate timeout \(DSLWriter.number(timeout))")
    case "forEach":
      try value.checkKeys(["from", "operation"])
      let operationCursor = try value.required("operation", expected: Self.forEachExpected, example: Self.forEachExample)
      let operation = try Self.forEachOperation(operationCursor, stageNames: decoder.stageNames)
      let input = try requireFrom()
      if let from, let group = grouped[from], operation.isStatistic {
        // A statistic for each group: over the grouped stage's items, by the group attribute.
        writer.write((inline ? "" : group.input) + " | ")
        writer.write(operation.text, path: operationCursor.path)
        writer.write(" by ")
        writer.write(group.attribute, path: group.path)
      } else {
        // Stages on groups run per group (count: each group's size; select: one item of
        // each); stages on items run per item (table: a row each; where: keep or drop it).
        writer.write(input + " | ")
        writer.write(operation.text, path: operationCursor.path)
      }
    default:
      throw ToolCallError(path: stage.cursor.path, message: "\(stage.type) is not supported without a model",
                          expected: "a pipeline of query, filter, sort, limit, groupBy, count and value stages")
    }
    if labelled && (stage.label != nil || terminal) { writer.write(labelSuffix()) }
    if let extract = value.optional("extractValue") {
      letStatements.append(try extraction(extract, stage: stage, grouped: grouped))
    }
    for statement in letStatements { writer.write("; " + statement) }
  }

  static let forEachExpected = "stages of Searchlight's language to run for each group or item, e.g. count, stats avg(rating), select max-by rating, table title, rating"
  static let forEachExample = #"{"from":"byState","operation":"stats avg(rating)"}"#

  /// A forEach operation checked to be stages of the language (no statements, no source);
  /// an instruction in words needs a model, which a search call does not have.
  static func forEachOperation(_ cursor: JSONCursor, stageNames: Set<String>?) throws(ToolCallError) -> (text: String, isStatistic: Bool) {
    let text = try cursor.string().trimmingCharacters(in: .whitespacesAndNewlines)
    let needsModel = ToolCallError(
      path: cursor.path, message: "forEach operation \"\(text)\" is an instruction for a model, and a search runs without one; write stages of the query language, or use a prompted stage in an answer session",
      expected: forEachExpected, example: forEachExample)
    guard !text.isEmpty else { throw cursor.fail("the operation is empty", expected: forEachExpected, example: forEachExample) }
    let prefix = "search * | "
    guard let syntax = try? Parser.parse(SourceText(prefix + text)), syntax.statements.count == 1,
      let statement = syntax.statements.first, statement.name == nil, let first = statement.pipeline.stages.first
    else { throw needsModel }
    if let stageNames {
      for stage in statement.pipeline.stages where !stageNames.contains(stage.name) && stage.name != "fork" { throw needsModel }
    }
    // A statistic without `by` runs per group when its input is grouped.
    var isStatistic = false
    if first.name == "stats", statement.pipeline.stages.count == 1, case .clauses(let clauses) = first.arguments {
      isStatistic = !clauses.contains { clause in clause.contains { $0.identifierName == "by" } }
    }
    return (text, isStatistic)
  }

  /// `extractValue`: binds a variable to a field of one selected result.
  func extraction(_ cursor: JSONCursor, stage: PipelineStage, grouped: [String: (attribute: String, input: String, path: String)]) throws(ToolCallError) -> String {
    try cursor.checkKeys(["selector", "extractField", "bindVariable", "fromStageId"])
    let variable = Self.variableName(try cursor.required("bindVariable", expected: "a variable name").string())
    let field = try cursor.required("extractField", expected: "the field to extract (_groupKey and _count for groups)").string()
    var source = stage.name
    if let fromStage = cursor.optional("fromStageId") { source = Self.statementName(try fromStage.string()) }
    let selectorCursor = try cursor.required("selector", expected: "first, last, index, selectMaxBy or selectMinBy")
    let (type, inner) = try selectorCursor.discriminated(["first", "last", "index", "selectMaxBy", "selectMinBy"], what: "selector", example: #"{"type":"first"}"#)
    var selector: String
    switch type {
    case "first", "last": selector = type
    case "index": selector = "nth \((try inner?.integer(in: 0...1_000_000) ?? 0) + 1)"
    default:
      let key = try selectorCursor.required("field", expected: "the field to compare").string()
      selector = (type == "selectMaxBy" ? "max-by " : "min-by ") + (key == "_count" ? "count" : key)
    }
    if grouped[source] != nil {
      let column = field == "_count" ? " | table count" : ""
      return "let \(variable) = \(source) | count | select \(selector)\(column)"
    }
    return "let \(variable) = \(source) | select \(selector) | table \(field)"
  }

  static func variableName(_ name: String) -> String {
    let cleaned = String((name.hasPrefix("$") ? String(name.dropFirst()) : name).map { $0.isLetter || $0.isNumber ? $0 : "_" })
    return cleaned.first?.isLetter == true ? cleaned : "v_" + cleaned
  }

  /// True for a duration literal of the language: a number and a unit, as in 14d, 2h, 30min.
  static func isDuration(_ text: String) -> Bool {
    for unit in ["min", "s", "m", "h", "d", "w"] where text.hasSuffix(unit) {
      let number = text.dropLast(unit.count)
      if !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), Double(number) != nil { return true }
    }
    return false
  }

  static func sortKey(_ attribute: String) -> String {
    switch attribute {
    case "_score", "score": "score"
    case "_relevance": "relevance"
    default: attribute
    }
  }

  static func direction(_ cursor: JSONCursor?) throws(ToolCallError) -> String {
    guard let cursor else { return " asc" }
    let order = try cursor.string()
    guard order == "asc" || order == "desc" else {
      throw ToolCallError(path: cursor.path, message: "unknown sort order \"\(order)\"", expected: "asc or desc")
    }
    return " " + order
  }

  static func selector(_ cursor: JSONCursor) throws(ToolCallError) -> String {
    let (type, inner) = try cursor.discriminated(["integer", "fractional", "named"], what: "index", example: #"{"type":"integer","value":0}"#)
    guard let inner else { throw cursor.fail("missing 'value'") }
    switch type {
    case "integer": return "nth \(try inner.integer(in: 0...1_000_000) + 1)"
    case "fractional":
      let fraction = try inner.number()
      if fraction <= 0.001 { return "first" }
      if fraction >= 0.999 { return "last" }
      throw ToolCallError(path: inner.path, message: "only the fractions 0 (first) and 1 (last) are supported", example: #"{"type":"fractional","value":1.0}"#)
    default:
      let name = try inner.string()
      guard name == "first" || name == "last" else {
        throw ToolCallError(path: inner.path, message: "unknown named index \"\(name)\"", expected: "first or last")
      }
      return name
    }
  }

  // MARK: Ranking

  /// `modelComposition` as a score stage: recency, upcoming and temporal adjacency from the
  /// clock; sender, recipient, host, participant and topic as matches weighted 0.1 (minor) to
  /// 1.0 (major) next to text relevance.
  mutating func rankingStage(_ cursor: JSONCursor, into writer: inout DSLWriter) throws(ToolCallError) {
    let example = #"{"type":"purelyTemporal","value":{"type":"recency","value":{"multiplier":1.0}}}"#
    let (type, value) = try cursor.discriminated(["none", "purelyTemporal", "nonTemporal", "combined"], what: "modelComposition", example: example)
    var terms: [String] = []
    switch type {
    case "none": return
    case "purelyTemporal":
      guard let value else { throw cursor.fail("missing 'value'", example: example) }
      terms.append(try temporalModel(value, scale: 1))
    case "nonTemporal":
      guard let value else { throw cursor.fail("missing 'value'", example: example) }
      try value.checkKeys(["models"])
      terms.append("relevance")
      terms += try models(value.required("models", expected: "a non-empty array of models"))
    default:
      guard let value else { throw cursor.fail("missing 'value'", example: example) }
      try value.checkKeys(["temporal", "models"])
      terms.append("relevance")
      terms.append(try temporalModel(value.required("temporal", expected: "a temporal model"), scale: 5))
      terms += try models(value.required("models", expected: "a non-empty array of models"))
    }
    writer.write(" | score " + terms.joined(separator: " + "), path: cursor.path)
  }

  func temporalModel(_ cursor: JSONCursor, scale: Double) throws(ToolCallError) -> String {
    let (type, value) = try cursor.discriminated(["recency", "upcoming", "temporalAdjacency"], what: "temporal model", example: #"{"type":"recency","value":{"multiplier":1.0}}"#)
    let multiplier = try value?.optional("multiplier")?.number() ?? 1
    guard multiplier >= 0, multiplier <= 10 else {
      throw ToolCallError(path: "\(value?.path ?? cursor.path).multiplier", message: "multiplier must be from 0 to 10", example: #"{"multiplier":1.0}"#)
    }
    let weight = DSLWriter.number(scale * multiplier)
    switch type {
    case "recency": return "\(weight) * recency(contentModificationDate, 30d)"
    case "upcoming": return "\(weight) * upcoming(coalesce(dueDate, startDate, contentCreationDate), 7d)"
    default: return "\(weight) / (1 + abs(contentModificationDate - $time.now) / 86400)"
    }
  }

  mutating func models(_ cursor: JSONCursor) throws(ToolCallError) -> [String] {
    let list = try cursor.array()
    guard !list.isEmpty else { throw cursor.fail("models is empty", example: #"[{"type":"topic","value":{"terms":"budget","weight":1.0}}]"#) }
    var terms: [String] = []
    for model in list {
      let (type, value) = try model.discriminated(AppleVocabulary.names(AppleVocabulary.RankingModel.self), what: "model", example: #"{"type":"topic","value":{"terms":"budget","weight":1.0}}"#)
      guard let value else { throw model.fail("missing 'value'") }
      let personRole = AppleVocabulary.RankingModel(rawValue: type)?.personRole
      if case .string(let name) = value.value, let personRole {
        // Apple's string form ({"type":"participant","value":"Lena Novak"}): the person, at
        // the weight of a major signal.
        guard name.contains(where: { $0.isLetter || $0.isNumber }) else { throw value.fail("the name is empty", example: #"{"type":"participant","value":"Lena Novak"}"#) }
        terms.append("5 * if(\(Self.personTest(name, attributes: personRole.attributes)), 1, 0)")
        namedAttributes += personRole.attributes.filter { !$0.hasSuffix("Addresses") }
        continue
      }
      let weightCursor = try value.required("weight", expected: "a weight from 0.1 (minor) to 1.0 (major)")
      let weight = try weightCursor.number()
      guard weight >= 0, weight <= 10 else { throw weightCursor.fail("weight must be from 0 to 10") }
      let w = DSLWriter.number(5 * weight)
      switch type {
      case _ where personRole != nil:
        let name = try entityName(value.required("entity", expected: "a user, namedPerson or organization"))
        terms.append("\(w) * if(\(Self.personTest(name, attributes: personRole!.attributes)), 1, 0)")
      case "topic":
        let words = try value.required("terms", expected: "words of the topic").string()
        guard words.contains(where: { $0.isLetter || $0.isNumber }) else { throw value.fail("topic terms have no words") }
        let tests = words.split(whereSeparator: { $0.isWhitespace }).map { DSLWriter.searchText(String($0)) }
        terms.append("\(w) * if(\(tests.joined(separator: " || ")), 1, 0)")
      case "semantic":
        if decoder.hasEmbeddings, let phrase = semanticPhrase {
          // Similarity is about 0.2 (unrelated) to 1 (same meaning): weighted like the other models.
          terms.append("\(w) * similarity(\(DSLWriter.searchText(phrase)))")
        } else {
          terms.append("\(DSLWriter.number(weight)) * relevance")
        }
      default:
        terms.append("\(w) * log(engagement) / 5")
      }
    }
    return terms
  }

  func entityName(_ cursor: JSONCursor) throws(ToolCallError) -> String {
    let (type, value) = try cursor.discriminated(["user", "namedPerson", "organization"], what: "entity", example: #"{"type":"namedPerson","value":{"name":"Sam Ortiz"}}"#)
    switch type {
    case "user":
      guard let name = decoder.identity.names.first ?? decoder.identity.emails.first else {
        throw ToolCallError(path: cursor.path, message: "the user entity needs to know who the user is, and no identity is configured",
                            example: #"{"type":"namedPerson","value":{"name":"Alex Morgan"}}"#)
      }
      return name
    default:
      guard let value else { throw cursor.fail("missing 'value'") }
      return try value.required("name", expected: "a name").string()
    }
  }
}
