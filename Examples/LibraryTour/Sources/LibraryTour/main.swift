import Assistant
import Foundation
import QueryEngine
import SearchIndex
import Stages

// A tour of the public API, as an app would use it: donate items, query them with
// `for try await`, add a stage of its own, and answer a question with its own model.
// Every step checks what it got and exits non-zero when something is off, so CI can run it.

func check(_ condition: Bool, _ message: String) {
  if !condition {
    FileHandle.standardError.write(Data("LibraryTour: \(message)\n".utf8))
    exit(1)
  }
}

// 1. Donate items to a private index in a temporary folder.
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("library-tour-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let index = try SearchIndex(path: folder.appendingPathComponent("tour.db").path)
try index.indexSearchableItems([
  SearchableItem(
    uniqueIdentifier: "trail-1", domainIdentifier: "trails", contentType: "trail",
    attributeSet: ["title": "Mist Trail", "textContent": "A steep trail beside two waterfalls.", "rating": 4.8, "keywords": ["waterfall", "granite"]]),
  SearchableItem(
    uniqueIdentifier: "trail-2", domainIdentifier: "trails", contentType: "trail",
    attributeSet: ["title": "Lakeshore Loop", "textContent": "A flat loop around the lake, with a small waterfall at the inlet.", "rating": 4.1]),
  SearchableItem(
    uniqueIdentifier: "note-1", domainIdentifier: "notes", contentType: "note",
    attributeSet: AttributeSet { set in
      set["title"] = "Packing list"
      set["textContent"] = "Rain jacket for the waterfall spray."
    }),
])

// 2. A stage of the app's own: keeps items rated at least `minimum`, a named parameter
// declared once with its description and range (the registered value is the default).
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
var registry = StandardLibrary.registry()
try registry.register(RatedAtLeast())
let executor = QueryExecutor(index: index, registry: registry)

// 3. Query with `for try await`.
var found: [String] = []
for try await reply in executor.replies(for: #"search "waterfall" | ratedAtLeast(minimum: 4.5)"#) {
  if case .items(let items) = reply.content { found += items.map(\.item.uniqueIdentifier) }
}
check(found == ["trail-1"], "expected only trail-1 rated 4.5 or more, got \(found)")
print("query: \(found.joined(separator: ", "))")

// A mistake in a query comes back as a typed error: diagnostics with a line and column.
do {
  for try await _ in executor.replies(for: #"search "waterfall" | ratedAtLeast(minimum: 9)"#) {}
  check(false, "a minimum outside 0...5 should be refused")
} catch .invalidQuery(let diagnostics) {
  let location = diagnostics.primaryLocation
  check(location.line == 1 && location.column > 20, "the error should point into the stage call, not \(location)")
  print("refused: \(diagnostics.primary.message) (query:\(location.line):\(location.column))")
} catch {
  check(false, "expected diagnostics, got \(error)")
}

// 4. Answer a question with the app's own model: here a scripted one that searches once
// and then answers from what came back.
struct ScriptedModel: LanguageModel {
  func stream(messages: [ChatMessage], tools: [ToolDefinition], options: GenerationOptions) -> AsyncThrowingStream<ModelEvent, any Error> {
    let searched = messages.contains { if case .tool = $0 { true } else { false } }
    let events: [ModelEvent]
    if searched || tools.isEmpty {
      events = [.textDelta("The Mist Trail passes two waterfalls."), .finished(reason: .stop, usage: nil)]
    } else {
      let arguments = #"{"query":{"type":"dsl","value":{"query":"search \"waterfall\" | top 2"}}}"#
      events = [.toolCall(ToolCall(id: "call-1", name: tools[0].name, arguments: arguments)), .finished(reason: .toolCalls, usage: nil)]
    }
    return AsyncThrowingStream { continuation in
      for event in events { continuation.yield(event) }
      continuation.finish()
    }
  }
}
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
check(answer.hasPrefix("The Mist Trail passes two waterfalls."), "unexpected answer: \(answer)")
check(sources.contains("trail-1"), "the answer's sources should include trail-1, got \(sources)")
print("answer: \(answer)")
print("sources: \(sources.joined(separator: ", "))")
