import Foundation
import QueryEngine
import SearchIndex

/// How much of the search tool a model is offered.
public enum ToolGuidance: Sendable, Hashable {
  /// Text, dates and a page size: small enough for a 4K-token context.
  case focused
  /// Every node, stage and option.
  case complete
  /// A chosen set of features.
  case profile(Set<Feature>, attributes: [String], stages: [String])

  /// Features a profile can include.
  public enum Feature: String, Sendable, Hashable, CaseIterable {
    case textMatch, similarityMatch, numericMatch, dates, people, contentType, pipeline, ranking
  }

  /// Parses `focused`, `complete` or `profile:textMatch,dates,attributes=title|rating,stages=nearby`.
  public init(parsing text: String) throws(ToolCallError) {
    switch text {
    case "focused": self = .focused
    case "complete": self = .complete
    default:
      guard text.hasPrefix("profile:") else {
        throw ToolCallError(path: "--guide", message: "unknown guidance '\(text)'", expected: "focused, complete or profile:FEATURE,...")
      }
      var features = Set<Feature>()
      var attributes: [String] = []
      var stages: [String] = []
      for part in text.dropFirst(8).split(separator: ",") {
        if part.hasPrefix("attributes=") {
          attributes += part.dropFirst(11).split(separator: "|").map(String.init)
        } else if part.hasPrefix("stages=") {
          stages += part.dropFirst(7).split(separator: "|").map(String.init)
        } else if let feature = Feature(rawValue: String(part)) {
          features.insert(feature)
        } else {
          var message = "unknown profile feature '\(part)'"
          if let suggestion = closestMatch(to: String(part), in: Feature.allCases.map(\.rawValue)) { message += "; did you mean '\(suggestion)'?" }
          throw ToolCallError(path: "--guide", message: message,
                              expected: Feature.allCases.map(\.rawValue).joined(separator: ", ") + ", attributes=A|B, stages=S|T")
        }
      }
      self = .profile(features, attributes: attributes, stages: stages)
    }
  }

  var features: Set<Feature> {
    switch self {
    case .focused: [.textMatch, .dates]
    case .complete: Set(Feature.allCases)
    case .profile(let features, _, _): features
    }
  }
}

/// Generates the tool's description and JSON schema from the stage registry and the index's
/// attribute catalogue, in OpenAI's function-calling form and valid under strict mode: every
/// object closed (`additionalProperties: false`), every field listed as required, optional
/// fields nullable.
public struct ToolSchemaGenerator {
  public let index: SearchIndex
  public let registry: StageRegistry
  public let scope: AccessScope
  public var name = "search_items"

  public init(index: SearchIndex, registry: StageRegistry, scope: AccessScope) {
    self.index = index
    self.registry = registry
    self.scope = scope
  }

