import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Stages
import Testing

/// The generated tool definitions: OpenAI function form, valid under strict mode, small enough
/// for their contexts, listing the custom stages, and accepting the calls of the decode suite
/// that keep to their features.
@Suite struct ToolSchemaTests {
  static let levels = ["focused", "complete", "profile:textMatch,dates,people,stages=nearby", "profile:numericMatch,contentType,pipeline,ranking,attributes=title|rating|stateOrProvince"]

  static func tool(_ level: String, registry: StageRegistry = Harness.registry) throws -> JSONValue {
    try ToolSchemaGenerator(index: SampleIndex.shared, registry: registry, scope: SampleIndex.options.scope).tool(ToolGuidance(parsing: level))
  }

  static func parameters(_ level: String) throws -> JSONValue {
    try #require(try tool(level)["function"]?["parameters"])
  }

  @Test(arguments: levels)
  func theToolIsAStrictFunction(_ level: String) throws {
    let tool = try Self.tool(level)
    #expect(tool.objectValue?.keys == ["type", "function"])
    #expect(tool["type"] == "function")
    let function = try #require(tool["function"]?.objectValue)
    #expect(Set(function.keys) == ["name", "description", "strict", "parameters"])
    #expect(function["name"] == "search_items")
    #expect(function["strict"] == true)
    let description = function["description"]?.stringValue ?? ""
    #expect(!description.isEmpty)
    let parameters = try #require(function["parameters"])
    #expect(parameters["type"] == "object")
    #expect(parameters["required"] == ["query"])
    #expect(parameters["additionalProperties"] == false)
  }

  @Test(arguments: levels)
  func everyObjectIsClosedAndRequiresEveryProperty(_ level: String) throws {
    let parameters = try Self.parameters(level)
    for (path, schema) in JSONSchemaValidator.subschemas(parameters) {
      let types = schema["type"]?.arrayValue?.compactMap(\.stringValue) ?? [schema["type"]?.stringValue].compactMap { $0 }
      guard types.contains("object") else { continue }
      #expect(schema["additionalProperties"] == false, "\(path)")
      let properties = schema["properties"]?.objectValue?.keys ?? []
      let required = schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? []
      #expect(Set(required) == Set(properties), "\(path): required \(required), properties \(properties)")
      #expect(required.count == properties.count, "\(path): no duplicates")
    }
  }

  @Test(arguments: levels)
  func theSchemaKeepsToTheSubsetStrictModeAndTheValidatorKnow(_ level: String) throws {
    for (path, schema) in JSONSchemaValidator.subschemas(try Self.parameters(level)) {
      for key in schema.objectValue?.keys ?? [] {
        #expect(JSONSchemaValidator.keywords.contains(key), "\(path) uses \(key)")
      }
    }
  }

  @Test(arguments: levels)
  func everyReferenceResolves(_ level: String) throws {
    let parameters = try Self.parameters(level)
    let validator = JSONSchemaValidator(root: parameters)
    var references = 0
    for (path, schema) in JSONSchemaValidator.subschemas(parameters) {
      guard let reference = schema["$ref"]?.stringValue else { continue }
      references += 1
      #expect(reference.hasPrefix("#/$defs/"), "\(path)")
      #expect(validator.resolve(reference) != nil, "\(path): \(reference)")
    }
    #expect(references > 0)
  }

  @Test(arguments: levels)
  func optionalEnumsAcceptNull(_ level: String) throws {
    // Nullable enum: the type admits null and so must the list of values.
    for (path, schema) in JSONSchemaValidator.subschemas(try Self.parameters(level)) {
      guard let types = schema["type"]?.arrayValue, types.contains("null"), let values = schema["enum"]?.arrayValue else { continue }
      #expect(values.contains(.null), "\(path)")
    }
  }

  @Test func theFocusedToolFitsInFifteenHundredTokens() throws {
    let tokens = ToolSchemaGenerator.estimatedTokens(try Self.tool("focused"))
    #expect(tokens <= 1500, "\(tokens) tokens")
  }

  @Test func theCompleteToolFitsInSixThousandTokens() throws {
    let tokens = ToolSchemaGenerator.estimatedTokens(try Self.tool("complete"))
    #expect(tokens <= 6000, "\(tokens) tokens")
  }

  @Test func tokensAreCompactCharactersOverFour() throws {
    let tool = try Self.tool("focused")
    #expect(ToolSchemaGenerator.estimatedTokens(tool) == tool.compactText.count / 4)
  }

  @Test func focusedOffersWordsDatesAndPagesOnly() throws {
    let parameters = try Self.parameters("focused")
    let defs = try #require(parameters["$defs"]?.objectValue)
    #expect(defs["AllText"] != nil)
    #expect(defs["Temporal"] != nil)
    #expect(defs["Predicate"] == nil)
    #expect(defs["Stage"] == nil)
    let queryTypes = try #require(parameters["properties"]?["query"]?["anyOf"]?.arrayValue)
    #expect(queryTypes.count == 1, "search only")
  }

