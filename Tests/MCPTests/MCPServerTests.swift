import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Stages
import Synchronization
import Testing

/// A stage that runs until its query is cancelled (or a safety limit passes), to test
/// cancellation of a running tool call.
struct WaitUntilCancelled: CustomStage {
  var name: String { "waitUntilCancelled" }
  var description: String { "Waits until the query is cancelled" }
  var signatures: [StageDescriptor.Signature] { [.init(.items, .items)] }
  var parameters: [StageParameter] { [] }
  func execute(_ input: PipelineData, arguments: StageArguments, context: any StageContext) throws -> PipelineData {
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
      try context.cancellation.check()
      usleep(2000)
    }
    return input
  }
}

/// Collects what the server sends.
final class Outbox: Sendable {
  private let messages = Mutex<[JSONValue]>([])
  func append(_ line: String) { messages.withLock { $0.append(try! JSONParser.parse(line)) } }
  var all: [JSONValue] { messages.withLock { $0 } }
  func response(_ id: Int) -> JSONValue? { all.first { $0["id"] == .number(Double(id)) } }
}

@Suite struct MCPServerTests {
  func makeServer(_ scope: AccessScope = AccessScope(now: SampleIndex.now)) throws -> (MCPServer, Outbox) {
    var registry = StandardLibrary.registry()
    try registry.register(WaitUntilCancelled())
    let executor = QueryExecutor(index: SampleIndex.shared, registry: registry)
    var options = SampleIndex.options
    options.scope = scope
    let definition = try ToolSchemaGenerator(index: SampleIndex.shared, registry: registry, scope: scope).tool(.complete)
    let outbox = Outbox()
    let server = MCPServer(tool: SearchTool(executor: executor, options: options), toolDefinition: definition, send: { outbox.append($0) })
    return (server, outbox)
  }

