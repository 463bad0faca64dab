@testable import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Stages
import Testing

/// An index that keeps text searchable but not stored (`sync --no-store-text`, Apple's
/// "indexed, not stored"): the answer loop reads the text from the app's store before quoting
/// it, and without a store says the text is not stored rather than that nothing was found.
@Suite struct UnstoredTextAnswerTests {
  /// The app's store: the full records, text included.
  struct Store: IndexDelegate {
    var items: [SearchableItem]
    func reindexAll(into index: SearchIndex) throws {}
    func reindex(identifiers: [String], into index: SearchIndex) throws {}
    func searchableItems(forIdentifiers identifiers: [String], protectionClass: String?) throws -> [SearchableItem] {
      items.filter { identifiers.contains($0.uniqueIdentifier) && $0.protectionClass == protectionClass }
    }
  }

  static let items = [
    SearchableItem(uniqueIdentifier: "bread-1", domainIdentifier: "notes", contentType: "note", attributeSet: AttributeSet([
      ("title", .string("Kitchen notebook")),
      ("textContent", .string("Feed the sourdough starter twice a day with rye flour and keep it at room temperature.")),
      ("contentModificationDate", .date(SampleIndex.now.addingTimeInterval(-86_400))),
    ])),
    SearchableItem(uniqueIdentifier: "garden-1", domainIdentifier: "notes", contentType: "note", attributeSet: AttributeSet([
      ("title", .string("Garden plan")),
      ("textContent", .string("Tomatoes along the south fence, basil between them.")),
    ])),
  ]

  /// An index of the items whose text is searchable and not stored.
  static func unstoredIndex() throws -> SearchIndex {
    let index = try SearchIndex(path: TemporaryFiles.database("unstored"))
    try index.setStoresText(false)
    try index.write { writer in for item in items { try writer.upsert(item) } }
    return index
  }

  static func session(index: SearchIndex, delegate: (any IndexDelegate)?) throws -> AnswerSession {
    let registry = StandardLibrary.registry()
    var options = SampleIndex.options
    options.delegate = delegate
    let tool = SearchTool(executor: QueryExecutor(index: index, registry: registry), options: options, maximumResultCount: 10)
    let schema = try ToolSchemaGenerator(index: index, registry: registry, scope: options.scope).tool(.focused)
    return AnswerSession(
      tool: tool, toolDefinition: ToolDefinition(openAIFunction: schema)!, model: nil,
      planner: try BuiltinPlanner(index: index, clock: SampleIndex.clock, registry: registry), configuration: AnswerSession.Configuration())
  }

  static let question = "how often do I feed the sourdough starter"

  @Test func theIndexKeepsNoTextButFindsTheItem() throws {
    let index = try Self.unstoredIndex()
    #expect(try index.item(withIdentifier: "bread-1")?.attributeSet["textContent"] == nil)
    #expect(try index.identifiersWithUnstoredText(["bread-1", "garden-1", "missing"]) == ["bread-1", "garden-1"])
    var found: [String] = []
    try QueryExecutor(index: index, registry: StandardLibrary.registry()).run(#"search "sourdough starter""#, options: SampleIndex.options) { reply in
      found += reply.content.resultItems.map(\.id)
    }
    #expect(found == ["bread-1"])
  }

  @Test func theAnswerQuotesTextReadFromTheAppsStore() async throws {
    let index = try Self.unstoredIndex()
    let collected = await AnswerFixture.collect(try Self.session(index: index, delegate: Store(items: Self.items)).streamResponse(to: Self.question))
    #expect(collected.error == nil)
    #expect(collected.sourceIDs == ["bread-1"])
    #expect(collected.text.contains("Feed the sourdough starter twice a day with rye flour"), "\(collected.text)")
    let source = try #require(collected.summary?.sources.first)
    #expect(source.item.attributeSet["textContent"] != nil, "the cited source carries the hydrated text")
  }

  @Test func withoutAStoreTheAnswerSaysTheTextIsNotStored() async throws {
    let index = try Self.unstoredIndex()
    let collected = await AnswerFixture.collect(try Self.session(index: index, delegate: nil).streamResponse(to: Self.question))
    #expect(collected.error == nil)
    #expect(collected.text == AnswerInstructions.textNotStored(1))
    #expect(collected.text != AnswerInstructions.notFound)
    #expect(collected.sourceIDs.isEmpty)
  }

  @Test func anItemTheStoreNoLongerHasIsNotQuoted() async throws {
    let index = try Self.unstoredIndex()
    let collected = await AnswerFixture.collect(try Self.session(index: index, delegate: Store(items: [])).streamResponse(to: Self.question))
    #expect(collected.sourceIDs.isEmpty)
    #expect(collected.text == AnswerInstructions.notFound)
  }
}
