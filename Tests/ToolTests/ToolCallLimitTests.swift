import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Testing

/// Oversized and overdeep tool calls are refused in band with the limit named and the path of
/// the node that crossed it; they never overflow the stack.
@Suite struct ToolCallLimitTests {
  static func titles(_ count: Int) -> [String] {
    (0..<count).map { Call.predicate("title", "equals", Call.string("w\($0)")) }
  }

  static func any(_ children: [String]) -> String {
    #"{"type":"operation","value":{"logic":"any","children":["# + children.joined(separator: ",") + "]}}"
  }

  @Test func twentyThousandChildrenAreRefusedAtTheFirstOneOverTheLimit() throws {
    let call = Call.root(Self.any(Self.titles(20_000)))
    let result = try Harness.tool().call(call)
    #expect(result.isError)
    #expect(result.replies.isEmpty)
    #expect(result.error?.message == "the query has more than 1000 comparisons and calls")
    #expect(result.error?.path == "$.query.value.root.value.children[1000].value.attribute")
  }

  @Test func aThousandChildrenRun() throws {
    let call = Call.root(Self.any(Self.titles(999) + [Call.predicate("title", "equals", Call.string("Mist Trail"))]))
    let result = try Harness.tool().call(call)
    #expect(!result.isError, "\(result.text)")
    #expect(result.replies.flatMap { $0.content.resultItems.map(\.id) } == ["trail-1"])
  }

  @Test func deeplyNestedOperationsAreRefused() throws {
    var node = Call.trails
    for _ in 0..<300 { node = Self.any([node]) }
    let result = try Harness.tool().call(Call.root(node))
    #expect(result.isError)
    #expect(result.error?.message.contains("nested too deeply") == true, "\(result.text)")
  }
}