  /// `{"type":"function","function":{"name","description","strict":true,"parameters":{...}}}`.
  public func tool(_ guidance: ToolGuidance) throws -> JSONValue {
    let features = guidance.features
    var defs = JSONObject()
    var nodeTypes: [JSONValue] = []
    func ref(_ name: String) -> JSONValue { ["$ref": .string("#/$defs/\(name)")] }
    func addNode(_ name: String, _ value: JSONValue) {
      defs[name] = Schema.discriminated(name.prefix(1).lowercased() + name.dropFirst(), value)
      nodeTypes.append(ref(name))
    }
    let catalog = try index.summary(scope: scope)
    let describer = SchemaDescriber(index: index, scope: scope)
    var attributeNames = catalog.attributes.map(\.name) + ["domainIdentifier", "contentType"]
    if case .profile(_, let chosen, _) = guidance, !chosen.isEmpty { attributeNames = chosen }

    // Nodes.
    addNode("Operation", Schema.object([
      ("logic", Schema.enumeration(["all", "any", "none"]), true),
      ("children", Schema.array(ref("QueryNode"), description: "at least one node"), true),
    ]))
    if features.contains(.textMatch) {
      addNode("AllText", Schema.object([("terms", Schema.array(Schema.string, description: "words; every word must occur"), true)]))
    }
    // Focused guidance keeps to words and dates; attribute predicates come with the others.
    if guidance != .focused, features.contains(.textMatch) || features.contains(.numericMatch) {
      var operators = ["equals", "prefix", "slowInfix", "containsWord", "in", "containsAny"]
      if features.contains(.numericMatch) || features.contains(.dates) { operators += ["greaterThan", "lessThan", "greaterThanOrEqual", "lessThanOrEqual", "range"] }
      if !features.contains(.textMatch) { operators = ["equals", "greaterThan", "lessThan", "greaterThanOrEqual", "lessThanOrEqual", "range"] }
      defs["Value"] = Schema.discriminatedUnion([
        ("string", Schema.string), ("int", Schema.integer), ("double", Schema.number), ("bool", Schema.boolean), ("date", Schema.string),
        ("array", Schema.array(Schema.string, description: nil)),
      ])
      addNode("Predicate", Schema.object([
        ("attribute", Schema.enumeration(attributeNames), true),
        ("operator", Schema.enumeration(operators), true),
        ("value", ref("Value"), true),
        ("caseSensitive", Schema.boolean, false),
      ]))
    }
    if features.contains(.dates) {
      let relative = AppleVocabulary.names(AppleVocabulary.RelativeReference.self)
      defs["Reference"] = Schema.anyOf([
        Schema.discriminated("relative", Schema.enumeration(relative)),
        Schema.discriminated("absolute", Schema.object([
          ("year", Schema.integer, true), ("month", Schema.integer, false), ("day", Schema.integer, false),
        ])),
      ])
      defs["Offset"] = Schema.object([("value", Schema.integer, true), ("unit", Schema.enumeration(["hours", "days", "weeks", "months", "years"]), true)])
      defs["TemporalQuery"] = Schema.anyOf([
        Schema.discriminatedFlat("on", [("reference", ref("Reference"), true), ("offset", ref("Offset"), false), ("tense", Schema.enumeration(["past", "current", "future"]), false)]),
        Schema.discriminatedFlat("after", [("reference", ref("Reference"), true), ("offset", ref("Offset"), false)]),
        Schema.discriminatedFlat("before", [("reference", ref("Reference"), true), ("offset", ref("Offset"), false)]),
        Schema.discriminatedFlat("between", [("startReference", ref("Reference"), true), ("startOffset", ref("Offset"), false),
                                             ("endReference", ref("Reference"), true), ("endOffset", ref("Offset"), false)]),
      ])
      nodeTypes.append(ref("Temporal"))
      defs["Temporal"] = Schema.discriminated("temporal", ref("TemporalQuery"))
    }
    if features.contains(.people) {
      addNode("Person", Schema.anyOf(AppleVocabulary.names(AppleVocabulary.PersonRole.self).map { Schema.discriminated($0, Schema.string) }))
      addNode("PersonMe", Schema.anyOf(["fromMe", "toMe"].map { Schema.discriminated($0, Schema.boolean) }))
    }
    if features.contains(.contentType) {
      addNode("ContentType", Schema.object([("contentTypes", Schema.array(Schema.string, description: nil), true)]))
    }
    if features.contains(.similarityMatch) {
      addNode("SemanticSimilar", Schema.object([
        ("contentType", Schema.enumeration(["text", "media", "all"]), true), ("query", Schema.string, true),
        ("keywords", Schema.array(Schema.string, description: "content words of the query"), true),
        ("maxDistance", Schema.number, true), ("maxCount", Schema.integer, true),
      ]))
    }
    defs["QueryNode"] = Schema.anyOf(nodeTypes)

    // The search arguments.
    var search: [(String, JSONValue, Bool)] = [
      ("root", ref("QueryNode"), false),
      ("pageSize", Schema.integer, false),
      ("label", Schema.string, false),
    ]
    if guidance != .focused {
      search.append(("fetchAttributes", Schema.array(Schema.string, description: nil), false))
      search.append(("cursor", Schema.string, false))
      search.append(("postFilters", Schema.array(Schema.string, description: "Spotlight query strings applied after ranking, e.g. rating > 3"), false))
    }
    if features.contains(.ranking) {
      defs["Model"] = Schema.anyOf([
        Schema.discriminated("topic", Schema.object([("terms", Schema.string, true), ("weight", Schema.number, true)])),
        Schema.discriminated("sender", Schema.object([("entity", ref("Entity"), true), ("weight", Schema.number, true)])),
        Schema.discriminated("recipient", Schema.object([("entity", ref("Entity"), true), ("weight", Schema.number, true)])),
        Schema.discriminated("popularity", Schema.object([("weight", Schema.number, true)])),
      ])
      defs["Entity"] = Schema.anyOf([
        Schema.discriminated("user", Schema.string),
        Schema.discriminated("namedPerson", Schema.object([("name", Schema.string, true)])),
      ])
      defs["TemporalModel"] = Schema.anyOf(["recency", "upcoming", "temporalAdjacency"].map {
        Schema.discriminated($0, Schema.object([("multiplier", Schema.number, true)]))
      })
      search.append(("rankingMetadata", Schema.object([
        ("rankingType", Schema.enumeration(["relevance", "recency", "alphabetical", "temporal-adjacency"]), true), ("wasExplicit", Schema.boolean, true),
        ("sortAttribute", Schema.string, false), ("sortDirection", Schema.enumeration(["ascending", "descending"]), false),
      ]), false))
      search.append(("modelComposition", Schema.anyOf([
        Schema.discriminated("none", Schema.object([("placeholder", Schema.integer, true)])),
        Schema.discriminated("purelyTemporal", ref("TemporalModel")),
        Schema.discriminated("nonTemporal", Schema.object([("models", Schema.array(ref("Model"), description: nil), true)])),
        Schema.discriminated("combined", Schema.object([("temporal", ref("TemporalModel"), true), ("models", Schema.array(ref("Model"), description: nil), true)])),
      ]), false))
    }
    var stageNames: [String] = []
    if features.contains(.pipeline) || !customStages(guidance).isEmpty {
      var kinds: [JSONValue] = [
        Schema.discriminated("query", Schema.object([("query", ref("QueryNode"), true), ("from", Schema.string, false), ("limit", Schema.integer, false)])),
      ]
      if features.contains(.pipeline) {
        kinds += [
          Schema.discriminated("filter", Schema.object([("from", Schema.string, true), ("filterPredicate", ref("QueryNode"), true)])),
          Schema.discriminated("sort", Schema.object([("from", Schema.string, true), ("sortBy", Schema.string, true), ("sortOrder", Schema.enumeration(["asc", "desc"]), false)])),
          Schema.discriminated("limit", Schema.object([("from", Schema.string, true), ("limit", Schema.integer, true), ("sortBy", Schema.string, false), ("sortOrder", Schema.enumeration(["asc", "desc"]), false)])),
          Schema.discriminated("groupBy", Schema.object([("from", Schema.string, true), ("attribute", Schema.string, true)])),
          Schema.discriminated("count", Schema.object([("from", Schema.string, true)])),
          Schema.discriminated("valueCount", Schema.object([("from", Schema.string, true), ("bindVariable", Schema.string, false)])),
        ]
        for kind in AppleVocabulary.StageKind.allCases.filter({ $0.statistic != nil }).map(\.rawValue) {
          kinds.append(Schema.discriminated(kind, Schema.object([("from", Schema.string, true), ("field", Schema.string, true), ("bindVariable", Schema.string, false)])))
        }
        kinds.append(Schema.discriminated("extractGroupItems", Schema.object([("from", Schema.string, true), ("groupKey", Schema.string, true), ("limit", Schema.integer, false)])))
        kinds.append(Schema.discriminated("merge", Schema.object([("inputStageIds", Schema.array(Schema.string, description: nil), true)])))
        kinds.append(Schema.discriminated("forEach", Schema.object([("from", Schema.string, true), ("operation", Schema.string, true)])))
      }
      let custom = customStages(guidance)
      if !custom.isEmpty {
        stageNames = custom.map(\.name)
        kinds.append(Schema.discriminated("custom", Schema.object([
          ("from", Schema.string, true), ("stageType", Schema.enumeration(stageNames), true),
          ("parameters", Schema.array(Schema.object([("key", Schema.string, true), ("value", Schema.string, true)]), description: nil), false),
        ])))
      }
      defs["Stage"] = Schema.object([("id", Schema.string, true), ("kind", Schema.anyOf(kinds), true)])
      search.append(("pipeline", Schema.object([("stages", Schema.array(ref("Stage"), description: "begins with a query stage"), true)]), false))
    }
    var queryTypes: [JSONValue] = [Schema.discriminated("search", Schema.object(search))]
    if guidance != .focused {
      queryTypes.append(Schema.discriminated("schema", Schema.object([
        ("queryType", Schema.enumeration(["schema", "attribute", "content_type"]), true), ("attribute", Schema.string, false),
      ])))
      queryTypes.append(Schema.discriminated("help", Schema.object([("topic", Schema.string, true)])))
    }
    let parameters: JSONValue = [
      "type": "object",
      "properties": ["query": Schema.anyOf(queryTypes)],
      "required": ["query"],
      "additionalProperties": false,
      "$defs": .object(defs),
    ]
    return [
      "type": "function",
      "function": [
        "name": .string(name), "description": .string(try description(guidance, catalog: catalog, describer: describer, attributes: attributeNames, stages: customStages(guidance))),
        "strict": true, "parameters": parameters,
      ],
    ]
  }