  func initialize(_ server: MCPServer, version: String = "2025-06-18") {
    server.handle(#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"\#(version)","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#)
    server.handle(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
  }

  func call(_ server: MCPServer, id: Int, _ arguments: String) {
    server.handle(#"{"jsonrpc":"2.0","id":\#(id),"method":"tools/call","params":{"name":"search_items","arguments":\#(arguments)}}"#)
  }

  @Test(arguments: [("2025-06-18", "2025-06-18"), ("2025-11-25", "2025-11-25"), ("2024-11-05", "2025-11-25")])
  func initializeAnswersWithTheClientsVersionWhenSupported(requested: String, answered: String) throws {
    let (server, outbox) = try makeServer()
    initialize(server, version: requested)
    let result = try #require(outbox.response(1)?["result"])
    #expect(result["protocolVersion"] == .string(answered))
    #expect(result["capabilities"]?["tools"] != nil)
    #expect(result["capabilities"]?["resources"] != nil)
    #expect(result["serverInfo"]?["name"] == "searchlight")
  }

  @Test func requestsBeforeInitializeAreRefusedButPingWorks() throws {
    let (server, outbox) = try makeServer()
    server.handle(#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#)
    server.handle(#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#)
    #expect(outbox.response(7)?["error"]?["code"] == .number(-32600))
    #expect(outbox.response(8)?["result"] == .object([:]))
  }

  @Test func toolsListOffersTheGeneratedSchema() throws {
    let (server, outbox) = try makeServer()
    initialize(server)
    server.handle(#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
    let tools = try #require(outbox.response(2)?["result"]?["tools"]?.arrayValue)
    #expect(tools.count == 1)
    #expect(tools[0]["name"] == "search_items")
    #expect(tools[0]["inputSchema"]?["additionalProperties"] == .bool(false))
    #expect(tools[0]["description"]?.stringValue?.contains("Search the user's own items") == true)
  }

  @Test func aValidCallReturnsTextAndStructuredReplies() throws {
    let (server, outbox) = try makeServer()
    initialize(server)
    call(server, id: 3, #"{"query":{"type":"search","value":{"root":{"type":"allText","value":{"terms":["kitchen","remodel"]}},"pageSize":2}}}"#)
    server.waitForRunningCalls()
    let result = try #require(outbox.response(3)?["result"])
    #expect(result["isError"] == .bool(false))
    let text = try #require(result["content"]?.arrayValue?.first?["text"]?.stringValue)
    #expect(text.contains("<data>") && text.contains("</data>"))
    let replies = try #require(result["structuredContent"]?["replies"]?.arrayValue)
    let items = try #require(replies.first?["content"]?["items"]?.arrayValue)
    #expect(items.count == 2)
    #expect(replies.first?["queryToken"]?.stringValue?.hasPrefix("q") == true)
  }

  @Test func anInvalidCallIsAToolErrorWithTheRepairNotAProtocolError() throws {
    let (server, outbox) = try makeServer()
    initialize(server)
    call(server, id: 4, #"{"query":{"type":"search","value":{"root":{"type":"predicate","value":{"attribute":"titel","operator":"equals","value":{"type":"string","value":"x"}}}}}}"#)
    server.waitForRunningCalls()
    let response = try #require(outbox.response(4))
    #expect(response["error"] == nil)
    #expect(response["result"]?["isError"] == .bool(true))
    let text = response["result"]?["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
    #expect(text.contains("$.query.value.root.value.attribute"))
    #expect(text.contains("did you mean 'title'?"))
  }

  @Test func cancellationStopsTheRunningCallAndItGetsNoResponse() throws {
    let (server, outbox) = try makeServer()
    initialize(server)
    call(server, id: 5, #"{"query":{"type":"dsl","value":{"query":"search * | waitUntilCancelled"}}}"#)
    server.handle(#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#)
    #expect(outbox.response(6) != nil, "the server keeps serving while a call runs")
    server.handle(#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user stopped"}}"#)
    server.waitForRunningCalls()
    #expect(outbox.response(5) == nil)
  }

  @Test func returnedItemsBecomeReadableResources() throws {
    let (server, outbox) = try makeServer()
    initialize(server)
    call(server, id: 3, #"{"query":{"type":"search","value":{"root":{"type":"allText","value":{"terms":["Orion"]}},"pageSize":3}}}"#)
    server.waitForRunningCalls()
    server.handle(#"{"jsonrpc":"2.0","id":9,"method":"resources/list"}"#)
    let resources = try #require(outbox.response(9)?["result"]?["resources"]?.arrayValue)
    #expect(resources.count == 3)
    let uri = try #require(resources.first?["uri"]?.stringValue)
    #expect(uri.hasPrefix("searchlight://item/"))
    server.handle(#"{"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"uri":"\#(uri)"}}"#)
    let contents = try #require(outbox.response(10)?["result"]?["contents"]?.arrayValue?.first)
    let item = try JSONParser.parse(try #require(contents["text"]?.stringValue))
    #expect("searchlight://item/" + (item["id"]?.stringValue ?? "") == uri)
  }

  @Test func protectedAndExpiredItemsAreNeverReadableOutsideTheScope() throws {
    let (server, outbox) = try makeServer()
    initialize(server)
    // note-4 is private; mail-6 expired before the fixed clock.
    server.handle(#"{"jsonrpc":"2.0","id":11,"method":"resources/read","params":{"uri":"searchlight://item/note-4"}}"#)
    server.handle(#"{"jsonrpc":"2.0","id":12,"method":"resources/read","params":{"uri":"searchlight://item/mail-6"}}"#)
    #expect(outbox.response(11)?["error"]?["code"] == .number(-32002))
    #expect(outbox.response(12)?["error"]?["code"] == .number(-32002))
    let (granted, grantedOutbox) = try makeServer(AccessScope(now: SampleIndex.now, protectionClasses: ["private"]))
    initialize(granted)
    granted.handle(#"{"jsonrpc":"2.0","id":11,"method":"resources/read","params":{"uri":"searchlight://item/note-4"}}"#)
    #expect(grantedOutbox.response(11)?["result"] != nil)
  }

  @Test(arguments: [
    ("not json", -32700, false),
    (#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, -32600, false),
    (#"{"jsonrpc":"1.0","id":21,"method":"ping"}"#, -32600, true),
    (#"{"jsonrpc":"2.0","id":21}"#, -32600, true),
    (#"{"jsonrpc":"2.0","id":21,"method":"tools/explode"}"#, -32601, true),
    (#"{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"other"}}"#, -32602, true),
    (#"{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"arguments":{}}}"#, -32602, true),
    (#"{"jsonrpc":"2.0","id":21,"method":"resources/read","params":{}}"#, -32602, true),
    (#"{"jsonrpc":"2.0","id":21,"method":"ping","params":[1]}"#, -32602, true),
  ])
  func malformedInputGetsTheJSONRPCErrorAndTheServerKeepsServing(message: String, code: Int, hasID: Bool) throws {
    let (server, outbox) = try makeServer()
    initialize(server)
    server.handle(message)
    let error = try #require(outbox.all.last?["error"])
    #expect(error["code"] == .number(Double(code)))
    #expect(outbox.all.last?["id"] == (hasID ? .number(21) : .null))
    server.handle(#"{"jsonrpc":"2.0","id":99,"method":"ping"}"#)
    #expect(outbox.response(99)?["result"] != nil)
  }

  @Test func aHugeOperationIsAToolErrorAndTheServerKeepsServing() throws {
    let (server, outbox) = try makeServer()
    initialize(server)
    let children = (0..<20_000).map { #"{"type":"predicate","value":{"attribute":"title","operator":"equals","value":{"type":"string","value":"w\#($0)"}}}"# }
    call(server, id: 31, #"{"query":{"type":"search","value":{"root":{"type":"operation","value":{"logic":"any","children":["# + children.joined(separator: ",") + "]}}}}}")
    server.waitForRunningCalls()
    let result = try #require(outbox.response(31)?["result"])
    #expect(result["isError"] == .bool(true))
    let text = result["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
    #expect(text.contains("the query has more than 1000 comparisons and calls"), "\(text)")
    // A flat OR of 10,000 words is within the limits and runs.
    let words = (0..<9_999).map { "\\\"w\($0)\\\"" }.joined(separator: " || ") + " || \\\"Orion\\\""
    call(server, id: 32, #"{"query":{"type":"dsl","value":{"query":"search "# + words + #""}}}"#)
    server.waitForRunningCalls()
    #expect(outbox.response(32)?["result"]?["isError"] == .bool(false), "\(String(describing: outbox.response(32)))")
    server.handle(#"{"jsonrpc":"2.0","id":33,"method":"ping"}"#)
    #expect(outbox.response(33)?["result"] != nil)
  }

  @Test func anOversizedMessageIsRefusedUnparsed() throws {
    let (server, outbox) = try makeServer()
    initialize(server)
    server.handle(#"{"jsonrpc":"2.0","id":30,"method":"ping","params":{"pad":""# + String(repeating: "x", count: MCPServer.maximumMessageBytes) + #""}}"#)
    #expect(outbox.all.last?["error"]?["code"] == .number(-32600))
  }
}
