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
  mutating func pipeline(_ cursor: JSONCursor, ranking: JSONCursor?, label: String?, pageSize: Int) throws(ToolCallError) -> [StatementFragment] {
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
    var statements: [StatementFragment] = []
    var chain = PipelineFragment(nil)
    var previous: String?
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
      statements += try statement(stage, previous: previous, grouped: &grouped, ranking: ranking, isFirst: stage.id == first.id,
                                  terminal: linear ? next == nil : !referenced.contains(stage.name), inline: linear, pageSize: pageSize, chain: &chain)
      previous = stage.name
    }
    if let label, let last = ordered.last, !referenced.contains(last.name), last.label == nil {
      notes.append("label \"\(label)\" applies to the pipeline's last stage")
    }
    if linear, let last = ordered.last { statements.insert(StatementFragment(name: last.name, pipeline: chain), at: 0) }
    return statements
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

  /// One stage of a pipeline: its own statement, or (`inline`) stages continuing `chain`;
  /// returns the statements it adds.
  // swiftlint:disable:next function_body_length cyclomatic_complexity
  mutating func statement(
    _ stage: PipelineStage, previous: String?, grouped: inout [String: (attribute: String, input: String, path: String)], ranking: JSONCursor?,
    isFirst: Bool, terminal: Bool, inline: Bool = false, pageSize: Int, chain: inout PipelineFragment
  ) throws(ToolCallError) -> [StatementFragment] {
    let value = stage.value
    var from: String?
    if let cursor = value.optional("from") { from = Self.statementName(try cursor.string()) }
    // Inline, the stage continues the pipeline so far; otherwise it is a statement reading
    // the stage it names.
    var pipeline = inline ? chain : PipelineFragment(nil)
    if inline {
      if pipeline.source == nil && pipeline.items.isEmpty { pipeline.opens.append(stage.cursor.path) } else { pipeline.items.append(.open(stage.cursor.path)) }
    }
    func read(_ name: String) { if !inline { pipeline.source = .reference(name) } }
    func requireFrom() throws(ToolCallError) {
      guard let from else {
        throw ToolCallError(path: "\(value.path).from", message: "missing 'from': which stage does \(stage.type) read?", expected: "the id of an earlier stage")
      }
      read(from)
    }
    func labelled(_ fragment: StageFragment) -> StageFragment {
      var copy = fragment
      copy.label = stage.label ?? stage.id
      return copy
    }
    var letStatements: [StatementFragment] = []
    var labelsLastStage = true
    switch stage.type {
    case "query":
      try value.checkKeys(["query", "fetchAttributes", "limit", "from", "extractValue"])
      let node = try value.required("query", expected: "a query node", example: Self.nodeExample)
      if let from {
        read(from)
        pipeline.append(StageFragment("where", [[try self.node(node)]]))
      } else {
        let search = try searchPredicate(node, opens: pipeline.opens)
        pipeline.source = search.source
        pipeline.opens = search.opens
        pipeline.items += search.items
      }
      let stagesBefore = pipeline.items.count
      // The search's ranking, post filters and order apply to the pipeline's first query.
      if isFirst { try afterRetrieval(ranking: ranking, into: &pipeline) }
      // After the order rankingMetadata asks for, keep the first items, not the most relevant.
      let keep = isFirst && rankingMetadata != nil ? "limit" : "top"
      if let limit = try value.optional("limit")?.integer(in: 1...100_000) {
        pipeline.append(StageFragment(keep, [[.integer(limit)]]))
      } else if terminal {
        // A query stage that is a reply: one page (and one more item, to tell if there are more).
        pipeline.append(StageFragment(keep, [[.integer(pageSize + 1)]]))
      } else if stage.label != nil, pipeline.items.count == stagesBefore {
        // A label names a stage's reply, and a bare search has no stage to carry it: the
        // stage's items flow on unlabelled, and a reply statement shows a page of them.
        var shown = PipelineFragment(.reference(stage.name))
        shown.append(labelled(StageFragment(keep, [[.integer(pageSize + 1)]])))
        letStatements.append(StatementFragment(name: "\(stage.name)_shown", pipeline: shown, path: stage.cursor.path))
        labelsLastStage = false
      }
    case "filter":
      try value.checkKeys(["from", "extractValue", "filterPredicate"])
      try requireFrom()
      pipeline.append(StageFragment("where", [[try node(try value.required("filterPredicate", expected: "a query node", example: Self.nodeExample))]]))
    case "sort":
      try value.checkKeys(["from", "sortBy", "sortOrder"])
      let attribute = try value.required("sortBy", expected: "an attribute").string()
      namedAttributes.append(attribute)
      try requireFrom()
      pipeline.append(StageFragment("sort", [[.marked("\(value.path).sortBy", .name(Self.sortKey(attribute))), .name(try Self.direction(value.optional("sortOrder")))]]))
    case "limit":
      try value.checkKeys(["from", "limit", "sortBy", "sortOrder", "extractValue"])
      try requireFrom()
      if let attribute = try value.optional("sortBy")?.string() {
        namedAttributes.append(attribute)
        pipeline.append(StageFragment("sort", [[.marked("\(value.path).sortBy", .name(Self.sortKey(attribute))), .name(try Self.direction(value.optional("sortOrder")))]]))
      }
      pipeline.append(StageFragment("limit", [[.integer(try value.required("limit", expected: "a positive whole number").integer(in: 1...1_000_000))]]))
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
        try requireFrom()
        pipeline.append(StageFragment("top", [[.integer(size)]]))
        notes.append("the score_aware sample kept the \(size) best-scored items")
      default:
        throw ToolCallError(path: "\(value.path).strategy", message: "unknown strategy \"\(strategy)\"", expected: "random, stratified, entropy or score_aware")
      }
      if strategy != "score_aware" {
        try requireFrom()
        var clause: [QueryFragment] = [.integer(size), .name("seed"), .integer(seed)]
        if let stratum { clause += [.name("by"), .marked("\(value.path).stratifyBy", .name(stratum))] }
        pipeline.append(StageFragment("sample", [clause]))
      }
    case "groupBy":
      try value.checkKeys(["from", "attribute"])
      let attribute = try value.required("attribute", expected: "the attribute to group by").string()
      namedAttributes.append(attribute)
      try requireFrom()
      pipeline.append(StageFragment("group", [[.name("by"), .marked("\(value.path).attribute", .name(attribute))]]))
      grouped[stage.name] = (attribute, inline ? "" : from ?? "", "\(value.path).attribute")
    case "count":
      try value.checkKeys(["from"])
      try requireFrom()
      pipeline.append(StageFragment("count"))
    case "valueCount":
      try value.checkKeys(["from", "bindVariable"])
      try requireFrom()
      pipeline.append(StageFragment("count"))
      if let variable = try value.optional("bindVariable")?.string(), let from {
        var bound = PipelineFragment(.reference(from))
        bound.append(StageFragment("count"))
        bound.append(StageFragment("select", [[.hyphenated("max", "by"), .name("count")]]))
        letStatements.append(StatementFragment(name: Self.variableName(variable), isLet: true, pipeline: bound, path: stage.cursor.path))
      }
    case "valueSum", "valueAverage", "valueMax", "valueMin", "valueMedian", "valueStddev":
      try value.checkKeys(["from", "field", "bindVariable"])
      let function = AppleVocabulary.StageKind(rawValue: stage.type)!.statistic!
      let field = try value.required("field", expected: "a number or date attribute").string()
      namedAttributes.append(field)
      try requireFrom()
      let statistic = QueryFragment.call(function, [.marked("\(value.path).field", .name(field))])
      // Inline, the input is the pipeline so far: look the group up by the stage it reads.
      if let from, let group = grouped[from] {
        // Statistics per group run on the grouped stage's items, by the group attribute.
        read(group.input)
        pipeline.append(StageFragment("stats", [[statistic, .name("by"), .marked(group.path, .name(group.attribute))]]))
        if let variable = try value.optional("bindVariable")?.string() {
          var bound = PipelineFragment(.reference(stage.name))
          bound.append(StageFragment("select", [[.hyphenated("max", "by"), .quoted("\(function)(\(field))")]]))
          letStatements.append(StatementFragment(name: Self.variableName(variable), isLet: true, pipeline: bound, path: stage.cursor.path))
        }
      } else {
        pipeline.append(StageFragment("stats", [[statistic]]))
        if let variable = try value.optional("bindVariable")?.string() {
          letStatements.append(StatementFragment(name: Self.variableName(variable), isLet: true, pipeline: PipelineFragment(.reference(stage.name)),
                                                 path: stage.cursor.path))
        }
      }
    case "itemSelect":
      try value.checkKeys(["from", "field", "sortBy", "order", "index"])
      let field = try value.required("field", expected: "the attribute to return").string()
      namedAttributes.append(field)
      try requireFrom()
      var select: StageFragment
      if let sortBy = try value.optional("sortBy")?.string() {
        let order = try value.optional("order")?.string() ?? "desc"
        select = StageFragment("select", [[.hyphenated(order == "asc" ? "min" : "max", "by"), .name(sortBy)]])
        select.argumentsPath = "\(value.path).sortBy"
      } else if let index = value.optional("index") {
        select = StageFragment("select", [try Self.selector(index)])
        select.argumentsPath = index.path
      } else {
        select = StageFragment("select", [[.name("first")]])
      }
      pipeline.append(select)
    case "extractGroupItems":
      try value.checkKeys(["from", "extractValue", "groupKey", "limit", "offset"])
      let key = try value.required("groupKey", expected: "a group key or a $variable").string()
      let offset = try value.optional("offset")?.integer(in: 0...1_000_000) ?? 0
      try requireFrom()
      let keyFragment: QueryFragment = key.hasPrefix("$") ? .variable(Self.variableName(String(key.dropFirst()))) : .exact(key, modifiers: "")
      pipeline.append(StageFragment("extract", [[.marked("\(value.path).groupKey", keyFragment)]]))
      let limit = try value.optional("limit")?.integer(in: 1...1_000_000)
      if limit != nil || offset > 0 {
        // The group's items from `offset` on, at most `limit` of them.
        var clause: [QueryFragment] = [.integer(limit ?? 1_000_000)]
        if offset > 0 { clause += [.name("offset"), .integer(offset)] }
        var limitStage = StageFragment("limit", [clause])
        limitStage.path = "\(value.path).\(offset > 0 ? "offset" : "limit")"
        pipeline.append(limitStage)
      }
    case "merge":
      try value.checkKeys(["inputStageIds"])
      let ids = try value.required("inputStageIds", expected: "stage ids").strings().map(Self.statementName)
      pipeline.source = .merge(ids)
    case "compute":
      try value.checkKeys(["expression", "outputFields"])
      guard let input = stage.inputs.first else {
        throw ToolCallError(path: stage.cursor.path, message: "compute needs an earlier stage to compute over")
      }
      let expression = try value.required("expression", expected: "an expression such as rating / 5").string()
      pipeline.source = .reference(Self.statementName(input.id))
      let prefix = "table "
      pipeline.items.append(.text(prefix + expression, marks: [(prefix.utf8.count..<(prefix + expression).utf8.count, "\(value.path).expression")]))
    case "custom":
      try value.checkKeys(["from", "stageType", "processingMode", "parameters"])
      let type = try value.required("stageType", expected: "the name of a registered stage").string()
      let parameters = try value.optional("parameters")?.array() ?? []
      try requireFrom()
      // Each key and value is marked with its own path, so a bad argument is reported there.
      var arguments: [(key: String, keyPath: String?, value: QueryFragment)] = []
      for parameter in parameters {
        try parameter.checkKeys(["key", "value"])
        let keyCursor = try parameter.required("key", expected: "a parameter name")
        let valueCursor = try parameter.required("value", expected: "the parameter's value as text")
        let raw = try valueCursor.string()
        let literal: QueryFragment
        if let number = Double(raw) {
          literal = .number(number)
        } else if ["true", "false"].contains(raw) {
          literal = .bool(raw == "true")
        } else if Self.isDuration(raw), let duration = QueryFragment.constant(raw) {
          literal = duration
        } else {
          literal = .pattern(raw)
        }
        arguments.append((try keyCursor.string(), keyCursor.path, .marked(valueCursor.path, literal)))
      }
      var custom = StageFragment(type)
      custom.arguments = .call(arguments)
      custom.namePath = "\(value.path).stageType"
      pipeline.append(custom)
    case "hydration":
      try value.checkKeys(["from", "contentTypes", "timeoutSeconds", "maxFileSizeMB", "allowFileSystem"])
      let timeout = try value.optional("timeoutSeconds")?.number() ?? 5
      guard (0.1...300).contains(timeout) else {
        throw ToolCallError(path: "\(value.path).timeoutSeconds", message: "timeoutSeconds must be from 0.1 to 300")
      }
      try requireFrom()
      pipeline.append(StageFragment("hydrate", [[.name("timeout"), .number(timeout)]]))
    case "forEach":
      try value.checkKeys(["from", "operation"])
      let operationCursor = try value.required("operation", expected: Self.forEachExpected, example: Self.forEachExample)
      let operation = try Self.forEachOperation(operationCursor, stageNames: decoder.stageNames)
      try requireFrom()
      let length = operation.text.utf8.count
      if let from, let group = grouped[from], operation.isStatistic {
        // A statistic for each group: over the grouped stage's items, by the group attribute.
        read(group.input)
        let text = operation.text + " by " + group.attribute
        pipeline.items.append(.text(text, marks: [(0..<length, operationCursor.path), ((length + 4)..<text.utf8.count, group.path)]))
      } else {
        // Stages on groups run per group (count: each group's size; select: one item of
        // each); stages on items run per item (table: a row each; where: keep or drop it).
        pipeline.items.append(.text(operation.text, marks: [(0..<length, operationCursor.path)]))
      }
    default:
      throw ToolCallError(path: stage.cursor.path, message: "\(stage.type) is not supported without a model",
                          expected: "a pipeline of query, filter, sort, limit, groupBy, count and value stages")
    }
    if labelsLastStage && (stage.label != nil || terminal) { labelLastStage(&pipeline, stage.label ?? stage.id) }
    if let extract = value.optional("extractValue") {
      letStatements.append(try extraction(extract, stage: stage, grouped: grouped))
    }
    if inline {
      pipeline.items.append(.close)
      chain = pipeline
      return letStatements
    }
    return [StatementFragment(name: stage.name, pipeline: pipeline, path: stage.cursor.path)] + letStatements
  }

  /// Puts `label` on the pipeline's last stage; a pipeline without stages (a merge) gets a
  /// stage that passes its items on, so the label has a stage to name.
  func labelLastStage(_ pipeline: inout PipelineFragment, _ label: String) {
    for index in pipeline.items.indices.reversed() {
      switch pipeline.items[index] {
      case .stage(var stage):
        stage.label = label
        pipeline.items[index] = .stage(stage)
        return
      case .text(let text, let marks):
        pipeline.items[index] = .text(text + " as \"" + ToolCallDecoder.escapeLabel(label) + "\"", marks: marks)
        return
      case .open, .close, .trailingLabel: continue
      }
    }
    pipeline.items.append(.trailingLabel(label))
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
  func extraction(_ cursor: JSONCursor, stage: PipelineStage, grouped: [String: (attribute: String, input: String, path: String)]) throws(ToolCallError) -> StatementFragment {
    try cursor.checkKeys(["selector", "extractField", "bindVariable", "fromStageId"])
    let variable = Self.variableName(try cursor.required("bindVariable", expected: "a variable name").string())
    let field = try cursor.required("extractField", expected: "the field to extract (_groupKey and _count for groups)").string()
    var source = stage.name
    if let fromStage = cursor.optional("fromStageId") { source = Self.statementName(try fromStage.string()) }
    let selectorCursor = try cursor.required("selector", expected: "first, last, index, selectMaxBy or selectMinBy")
    let (type, inner) = try selectorCursor.discriminated(["first", "last", "index", "selectMaxBy", "selectMinBy"], what: "selector", example: #"{"type":"first"}"#)
    var selector: [QueryFragment]
    switch type {
    case "first", "last": selector = [.name(type)]
    case "index": selector = [.name("nth"), .integer((try inner?.integer(in: 0...1_000_000) ?? 0) + 1)]
    default:
      let key = try selectorCursor.required("field", expected: "the field to compare").string()
      selector = [.hyphenated(type == "selectMaxBy" ? "max" : "min", "by"), .name(key == "_count" ? "count" : key)]
    }
    var pipeline = PipelineFragment(.reference(source))
    if grouped[source] != nil {
      pipeline.append(StageFragment("count"))
      pipeline.append(StageFragment("select", [selector]))
      if field == "_count" { pipeline.append(StageFragment("table", [[.name("count")]])) }
    } else {
      pipeline.append(StageFragment("select", [selector]))
      pipeline.append(StageFragment("table", [[.name(field)]]))
    }
    return StatementFragment(name: variable, isLet: true, pipeline: pipeline, path: stage.cursor.path)
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
    guard let cursor else { return "asc" }
    let order = try cursor.string()
    guard order == "asc" || order == "desc" else {
      throw ToolCallError(path: cursor.path, message: "unknown sort order \"\(order)\"", expected: "asc or desc")
    }
    return order
  }

  static func selector(_ cursor: JSONCursor) throws(ToolCallError) -> [QueryFragment] {
    let (type, inner) = try cursor.discriminated(["integer", "fractional", "named"], what: "index", example: #"{"type":"integer","value":0}"#)
    guard let inner else { throw cursor.fail("missing 'value'") }
    switch type {
    case "integer": return [.name("nth"), .integer(try inner.integer(in: 0...1_000_000) + 1)]
    case "fractional":
      let fraction = try inner.number()
      if fraction <= 0.001 { return [.name("first")] }
      if fraction >= 0.999 { return [.name("last")] }
      throw ToolCallError(path: inner.path, message: "only the fractions 0 (first) and 1 (last) are supported", example: #"{"type":"fractional","value":1.0}"#)
    default:
      let name = try inner.string()
      guard name == "first" || name == "last" else {
        throw ToolCallError(path: inner.path, message: "unknown named index \"\(name)\"", expected: "first or last")
      }
      return [.name(name)]
    }
  }

  // MARK: Ranking

  /// `modelComposition` as a score stage: recency, upcoming and temporal adjacency from the
  /// clock; sender, recipient, host, participant and topic as matches weighted 0.1 (minor) to
  /// 1.0 (major) next to text relevance.
  mutating func rankingStage(_ cursor: JSONCursor) throws(ToolCallError) -> StageFragment? {
    let example = #"{"type":"purelyTemporal","value":{"type":"recency","value":{"multiplier":1.0}}}"#
    let (type, value) = try cursor.discriminated(["none", "purelyTemporal", "nonTemporal", "combined"], what: "modelComposition", example: example)
    var terms: [QueryFragment] = []
    switch type {
    case "none": return nil
    case "purelyTemporal":
      guard let value else { throw cursor.fail("missing 'value'", example: example) }
      terms.append(try temporalModel(value, scale: 1))
    case "nonTemporal":
      guard let value else { throw cursor.fail("missing 'value'", example: example) }
      try value.checkKeys(["models"])
      terms.append(.name("relevance"))
      terms += try models(value.required("models", expected: "a non-empty array of models"))
    default:
      guard let value else { throw cursor.fail("missing 'value'", example: example) }
      try value.checkKeys(["temporal", "models"])
      terms.append(.name("relevance"))
      terms.append(try temporalModel(value.required("temporal", expected: "a temporal model"), scale: 5))
      terms += try models(value.required("models", expected: "a non-empty array of models"))
    }
    return StageFragment("score", [[QueryFragment.fold(.add, terms)]], path: cursor.path)
  }

  func temporalModel(_ cursor: JSONCursor, scale: Double) throws(ToolCallError) -> QueryFragment {
    let (type, value) = try cursor.discriminated(["recency", "upcoming", "temporalAdjacency"], what: "temporal model", example: #"{"type":"recency","value":{"multiplier":1.0}}"#)
    let multiplier = try value?.optional("multiplier")?.number() ?? 1
    guard multiplier >= 0, multiplier <= 10 else {
      throw ToolCallError(path: "\(value?.path ?? cursor.path).multiplier", message: "multiplier must be from 0 to 10", example: #"{"multiplier":1.0}"#)
    }
    let weight = QueryFragment.number(scale * multiplier)
    switch type {
    case "recency": return .arithmetic(.multiply, weight, .call("recency", [.name("contentModificationDate"), Self.days(30)]))
    case "upcoming":
      return .arithmetic(.multiply, weight, .call("upcoming", [.call("coalesce", [.name("dueDate"), .name("startDate"), .name("contentCreationDate")]), Self.days(7)]))
    default:
      let distance = QueryFragment.call("abs", [.arithmetic(.subtract, .name("contentModificationDate"), .now)])
      return .arithmetic(.divide, weight, .paren(.arithmetic(.add, .integer(1), .arithmetic(.divide, distance, .integer(86400)))))
    }
  }

  /// A duration literal of whole days (`30d`).
  static func days(_ count: Int) -> QueryFragment {
    let text = "\(count)d"
    return .parsed(text, QueryEngine.Expression(.duration(Double(count) * 86_400), SourceSpan(0, text.utf8.count)))
  }

  mutating func models(_ cursor: JSONCursor) throws(ToolCallError) -> [QueryFragment] {
    let list = try cursor.array()
    guard !list.isEmpty else { throw cursor.fail("models is empty", example: #"[{"type":"topic","value":{"terms":"budget","weight":1.0}}]"#) }
    var terms: [QueryFragment] = []
    func weighted(_ weight: Double, _ fragment: QueryFragment) -> QueryFragment { .arithmetic(.multiply, .number(weight), fragment) }
    func present(_ test: QueryFragment) -> QueryFragment { .call("if", [test, .integer(1), .integer(0)]) }
    for model in list {
      let (type, value) = try model.discriminated(AppleVocabulary.names(AppleVocabulary.RankingModel.self), what: "model", example: #"{"type":"topic","value":{"terms":"budget","weight":1.0}}"#)
      guard let value else { throw model.fail("missing 'value'") }
      let personRole = AppleVocabulary.RankingModel(rawValue: type)?.personRole
      if case .string(let name) = value.value, let personRole {
        // Apple's string form ({"type":"participant","value":"Lena Novak"}): the person, at
        // the weight of a major signal.
        guard name.contains(where: { $0.isLetter || $0.isNumber }) else { throw value.fail("the name is empty", example: #"{"type":"participant","value":"Lena Novak"}"#) }
        terms.append(weighted(5, present(Self.personTest(name, attributes: personRole.attributes))))
        namedAttributes += personRole.attributes.filter { !$0.hasSuffix("Addresses") }
        continue
      }
      let weightCursor = try value.required("weight", expected: "a weight from 0.1 (minor) to 1.0 (major)")
      let weight = try weightCursor.number()
      guard weight >= 0, weight <= 10 else { throw weightCursor.fail("weight must be from 0 to 10") }
      let w = 5 * weight
      switch type {
      case _ where personRole != nil:
        let name = try entityName(value.required("entity", expected: "a user, namedPerson or organization"))
        terms.append(weighted(w, present(Self.personTest(name, attributes: personRole!.attributes))))
      case "topic":
        let words = try value.required("terms", expected: "words of the topic").string()
        guard words.contains(where: { $0.isLetter || $0.isNumber }) else { throw value.fail("topic terms have no words") }
        let tests = words.split(whereSeparator: { $0.isWhitespace }).map { QueryFragment.words(String($0)) }
        terms.append(weighted(w, present(.or(tests))))
      case "semantic":
        if decoder.hasEmbeddings, let phrase = semanticPhrase {
          // Similarity is about 0.2 (unrelated) to 1 (same meaning): weighted like the other models.
          terms.append(weighted(w, .call("similarity", [.words(phrase)])))
        } else {
          terms.append(weighted(weight, .name("relevance")))
        }
      default:
        terms.append(.arithmetic(.divide, weighted(w, .call("log", [.name("engagement")])), .integer(5)))
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