  func customStages(_ guidance: ToolGuidance) -> [StageDescriptor] {
    let custom = registry.all.map(\.descriptor).filter(\.isCustom)
    switch guidance {
    case .focused: return []
    case .complete: return custom
    case .profile(_, _, let stages): return custom.filter { stages.contains($0.name) }
    }
  }

  /// The description handed to the model: what the index holds and how to call the tool.
  func description(
    _ guidance: ToolGuidance, catalog: IndexSummary, describer: SchemaDescriber, attributes: [String], stages: [StageDescriptor]
  ) throws -> String {
    let features = guidance.features
    var lines = ["Search the user's own items (\(catalog.domainCounts.map(\.name).joined(separator: ", "))). Answer only from the results; say so when nothing relevant is found."]
    if features.contains(.textMatch) { lines.append("Words: root {\"type\":\"allText\",\"value\":{\"terms\":[...]}} (every word required); combine nodes with operation all/any/none.") }
    if features.contains(.dates) { lines.append("Dates: temporal on/after/before/between with relative references (today, yesterday, thisWeek, lastWeek, thisMonth, lastMonth, thisYear, lastYear) or absolute years/months; an item matches by its modification or creation date. Weeks start Monday.") }
    if guidance != .focused {
      var attributeLines: [String] = []
      let limit = guidance == .complete ? 40 : 25
      for attribute in catalog.attributes.filter({ attributes.contains($0.name) }).prefix(limit) {
        var line = "\(attribute.name) (\(attribute.type))"
        if attribute.type.isTextual, let values = try describer.examples(of: attribute.name, atMost: 6) {
          line += ": " + values.map(\.0).joined(separator: ", ")
        }
        attributeLines.append(line)
      }
      lines.append("Attributes: " + attributeLines.joined(separator: "; ") + ".")
    }
    if features.contains(.pipeline) { lines.append("Counts, groups and statistics: a pipeline of stages, each reading 'from' an earlier stage id, starting with a query stage.") }
    for stage in stages {
      lines.append("Custom stage \(stage.name)(\(stage.parameters.map { "\($0.name): \($0.kind.rawValue)\($0.defaultValue.map { " = \($0.displayText)" } ?? "")" }.joined(separator: ", "))): \(stage.abstract)")
    }
    lines.append("Use pageSize (default 20) for at most that many items.")
    return lines.joined(separator: "\n")
  }

