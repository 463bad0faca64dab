import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Stages
import Testing

// The code of the DocC articles (Sources/Assistant/Assistant.docc), compiled and run here.
// `everySnippetIsHere` checks that each ```swift block of an article appears in this file
// line for line (indentation aside), so an article cannot drift from code that compiles.

struct RatedAtLeast: SearchStage {
  var minimum = 4.5
  var name: String { "ratedAtLeast" }
  var description: String { "Keeps items whose rating is at least the minimum" }
  var signatures: [StageDescriptor.Signature] { [.init(.items, .items)] }
  var parameters: [SearchStageParameter<Self>] {
    [.number("minimum", \.minimum, "The lowest rating kept", in: 0...5)]
  }
  func execute(_ input: PipelineData, context: any StageContext) async throws -> PipelineData {
    var kept: [ResultItem] = []
    for item in input.resultItems {
      try Task.checkCancellation()
      if (item.item.attributeSet["rating"]?.numericValue ?? 0) >= minimum { kept.append(item) }
    }
    return .items(kept)
  }
}

struct ScriptedModel: LanguageModel {
  func stream(messages: [ChatMessage], tools: [ToolDefinition], options: GenerationOptions) -> AsyncThrowingStream<ModelEvent, any Error> {
    let searched = messages.contains { if case .tool = $0 { true } else { false } }
    let events: [ModelEvent]
    if searched || tools.isEmpty {
      events = [.textDelta("The Mist Trail passes two waterfalls."), .finished(reason: .stop, usage: nil)]
    } else {
      let arguments = #"{"query":{"type":"search","value":{"root":{"type":"allText","value":{"terms":["waterfall"]}},"pageSize":2}}}"#
      events = [.toolCall(ToolCall(id: "call-1", name: tools[0].name, arguments: arguments)), .finished(reason: .toolCalls, usage: nil)]
    }
    return AsyncThrowingStream { continuation in
      for event in events { continuation.yield(event) }
      continuation.finish()
    }
  }
}

@Suite struct DocCSnippetTests {
  static let catalogue = repositoryRoot.appendingPathComponent("Sources/Assistant/Assistant.docc")

  /// A fresh folder for an article's index.
  static func folder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("docc-snippets-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }

  /// DonatingItems.md, then Querying.md, CustomStages.md and AnswerLoop.md over its index.
  @Test func theArticlesRunInOrder() async throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }

    // DonatingItems.md
    let index = try SearchIndex(path: folder.appendingPathComponent("items.db").path)
    try index.indexSearchableItems([
      SearchableItem(
        uniqueIdentifier: "trail-1", domainIdentifier: "trails", contentType: "trail",
        attributeSet: ["title": "Mist Trail", "textContent": "A steep trail beside a waterfall.", "rating": 4.8]),
      SearchableItem(
        uniqueIdentifier: "note-1", domainIdentifier: "notes", contentType: "note",
        attributeSet: AttributeSet { set in
          set["title"] = "Packing list"
          set["textContent"] = "Rain jacket for the waterfall spray."
        }),
    ])
    let removed = try index.deleteSearchableItems(withDomainIdentifiers: ["notes"])
    #expect(removed == 1)
    try index.indexSearchableItems([
      SearchableItem(uniqueIdentifier: "trail-2", domainIdentifier: "trails", contentType: "trail",
                     attributeSet: ["title": "Lakeshore Loop", "textContent": "A flat loop with a small waterfall.", "rating": 4.1])
    ])

    // Querying.md
    let executor = QueryExecutor(index: index, registry: StandardLibrary.registry())
    var titles: [String] = []
    for try await reply in executor.replies(for: #"search "waterfall" | top 5"#) {
      titles += reply.content.resultItems.compactMap { $0.item.attributeSet.title }
    }
    #expect(Set(titles) == ["Mist Trail", "Lakeshore Loop"])
    let thrown = await #expect(throws: QueryError.self) {
      for try await _ in executor.replies(for: #"search rating > "high""#) {}
    }
    #expect(thrown?.diagnostics?.primaryLocation.line == 1)
    do {
      for try await _ in executor.replies(for: #"search rating > "high""#) {}
    } catch .invalidQuery(let diagnostics) {
      let (line, column) = diagnostics.primaryLocation
      print("\(diagnostics.primary.message) at \(line):\(column)")
    } catch {
      print("the query failed: \(error)")
    }

    // CustomStages.md
    var registry = StandardLibrary.registry()
    try registry.register(RatedAtLeast())
    let rated = QueryExecutor(index: index, registry: registry)
    var kept: [String] = []
    for try await reply in rated.replies(for: #"search "waterfall" | ratedAtLeast(minimum: 4.5)"#) {
      kept += reply.content.resultItems.map(\.item.uniqueIdentifier)
    }
    #expect(kept == ["trail-1"])
    do {
      for try await _ in rated.replies(for: #"search "waterfall" | ratedAtLeast(minimum: 9)"#) {}
    } catch .invalidQuery(let diagnostics) {
      print(diagnostics.primary.message)  // 'minimum' of ratedAtLeast must be from 0 to 5; got 9
    } catch {
      print("the query failed: \(error)")
    }
    let refused = await #expect(throws: QueryError.self) {
      for try await _ in rated.replies(for: #"search "waterfall" | ratedAtLeast(minimum: 9)"#) {}
    }
    #expect(refused?.diagnostics?.primary.message == "'minimum' of ratedAtLeast must be from 0 to 5; got 9")

    // AnswerLoop.md, with PluggingAModel.md's model
    let session = try AnswerSession(executor: executor, model: ScriptedModel())
    var answer = ""
    var sources: [String] = []
    for try await event in session.streamResponse(to: "Which trails have waterfalls?") {
      switch event {
      case .text(let piece): answer += piece
      case .done(let summary): sources = summary.sources.map(\.id)
      default: break
      }
    }
    #expect(answer.hasPrefix("The Mist Trail passes two waterfalls."))
    #expect(sources.contains("trail-1"))

    let task = Task {
      for try await _ in session.streamResponse(to: "Which trails have waterfalls?") {}
    }
    task.cancel()
    _ = await task.result
  }

  /// The ```swift blocks of an article.
  static func snippets(_ article: String) -> [[String]] {
    var blocks: [[String]] = []
    var current: [String]?
    for line in article.components(separatedBy: "\n") {
      if line.hasPrefix("```") {
        if let block = current {
          blocks.append(block)
          current = nil
        } else if line == "```swift" {
          current = []
        }
        continue
      }
      current?.append(line)
    }
    return blocks
  }

  /// Lines without their indentation, blank lines dropped.
  static func significant(_ lines: [String]) -> [String] {
    lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
  }

  @Test func everySnippetIsHere() throws {
    let articles = try FileManager.default.contentsOfDirectory(atPath: Self.catalogue.path).filter { $0.hasSuffix(".md") }.sorted()
    #expect(articles.count == 6)
    let compiled = Self.significant(try String(contentsOfFile: #filePath, encoding: .utf8).components(separatedBy: "\n"))
    var count = 0
    for article in articles {
      let text = try String(contentsOf: Self.catalogue.appendingPathComponent(article), encoding: .utf8)
      for snippet in Self.snippets(text) {
        count += 1
        let lines = Self.significant(snippet)
        let found = lines.isEmpty || (0...(compiled.count - lines.count)).contains { start in Array(compiled[start..<(start + lines.count)]) == lines }
        #expect(found, "\(article): this snippet is not compiled by DocCSnippets.swift:\n\(snippet.joined(separator: "\n"))")
      }
    }
    #expect(count >= 8)
  }
}
