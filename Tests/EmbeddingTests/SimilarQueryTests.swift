import Assistant
import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Stages
import Testing

/// `similar` in queries over the embedded samples: ranking, combination with predicates and
/// stages, the keyword fallback, and the errors.
@Suite struct SimilarQueryTests {
  @Test func similarRanksItemsThatShareWordsFirst() throws {
    let samples = try EmbeddedSamples()
    let items = try samples.items(#"similar "kitchen remodel quote" within 0.95 | top 5"#)
    #expect(items.count == 5)
    let titles = items.compactMap { $0.item.attributeSet["title"]?.stringValue?.lowercased() }
    #expect(titles.first?.contains("kitchen") == true)
    #expect(items.map(\.relevance) == items.map(\.relevance).sorted(by: >))
    #expect((items.first?.relevance ?? 0) > 0.3)
  }

  @Test func distanceAndLimitBoundTheMatches() throws {
    let samples = try EmbeddedSamples()
    let loose = try samples.count(#"similar "trail waterfall hike" within 1.2 | count"#)
    let tight = try samples.count(#"similar "trail waterfall hike" within 0.8 | count"#)
    #expect(tight < loose)
    #expect(try samples.count(#"similar "trail waterfall hike" within 2 limit 3 | count"#) == 3)
    for item in try samples.items(#"similar "trail waterfall hike" within 0.8"#) { #expect(item.relevance >= 0.2 - 1e-6) }
  }

  @Test func similarCombinesWithPredicates() throws {
    let samples = try EmbeddedSamples()
    let all = try samples.ids(#"similar "snow mountain trail" within 1.1"#)
    let trails = try samples.items(#"similar "snow mountain trail" within 1.1 && domainIdentifier == "trails""#)
    #expect(!trails.isEmpty)
    #expect(trails.count < all.count)
    #expect(trails.allSatisfy { $0.item.domainIdentifier == "trails" })
    #expect(Set(trails.map(\.id)).isSubset(of: Set(all)))
    let either = try samples.ids(#"similar "snow mountain trail" within 1.1 || "zucchini""#)
    #expect(Set(all).isSubset(of: Set(either)))
  }

  @Test func aLimitCountsTheNearestAmongItemsThatPassTheOtherConditions() throws {
    let samples = try EmbeddedSamples()
    let phrase = "waterfall hike trail"
    let nearest = try samples.items(#"similar "\#(phrase)" within 2 limit 3"#)
    let all = try samples.items(#"similar "\#(phrase)" within 2"#)
      .sorted { $0.relevance != $1.relevance ? $0.relevance > $1.relevance : $0.id < $1.id }
    // A domain none of the three nearest items is in, with at least three items.
    let nearDomains = Set(nearest.map { $0.item.domainIdentifier ?? "" })
    let counts = Dictionary(grouping: all.compactMap(\.item.domainIdentifier), by: { $0 }).mapValues(\.count)
    let domain = try #require(counts.filter { !nearDomains.contains($0.key) && $0.value >= 3 }.keys.sorted().first)
    let restricted = try samples.items(#"similar "\#(phrase)" within 2 limit 3 && domainIdentifier == "\#(domain)""#)
    // Not the items of that domain among the three nearest (there are none): its three nearest.
    let reference = all.filter { $0.item.domainIdentifier == domain }.prefix(3)
    #expect(restricted.count == 3)
    #expect(Set(restricted.map(\.id)) == Set(reference.map(\.id)))
  }

  @Test func whereInSwiftAgreesWithSQL() throws {
    let samples = try EmbeddedSamples()
    let pushed = Set(try samples.ids(#"search * | where similar "garden plan tomatoes" within 0.9"#))
    // `top` stops the pushdown: the where runs in Swift.
    let inSwift = Set(try samples.ids(#"search * | top 10000 | where similar "garden plan tomatoes" within 0.9"#))
    #expect(!pushed.isEmpty)
    #expect(pushed == inSwift)
    let negated = Set(try samples.ids(#"search * | top 10000 | where !similar "garden plan tomatoes" within 0.9"#))
    #expect(negated.isDisjoint(with: pushed))
  }

  @Test func itemsWithoutVectorsMatchByKeywords() throws {
    let samples = try EmbeddedSamples()
    // A new item is pending (no endpoint call on index): it can only match by keywords.
    try samples.index.indexSearchableItems([SearchableItem(
      uniqueIdentifier: "zebra-1", domainIdentifier: "notes", attributeSet: AttributeSet([("title", .string("Zebra crossing repairs"))]))])
    #expect(try samples.index.embeddingCounts().pending == 1)
    #expect(try samples.ids(#"similar "zebra" within 0.1 keywords "zebra crossing""#) == ["zebra-1"])
    #expect(try samples.ids(#"similar "zebra crossing" within 0.1"#) == ["zebra-1"])
    // Without the phrase's words it does not match.
    #expect(try samples.ids(#"similar "zebra stripes" within 0.1"#).isEmpty)
    // Once embedded it matches by its vector.
    _ = try samples.run()
    let hits = try samples.items(#"similar "zebra crossing repairs" within 0.1"#)
    #expect(hits.map(\.id) == ["zebra-1"])
    #expect((hits.first?.relevance ?? 0) > 0.99)
  }

  @Test func similarityScoresInScoreStages() throws {
    let samples = try EmbeddedSamples()
    let items = try samples.items(#"search "kitchen" | score similarity("kitchen remodel quote") | top 3"#)
    #expect(items.count == 3)
    #expect(items.map { $0.score ?? 0 } == items.map { $0.score ?? 0 }.sorted(by: >))
    #expect((items.first?.score ?? 0) > 0.3)
  }

  @Test func withoutEmbeddingsSimilarSaysHowToAddThem() throws {
    let samples = try EmbeddedSamples(embed: false)
    #expect {
      _ = try samples.query(#"similar "waterfall""#)
    } throws: { error in
      guard case .embedding(let error)? = error as? QueryError else { return false }
      return error.kind == .noEmbeddings && error.message.contains("searchlight embeddings --db")
    }
  }

  /// A stage that compares with embeddings (a score, a filter, a sort, a table column) fails
  /// before the search ahead of it runs: no statement is run for nothing.
  @Test(arguments: [
    #"search "trail" | score relevance + similarity("quiet forest walk") | top 5"#,
    #"search "trail" | where similarity("waterfall") > 0.2"#,
    #"search "trail" | sort similarity("waterfall") desc | limit 3"#,
    #"search "trail" | table title, similarity("waterfall")"#,
    #"search "trail" | fork (count) (score similarity("lake") | top 1)"#,
  ])
  func withoutEmbeddingsAStageThatNeedsThemFailsFirst(_ query: String) throws {
    let samples = try EmbeddedSamples(embed: false)
    var options = samples.options
    let log = StatementLog()
    options.statementLog = log
    #expect {
      _ = try QueryExecutor(index: samples.index, registry: StandardLibrary.registry()).run(query, options: options) { _ in }
    } throws: { error in
      guard case .embedding(let error)? = error as? QueryError else { return false }
      return error.kind == .noEmbeddings && error.message.contains("searchlight embeddings --db")
    }
    #expect(log.all.isEmpty, "\(query): \(log.all)")
  }

  @Test func aQueryVectorOfAnotherSizeIsAMismatch() throws {
    let samples = try EmbeddedSamples()
    samples.endpoint.fail(with: .dimensions(16))
    #expect {
      _ = try samples.query(#"similar "waterfall""#)
    } throws: { (($0 as? QueryError)?.underlying as? EmbeddingError)?.kind == .mismatch }
  }

  @Test func anUnreachableQueryEndpointIsAnIOFailure() throws {
    let samples = try EmbeddedSamples()
    samples.endpoint.fail(with: .reset)
    #expect {
      _ = try samples.query(#"similar "waterfall""#)
    } throws: { (($0 as? QueryError)?.underlying as? EmbeddingError)?.isIOFailure == true }
  }

  @Test func explainShowsTheSimilarSearch() throws {
    let samples = try EmbeddedSamples()
    let graph = try QueryExecutor(index: samples.index, registry: .init([])).prepare(#"similar "waterfall" within 0.5 limit 7"#, options: samples.options)
    let text = "\(graph.statements.first!.source)"
    #expect(text.contains("waterfall"))
  }
}
