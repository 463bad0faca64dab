import Foundation
import QueryEngine
import SearchIndex
import SearchlightTestSupport
import Stages
import Testing

/// `fuse`: reciprocal rank fusion over `merge`d lists.
@Suite struct FuseStageTests {
  @Test func scoresAreTheSumOfReciprocalRanks() throws {
    let samples = try EmbeddedSamples(embed: false)
    let a = try samples.ids(#"search "trail" | top 5"#)
    let b = try samples.ids(#"search rating >= 4 | sort rating desc | top 5"#)
    let fused = try samples.items(#"a = search "trail" | top 5; b = search rating >= 4 | sort rating desc | top 5; merge(a, b) | fuse"#)
    #expect(Set(fused.map(\.id)) == Set(a + b))
    for item in fused {
      var expected = 0.0
      if let rank = a.firstIndex(of: item.id) { expected += 1 / (60 + Double(rank + 1)) }
      if let rank = b.firstIndex(of: item.id) { expected += 1 / (60 + Double(rank + 1)) }
      #expect(abs((item.score ?? 0) - expected) < 1e-12, "\(item.id)")
    }
    #expect(fused.map { $0.score ?? 0 } == fused.map { $0.score ?? 0 }.sorted(by: >))
  }

  @Test func weightsAndKChangeTheOrder() throws {
    let samples = try EmbeddedSamples(embed: false)
    let text = #"a = search "trail" | top 5; b = search rating >= 4 | sort rating desc | top 5; "#
    let b = try samples.ids(#"search rating >= 4 | sort rating desc | top 5"#)
    let favourB = try samples.items(text + "merge(a, b) | fuse k 1 weights 0.01 1")
    #expect(favourB.first?.id == b.first)
    let item = try #require(favourB.first)
    #expect(item.scoreTerms.contains { $0.name.hasPrefix("rrf(input 2, rank 1)") })
  }

  @Test func agreementSilencesAnInputThatSharesNothingWithTheFirst() throws {
    let samples = try EmbeddedSamples(embed: false)
    // Trails about waterfalls, and notes about kitchens: no item in both top tens.
    let a = try samples.ids(#"search "waterfall" && domainIdentifier == "trails" | top 10"#)
    let b = try samples.ids(#"search "kitchen" && domainIdentifier == "notes" | top 10"#)
    #expect(!a.isEmpty && !b.isEmpty && Set(a).isDisjoint(with: b))
    let lists = #"a = search "waterfall" && domainIdentifier == "trails" | top 10; b = search "kitchen" && domainIdentifier == "notes" | top 10; "#
    let plain = try samples.items(lists + "merge(a, b) | fuse")
    let agreed = try samples.items(lists + "merge(a, b) | fuse agreement")
    // Without agreement b's first item ties a's first; with it, a's order comes first whole.
    #expect(plain.prefix(2).map(\.id) != Array(a.prefix(2)) || a.count < 2)
    #expect(Array(agreed.prefix(a.count).map(\.id)) == a)
    #expect(agreed.dropFirst(a.count).allSatisfy { ($0.score ?? 1) == 0 })
  }

  @Test func agreementKeepsAnInputThatAgreesFully() throws {
    let samples = try EmbeddedSamples(embed: false)
    let lists = #"a = search "trail" | top 10; b = search "trail" | top 10; "#
    let plain = try samples.items(lists + "merge(a, b) | fuse")
    let agreed = try samples.items(lists + "merge(a, b) | fuse agreement")
    #expect(plain.map(\.id) == agreed.map(\.id))
    #expect(zip(plain, agreed).allSatisfy { abs(($0.score ?? 0) - ($1.score ?? 0)) < 1e-12 })
  }

  @Test func hybridTextAndVectorRetrievalFuses() throws {
    let samples = try EmbeddedSamples()
    let text = try samples.ids(#"search "kitchen remodel" | top 20"#)
    let vectors = try samples.ids(#"search similar "kitchen remodel" within 1 limit 20"#)
    let fused = try samples.items(
      #"text = search "kitchen remodel" | top 20; vectors = search similar "kitchen remodel" within 1 limit 20; merge(text, vectors) | fuse | top 5"#)
    #expect(fused.count == 5)
    // Items both lists rank highly come first.
    let both = Set(text.prefix(5)).intersection(vectors.prefix(5))
    #expect(!both.isEmpty)
    #expect(both.contains(fused[0].id))
    #expect(fused[0].inputRanks.compactMap { $0 }.count == 2)
  }

  @Test func badArgumentsAreDiagnosed() throws {
    let samples = try EmbeddedSamples(embed: false)
    #expect((#expect(throws: QueryError.self) { try samples.query(#"search "trail" | fuse k 0"#) })?.diagnostics != nil)
    #expect((#expect(throws: QueryError.self) { try samples.query(#"search "trail" | fuse weights"#) })?.diagnostics != nil)
    #expect((#expect(throws: QueryError.self) { try samples.query(#"search "trail" | fuse k 3 k 4"#) })?.diagnostics != nil)
    #expect((#expect(throws: QueryError.self) { try samples.query(#"search "trail" | count | fuse"#) })?.diagnostics != nil)
  }
}