  @Test func customStagesAppearInCompleteAndInProfilesThatNameThem() throws {
    func stageTypes(_ level: String) throws -> [String] {
      let text = try Self.tool(level).compactText
      return ["freshness", "importantNotes", "nearby"].filter { text.contains("\"\($0)\"") }
    }
    #expect(try stageTypes("complete") == ["freshness", "importantNotes", "nearby"])
    #expect(try stageTypes("profile:textMatch,stages=nearby") == ["nearby"])
    #expect(try stageTypes("profile:textMatch,dates") == [])
    #expect(try stageTypes("focused") == [])
    let description = try #require(try Self.tool("profile:textMatch,stages=nearby")["function"]?["description"]?.stringValue)
    #expect(description.contains("Custom stage nearby(latitude: number, longitude: number, radius: number = 50): "))
    #expect(!description.contains("freshness"))
  }

  @Test func aCustomStageRegisteredInSwiftAppearsToo() throws {
    var registry = StandardLibrary.registry()
    try registry.register(.freshness(halfLife: 7 * 86400, weight: 0.3))
    let text = try Self.tool("complete", registry: registry).compactText
    #expect(text.contains(#""enum":["freshness"]"#))
    #expect(text.contains("Custom stage freshness(halfLife: duration = 604800, weight: number = 0.3, attribute: attribute = contentModificationDate)"))
  }

  @Test func theDescriptionNamesTheDomainsAndAttributes() throws {
    let description = try #require(try Self.tool("complete")["function"]?["description"]?.stringValue)
    #expect(description.hasPrefix("Search the user's own items (mail.archive, mail.inbox, mail.sent, notes, notes.personal, notes.work, trails)."))
    #expect(description.contains("stateOrProvince (string)"))
    #expect(description.contains("Use pageSize (default 20)"))
  }

  @Test func aProfileOffersItsAttributesOnly() throws {
    let parameters = try Self.parameters("profile:numericMatch,attributes=title|rating")
    let attributes = try #require(parameters["$defs"]?["Predicate"]?["properties"]?["value"]?["properties"]?["attribute"]?["enum"])
    #expect(attributes == ["title", "rating"])
  }

  @Test func unknownGuidanceIsAnError() throws {
    #expect(throws: ToolCallError.self) { try ToolGuidance(parsing: "everything") }
    do {
      _ = try ToolGuidance(parsing: "profile:textMatch,date")
      Issue.record("accepted an unknown feature")
    } catch {
      #expect(error.message == "unknown profile feature 'date'; did you mean 'dates'?")
      #expect(error.path == "--guide")
    }
  }

  // MARK: The decode suite against the schemas

  /// Levels whose schemas must accept a call of `level`.
  static func levels(for level: SchemaLevel) -> [String] {
    switch level {
    case .focused: ["focused", "complete"]
    case .complete: ["complete"]
    case .profile(let profile): [profile, "complete"]
    case .appleOnly: []
    }
  }

  static let schemaCases = ToolCases.all.filter { !levels(for: $0.level).isEmpty }

  @Test(arguments: schemaCases)
  func aCallValidatesAgainstTheSchemaOfItsLevel(_ c: ToolCase) throws {
    let identity = c.needsIdentity ? Harness.identity : Identity()
    let sparse = try Harness.searchRequest(c.call, identity: identity)
    for level in Self.levels(for: c.level) {
      let validator = JSONSchemaValidator(root: try Self.parameters(level))
      // A strict-mode model sends every property: the optional ones it does not use as null.
      let strict = validator.filled(try Harness.json(c.call))
      let problems = validator.errors(strict)
      #expect(problems.isEmpty, "\(level): \(problems.joined(separator: "\n"))\n\(strict.compactText)")
      guard case .search(let dense) = try Harness.decoder(identity: identity).decode(strict) else {
        Issue.record("not a search")
        continue
      }
      #expect(dense.query == sparse.query, "\(level): nulls change the query")
    }
  }

  @Test func theSuiteCoversEveryLevel() {
    #expect(Self.schemaCases.filter { $0.level == .focused }.count >= 20)
    #expect(Self.schemaCases.filter { $0.level == .complete }.count >= 40)
    #expect(Self.schemaCases.contains { if case .profile = $0.level { true } else { false } })
  }

  @Test(arguments: ["focused", "complete"])
  func schemaAndHelpCallsValidateWhereOffered(_ level: String) throws {
    let validator = JSONSchemaValidator(root: try Self.parameters(level))
    let calls = [
      #"{"query":{"type":"schema","value":{"queryType":"attribute","attribute":"stateOrProvince"}}}"#,
      #"{"query":{"type":"help","value":{"topic":"temporal"}}}"#,
    ]
    for call in calls {
      let problems = validator.errors(validator.filled(try Harness.json(call)))
      #expect(problems.isEmpty == (level == "complete"), "\(level): \(problems)")
    }
  }

  @Test func theValidatorRejectsWhatTheSchemaForbids() throws {
    let validator = JSONSchemaValidator(root: try Self.parameters("complete"))
    let bad = [
      Call.root(Call.allText("x"), #""rows":3"#),
      Call.root(#"{"type":"allText","value":{"terms":"x"}}"#),
      Call.root(Call.predicate("titel", "equals", Call.string("x"))),
      Call.root(Call.predicate("title", "startsWith", Call.string("x"))),
      Call.pipeline([Call.trailsStage, Call.stage("s", "sort", #"{"from":"q","sortBy":"title","sortOrder":"up"}"#)]),
    ]
    for call in bad {
      #expect(!validator.errors(validator.filled(try Harness.json(call))).isEmpty, "\(call)")
    }
  }
}
