import Foundation
import SearchIndex
import SearchlightTestSupport
import Testing

/// `tool-call`, `tool-schema` and `explain --json` end to end, over the bundled samples with the
/// clock the samples are meant for.
@Suite struct ToolCommandTests {
  static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Sources/searchlight/Samples")
  static let stageExamples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Stages/Examples").path
  static let now = "2026-11-29T12:00:00Z"
  static let budget = #"{"query":{"type":"search","value":{"root":{"type":"allText","value":{"terms":["budget"]}},"pageSize":3}}}"#

  /// The samples, indexed once for every test: the commands under test only read the index.
  static let database: String = {
    let folder = try! TemporaryFiles.folder("searchlight-tool-commands")
    let indexed = try? CLI.run(["index", "--db", "s.db", samples.appendingPathComponent("trails.jsonl").path,
                                samples.appendingPathComponent("notes.jsonl").path, samples.appendingPathComponent("notes-folder").path], in: folder)
    precondition(indexed?.status == 0, "indexing the samples failed: \(indexed.map(\.description) ?? "no run")")
    return folder.appendingPathComponent("s.db").path
  }()

  /// Runs `body` in a fresh workspace, with the samples' index at `Self.database`.
  func withSamples(_ body: (Workspace) throws -> Void) throws {
    try Workspace.with { workspace in try body(workspace) }
  }

  func lines(_ text: String) throws -> [JSONValue] {
    try text.split(separator: "\n").map { try JSONParser.parse(String($0)) }
  }

  // MARK: tool-call

  @Test func toolCallPrintsRepliesAsJSONLines() throws {
    try withSamples { workspace in
      let result = try workspace.run("tool-call", "--db", Self.database, "--now", Self.now, Self.budget)
      #expect(result.status == 0, "\(result)")
      #expect(result.stderr.isEmpty)
      let replies = try lines(result.stdout)
      #expect(replies.count == 1)
      let reply = try #require(replies.first)
      #expect(reply["queryToken"]?.stringValue?.isEmpty == false)
      #expect(reply["label"] == "Search results")
      #expect(reply["content"]?["type"] == "items")
      let items = try #require(reply["content"]?["items"]?.arrayValue)
      #expect(items.count == 3)
      #expect(items.allSatisfy { $0["attributes"]?["title"] != nil })
      #expect(items.allSatisfy { $0["attributes"]?["textContent"] == nil }, "only the fetch attributes")
    }
  }

  @Test func aPipelinePrintsOneLinePerReply() throws {
    try withSamples { workspace in
      let call = #"{"query":{"type":"search","value":{"pipeline":{"stages":[{"id":"q","kind":{"type":"query","value":{"query":{"type":"predicate","value":{"attribute":"domainIdentifier","operator":"equals","value":{"type":"string","value":"trails"}}}}}},{"id":"n","kind":{"type":"count","value":{"from":"q"}}},{"id":"a","kind":{"type":"valueAverage","value":{"from":"q","field":"rating"}}}]}}}}"#
      let result = try workspace.run("tool-call", "--db", Self.database, "--now", Self.now, call)
      #expect(result.status == 0, "\(result)")
      let replies = try lines(result.stdout)
      #expect(replies.map { $0["label"]?.stringValue ?? "" } == ["n", "a"])
      #expect(replies[0]["content"]?["count"] == 81)
      #expect(replies[1]["content"]?["type"] == "statistic")
      #expect(Set(replies.compactMap { $0["queryToken"]?.stringValue }).count == 1, "one execution")
    }
  }

  @Test func forModelPrintsTheFencedText() throws {
    try withSamples { workspace in
      let result = try workspace.run("tool-call", "--db", Self.database, "--now", Self.now, "--for-model", Self.budget)
      #expect(result.status == 0, "\(result)")
      #expect(result.stdout.hasPrefix("query token: q"))
      #expect(result.stdout.contains("<data>\n## Search results (items)\n[1] id: "))
      #expect(result.stdout.contains(#"for the next page call again with "cursor": "offset:3"."#))
      #expect(result.stdout.contains("</data>\nMore items match"))
    }
  }

