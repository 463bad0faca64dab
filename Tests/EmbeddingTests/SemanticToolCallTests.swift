import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Stages
import Testing

/// The tool-call side: `semanticSimilar` nodes and the `semantic` ranking model, with and
/// without embeddings; and the built-in planner's hybrid plans.
@Suite struct SemanticToolCallTests {
  static let call = #"{"query":{"type":"search","value":{"root":{"type":"semanticSimilar","value":{"contentType":"text","query":"kitchen remodel quotes","keywords":["kitchen","remodel"],"maxDistance":0.9,"maxCount":4}}}}}"#

  @Test func semanticSimilarIsASimilarSearchWithEmbeddings() throws {
    let samples = try EmbeddedSamples()
    let tool = SearchTool(executor: QueryExecutor(index: samples.index, registry: StandardLibrary.registry()), options: samples.options)
    let result = try tool.call(Self.call)
    #expect(!result.isError)
    #expect(result.query?.contains(#"similar "kitchen remodel quotes" within 0.9 limit 4 keywords "kitchen remodel""#) == true)
    let items = result.replies.last?.content.resultItems ?? []
    #expect(items.count == 4)
    #expect(items.first?.item.attributeSet["title"]?.stringValue?.lowercased().contains("kitchen") == true)
  }

  @Test func withoutEmbeddingsItFallsBackToKeywords() throws {
    let samples = try EmbeddedSamples(embed: false)
    let tool = SearchTool(executor: QueryExecutor(index: samples.index, registry: StandardLibrary.registry()), options: samples.options)
    let result = try tool.call(Self.call)
    #expect(!result.isError)
    #expect(result.query?.contains("similar") == false)
    #expect(result.text.contains("no embeddings"))
  }

  @Test func theSemanticModelScoresBySimilarity() throws {
    let samples = try EmbeddedSamples()
    let call = #"{"query":{"type":"search","value":{"root":{"type":"semanticSimilar","value":{"contentType":"text","query":"kitchen remodel","keywords":["kitchen"],"maxDistance":1.0,"maxCount":0}},"modelComposition":{"type":"nonTemporal","value":{"models":[{"type":"semantic","value":{"weight":1.0}}]}}}}}"#
    let tool = SearchTool(executor: QueryExecutor(index: samples.index, registry: StandardLibrary.registry()), options: samples.options)
    let result = try tool.call(call)
    #expect(!result.isError)
    #expect(result.query?.contains(#"5 * similarity("kitchen remodel")"#) == true)
    #expect(result.query?.contains("limit") == false)
  }

  @Test func maxDistanceOutOfRangeIsAnInBandError() throws {
    let samples = try EmbeddedSamples()
    let tool = SearchTool(executor: QueryExecutor(index: samples.index, registry: StandardLibrary.registry()), options: samples.options)
    let result = try tool.call(Self.call.replacingOccurrences(of: "0.9", with: "3.5"))
    #expect(result.error?.path.hasSuffix("maxDistance") == true)
  }

  @Test func thePlannerFusesTextAndVectorsWhenTheIndexHasEmbeddings() throws {
    let samples = try EmbeddedSamples()
    let planner = try BuiltinPlanner(index: samples.index, clock: SampleIndex.clock)
    #expect(planner.hybrid)
    let plan = try planner.plan("kitchen remodel quotes")
    #expect(plan.dsl.contains("merge(text, vectors) | fuse agreement | top 10"))
    #expect(plan.dsl.contains(#"similar "kitchen remodel quotes""#))
    #expect(try samples.items(plan.dsl).count == 10)
    // Readings that are checked before they are chosen (a misspelt word, a structured reading
    // that finds nothing) plan without calling the embeddings endpoint.
    let respelt = try planner.plan("kitchen remodle quotes")
    #expect(respelt.dsl.contains("similar"), "\(respelt.dsl)")
    let dated = try planner.plan("kitchen notes from 1979")
    #expect(!dated.dsl.isEmpty)

    let plain = try BuiltinPlanner(index: try EmbeddedSamples(embed: false).index, clock: SampleIndex.clock)
    #expect(!plain.hybrid)
    #expect(try !plain.plan("kitchen remodel quotes").dsl.contains("fuse"))
  }
}