  /// The size of a tool definition in tokens, estimated as compact JSON characters / 4.
  public static func estimatedTokens(_ tool: JSONValue) -> Int { tool.compactText.count / 4 }
}

/// JSON-schema building blocks in strict mode.
enum Schema {
  static let string: JSONValue = ["type": "string"]
  static let integer: JSONValue = ["type": "integer"]
  static let number: JSONValue = ["type": "number"]
  static let boolean: JSONValue = ["type": "boolean"]

  static func enumeration(_ values: [String]) -> JSONValue { ["type": "string", "enum": .array(values.map(JSONValue.string))] }

  static func array(_ items: JSONValue, description: String?) -> JSONValue {
    var object: JSONObject = ["type": "array", "items": items]
    if let description { object["description"] = .string(description) }
    return .object(object)
  }

  static func anyOf(_ options: [JSONValue]) -> JSONValue { ["anyOf": .array(options)] }

  /// A closed object; every property is required, optional ones accept null.
  static func object(_ properties: [(String, JSONValue, Bool)]) -> JSONValue {
    var props = JSONObject()
    for (name, schema, required) in properties { props[name] = required ? schema : nullable(schema) }
    return [
      "type": "object", "properties": .object(props), "required": .array(properties.map { .string($0.0) }),
      "additionalProperties": false,
    ]
  }

  static func nullable(_ schema: JSONValue) -> JSONValue {
    if case .object(var object) = schema, case .string(let type)? = object["type"] {
      object["type"] = ["\(type)", "null"].map(JSONValue.string).jsonArray
      // An enum lists every allowed value: null must be one of them too.
      if case .array(let values)? = object["enum"] { object["enum"] = .array(values + [.null]) }
      return .object(object)
    }
    return ["anyOf": [schema, ["type": "null"]]]
  }

  /// `{"type": T, "value": V}`.
  static func discriminated(_ type: String, _ value: JSONValue) -> JSONValue {
    object([("type", enumeration([type]), true), ("value", value, true)])
  }

  /// `{"type": T, ...fields}` (temporal queries carry their fields next to the type).
  static func discriminatedFlat(_ type: String, _ fields: [(String, JSONValue, Bool)]) -> JSONValue {
    object([("type", enumeration([type]), true)] + fields)
  }

  static func discriminatedUnion(_ variants: [(String, JSONValue)]) -> JSONValue {
    anyOf(variants.map { discriminated($0.0, $0.1) })
  }
}

extension Array where Element == JSONValue {
  var jsonArray: JSONValue { .array(self) }
}