  @Test func showQueryPrintsTheQueryOnStandardError() throws {
    try withSamples { workspace in
      let result = try workspace.run("tool-call", "--db", Self.database, "--now", Self.now, "--show-query", Self.budget)
      #expect(result.status == 0)
      #expect(result.stderr == "query: search (\"budget\") | top 4\n")
    }
  }

  @Test func aDashReadsTheCallFromStandardInput() throws {
    try withSamples { workspace in
      let fromArgument = try workspace.run("tool-call", "--db", Self.database, "--now", Self.now, Self.budget)
      let fromInput = try workspace.run(["tool-call", "--db", Self.database, "--now", Self.now, "-"], stdin: Self.budget + "\n")
      #expect(fromInput.status == 0, "\(fromInput)")
      let ids = { (text: String) in try self.lines(text).flatMap { $0["content"]?["items"]?.arrayValue ?? [] }.map { $0["id"]?.stringValue ?? "" } }
      #expect(try ids(fromInput.stdout) == ids(fromArgument.stdout))
      #expect(try ids(fromInput.stdout).count == 3)
    }
  }

  @Test func anInvalidCallPrintsTheErrorAsJSONAndExits65() throws {
    try withSamples { workspace in
      let result = try workspace.run("tool-call", "--db", Self.database, "--now", Self.now, #"{"query":{"type":"search","value":{"root":{"type":"alltext","value":{"terms":["x"]}}}}}"#)
      #expect(result.status == 65)
      #expect(result.exitedNormally)
      let error = try #require(try lines(result.stdout).first?["error"])
      #expect(error["path"] == "$.query.value.root.type")
      #expect(error["message"] == #"unknown query node type "alltext"; did you mean "allText"?"#)
      #expect(error["expected"]?.stringValue?.hasPrefix("one of operation, predicate") == true)
      #expect(error["example"] != nil)
    }
  }

  @Test func aCallTheEngineRefusesPointsAtItsJSONPath() throws {
    try withSamples { workspace in
      let call = #"{"query":{"type":"search","value":{"root":{"type":"predicate","value":{"attribute":"titel","operator":"equals","value":{"type":"string","value":"x"}}}}}}"#
      let result = try workspace.run("tool-call", "--db", Self.database, "--now", Self.now, call)
      #expect(result.status == 65)
      let error = try #require(try lines(result.stdout).first?["error"])
      #expect(error["path"] == "$.query.value.root.value.attribute")
      #expect(error["message"] == "unknown attribute 'titel'")
      #expect(error["expected"] == "did you mean 'title'?")
      let forModel = try workspace.run("tool-call", "--db", Self.database, "--now", Self.now, "--for-model", call)
      #expect(forModel.status == 65)
      #expect(forModel.stdout.hasPrefix("The tool call was invalid and did not run. Correct it and call again.\ninvalid tool call at $.query.value.root.value.attribute: unknown attribute 'titel'\n"))
    }
  }

  @Test func invalidJSONIsAnInBandErrorToo() throws {
    try withSamples { workspace in
      let result = try workspace.run(["tool-call", "--db", Self.database, "-"], stdin: #"{"query": {"type": "search""#)
      #expect(result.status == 65)
      let error = try #require(try lines(result.stdout).first?["error"])
      #expect(error["path"] == "$")
      #expect(error["message"]?.stringValue?.hasPrefix("the arguments are not valid JSON: ") == true)
    }
  }

  @Test func schemaAndHelpAnswersPrintAsText() throws {
    try withSamples { workspace in
      let schema = try workspace.run("tool-call", "--db", Self.database, "--now", Self.now, #"{"query":{"type":"schema","value":{"queryType":"attribute","attribute":"difficulty"}}}"#)
      #expect(schema.status == 0)
      let text = try #require(try lines(schema.stdout).first?["text"]?.stringValue)
      #expect(text.hasPrefix("values of difficulty (value: items), most common first:\n- moderate: 32\n"))
      let help = try workspace.run("tool-call", "--db", Self.database, "--for-model", #"{"query":{"type":"help","value":{"topic":"temporal"}}}"#)
      #expect(help.status == 0)
      #expect(help.stdout.hasPrefix("temporal: "))
    }
  }

  @Test func theIdentityFileMakesPersonMeWork() throws {
    try withSamples { workspace in
      let call = #"{"query":{"type":"search","value":{"root":{"type":"personMe","value":{"type":"toMe","value":true}},"pageSize":2}}}"#
      let without = try workspace.run("tool-call", "--db", Self.database, "--now", Self.now, call)
      #expect(without.status == 65)
      #expect(without.stdout.contains("no identity is configured"))
      try workspace.write("me.json", #"{"names":["Alex Morgan"],"emails":["alex.morgan@example.com"]}"#)
      let with = try workspace.run("tool-call", "--db", Self.database, "--now", Self.now, "--identity", "me.json", call)
      #expect(with.status == 0, "\(with)")
      #expect(try lines(with.stdout).first?["content"]?["items"]?.arrayValue?.count == 2)
    }
  }

  @Test func protectedItemsNeedTheirClass() throws {
    try withSamples { workspace in
      let call = #"{"query":{"type":"search","value":{"root":{"type":"allText","value":{"terms":["passwords"]}},"fetchAttributes":["title"]}}}"#
      let plain = try workspace.run("tool-call", "--db", Self.database, "--now", Self.now, call)
      #expect(plain.status == 0)
      #expect(!plain.stdout.contains(#""id":"note-4""#))
      let granted = try workspace.run("tool-call", "--db", Self.database, "--now", Self.now, "--protection", "private", call)
      #expect(granted.stdout.contains(#""id":"note-4""#))
    }
  }

  @Test func customStagesFromAFolderRunInACall() throws {
    try withSamples { workspace in
      let call = #"{"query":{"type":"search","value":{"pipeline":{"stages":[{"id":"q","kind":{"type":"query","value":{"query":{"type":"predicate","value":{"attribute":"domainIdentifier","operator":"equals","value":{"type":"string","value":"trails"}}}}}},{"id":"n","kind":{"type":"custom","value":{"from":"q","stageType":"nearby","parameters":[{"key":"latitude","value":"45.52"},{"key":"longitude","value":"-122.68"},{"key":"radius","value":"60"}]}}}]}}}}"#
      let result = try workspace.run("tool-call", "--db", Self.database, "--now", Self.now, "--stages", Self.stageExamples, call)
      #expect(result.status == 0, "\(result)")
      let reply = try #require(try lines(result.stdout).first)
      #expect(reply["content"]?["type"] == "scoredItems")
      #expect(reply["content"]?["items"]?.arrayValue?.first?["item"]?["id"] == "trail-13")
    }
  }

  @Test func aMissingCallIsAUsageError() throws {
    try withSamples { workspace in
      let result = try workspace.run("tool-call", "--db", Self.database)
      #expect(result.status == 64)
      #expect(result.stdout.isEmpty)
    }
  }

  // MARK: tool-schema

  @Test func toolSchemaPrintsTheFocusedToolByDefault() throws {
    try withSamples { workspace in
      let result = try workspace.run("tool-schema", "--db", Self.database, "--tokens")
      #expect(result.status == 0, "\(result)")
      let tool = try JSONParser.parse(result.stdout)
      #expect(result.stdout.split(separator: "\n").count == 1, "compact")
      #expect(tool["type"] == "function")
      #expect(tool["function"]?["strict"] == true)
      #expect(tool["function"]?["parameters"]?["$defs"]?["Stage"] == nil)
      let tokens = try #require(result.stderr.split(separator: " ").dropFirst().first.flatMap { Int($0) })
      #expect(result.stderr == "about \(tokens) tokens\n")
      #expect(tokens == result.stdout.trimmingCharacters(in: .newlines).count / 4)
      #expect(tokens <= 1500)
    }
  }

  @Test(arguments: ["focused", "complete", "profile:textMatch,dates,people", "profile:numericMatch,pipeline,attributes=title|rating,stages=nearby"])
  func toolSchemaPrintsEveryGuidanceLevel(_ level: String) throws {
    try withSamples { workspace in
      let result = try workspace.run("tool-schema", "--db", Self.database, "--stages", Self.stageExamples, "--guide", level)
      #expect(result.status == 0, "\(result)")
      let tool = try JSONParser.parse(result.stdout)
      #expect(tool["function"]?["name"] == "search_items")
      #expect(result.stdout.contains(#""nearby""#) == (level == "complete" || level.contains("stages=nearby")))
      #expect(result.stdout.contains(#""importantNotes""#) == (level == "complete"))
    }
  }

  @Test func anUnknownGuideIsAUsageError() throws {
    try withSamples { workspace in
      let result = try workspace.run("tool-schema", "--db", Self.database, "--guide", "everything")
      #expect(result.status == 64)
      #expect(result.stdout.isEmpty)
      #expect(result.stderr.hasPrefix("error: unknown guidance 'everything'\n"))
      let feature = try workspace.run("tool-schema", "--db", Self.database, "--guide", "profile:textMatch,peple")
      #expect(feature.status == 64)
      #expect(feature.stderr.hasPrefix("error: unknown profile feature 'peple'; did you mean 'people'?\n"))
    }
  }

  // MARK: explain --json

  @Test func explainJSONPrintsAToolCallThatReturnsTheSameResults() throws {
    try withSamples { workspace in
      let query = #"search domainIdentifier == "trails" && rating >= 4.8 | sort distance desc | limit 4"#
      let explained = try workspace.run("explain", "--db", Self.database, "--now", Self.now, "--json", query)
      #expect(explained.status == 0, "\(explained)")
      #expect(explained.stderr.isEmpty, "structured, no note")
      let call = try JSONParser.parse(explained.stdout)
      #expect(call["query"]?["type"] == "search")
      let stages = try #require(call["query"]?["value"]?["pipeline"]?["stages"]?.arrayValue)
      #expect(stages.map { $0["kind"]?["type"]?.stringValue ?? "" } == ["query", "sort", "limit"])
      let viaTool = try workspace.run("tool-call", "--db", Self.database, "--now", Self.now, explained.stdout.trimmingCharacters(in: .newlines))
      let viaQuery = try workspace.run("query", "--db", Self.database, "--now", Self.now, "--format", "json", query)
      let ids = { (text: String) in try self.lines(text).flatMap { $0["content"]?["items"]?.arrayValue ?? [] }.map { $0["id"]?.stringValue ?? "" } }
      #expect(try ids(viaTool.stdout) == ids(viaQuery.stdout))
      #expect(try ids(viaTool.stdout).count == 4)
    }
  }

  @Test func explainJSONFallsBackToTheDslFormWithANote() throws {
    try withSamples { workspace in
      let query = #"search "budget" | score relevance + recency(contentModificationDate, 30d) | top 3"#
      let explained = try workspace.run("explain", "--db", Self.database, "--now", Self.now, "--json", query)
      #expect(explained.status == 0)
      #expect(explained.stderr == "note: printed as a dsl query: 'score' has no structured form\n")
      let call = try JSONParser.parse(explained.stdout)
      #expect(call == ["query": ["type": "dsl", "value": ["query": .string(query)]]])
      let viaTool = try workspace.run("tool-call", "--db", Self.database, "--now", Self.now, explained.stdout.trimmingCharacters(in: .newlines))
      #expect(viaTool.status == 0)
      #expect(try lines(viaTool.stdout).first?["content"]?["type"] == "scoredItems")
    }
  }

  @Test func explainJSONOfABadQueryExits65() throws {
    try withSamples { workspace in
      let result = try workspace.run("explain", "--db", Self.database, "--json", #"search titel == "x""#)
      #expect(result.status == 65)
      #expect(result.stderr.hasPrefix("error: unknown attribute 'titel'\n"))
    }
  }
}
