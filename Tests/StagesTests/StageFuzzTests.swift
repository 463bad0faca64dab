import Foundation
import SearchlightTestSupport
import Testing
@testable import QueryEngine
@testable import SearchIndex
@testable import Stages

/// Generated pipelines over the standard library: type checking never crashes, diagnostics
/// point inside the text, and whatever checks also runs.
@Suite struct StageFuzzTests {
  static let sources = ["search *", #"search "budget""#, #"search domainIdentifier == "trails""#, "search false", "a = search *; a"]
  static let stages = [
    "where rating > 3", "where score > 0.5", "score rating", "score 0.7 * relevance + 0.3 * recency(contentModificationDate, 30d)",
    "sort rating desc", "sort title, distance desc", "sort score", "top 3", "top", "limit 2", "limit 0", "sample 4 seed 9",
    "sample 3 by stateOrProvince", "group by keywords", "group stateOrProvince", "count", "table title, rating", "table",
    "stats avg(distance)", "stats median(rating), stddev(rating) by domainIdentifier", "stats count", "select first", "select max-by count",
    "select max-by rating", "select nth 2", #"extract "Oregon""#, "text", "fetch title", #"people "Sam Ortiz""#,
    #"fork (count) (top 1 | text)"#, #"count as "N""#,
  ]
  static let noise = ["1e99", "-1", "0", "2.5", "x", "*", ",", "by", "seed", "desc", "(", ")", "$v", "\"", "nth", "as", "|", "1e18"]

  func check(_ text: String, in index: SearchIndex) {
    let source = SourceText(text)
    do {
      let graph = try QueryExecutor(index: index, registry: standardRegistry).prepare(text, options: QueryOptions(clock: sampleClock))
      _ = graph
      do {
        _ = try replies(text, in: index)
      } catch is QueryRuntimeError {
      } catch {
        Issue.record("\(text.debugDescription) checked but failed: \(error)")
      }
    } catch {
      guard let error = error.diagnostics else {
        Issue.record("\(text.debugDescription): \(error)")
        return
      }
      for diagnostic in error.diagnostics {
        #expect(diagnostic.span.start >= 0 && diagnostic.span.end <= source.byteCount, "\(diagnostic.id) in \(text.debugDescription)")
        _ = DiagnosticRenderer.render(diagnostic, in: source)
      }
    }
  }

  @Test func pipelinesOfRandomStages() throws {
    var generator = SplitMix(seed: 41)
    func pick<T>(_ list: [T]) -> T { list[Int(generator.next() % UInt64(list.count))] }
    for _ in 0..<300 {
      var text = pick(Self.sources)
      for _ in 0..<(Int(generator.next() % 4)) {
        var stage = pick(Self.stages)
        if generator.next() % 3 == 0 {
          var words = stage.split(separator: " ").map(String.init)
          words.insert(pick(Self.noise), at: Int(generator.next() % UInt64(words.count + 1)))
          stage = words.joined(separator: " ")
        }
        text += " | " + stage
      }
      check(text, in: sampleIndex.index)
    }
  }

  @Test func everyStageWithEveryNoiseArgument() {
    for stage in StandardLibrary.stages.map(\.descriptor.name) {
      for argument in Self.noise + ["", "title", "rating desc", "by rating", "1 2 3", "count(rating)", "avg(title)"] {
        check("search rating > 4.8 | \(stage) \(argument)", in: sampleIndex.index)
        check("search rating > 4.8 | group by keywords | \(stage) \(argument)", in: sampleIndex.index)
      }
    }
  }
}

/// SplitMix64, for reproducible generated inputs.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
