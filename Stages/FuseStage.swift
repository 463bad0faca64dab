import QueryEngine

/// Reciprocal rank fusion of `merge`d result lists: hybrid text + vector retrieval.
///
/// Each item scores `sum over inputs i of weight_i / (k + rank_i)`, where `rank_i` is its
/// 1-based position in input `i` of the `merge` (inputs that lack it add nothing). RRF needs
/// no score calibration between inputs, which is why it suits BM25 next to cosine similarity
/// (Cormack, Clarke and Büttcher, SIGIR 2009; k = 60 is their constant). Without a `merge`
/// before it, the input is one list and fusion keeps its order.
///
/// With `agreement`, each input after the first is weighted by how much its top ten agrees
/// with the first input's (the share of items both have there): a vector search that finds
/// nothing the text search finds (weak embeddings, say a chat model's pooled states) then adds
/// almost nothing and cannot push good text matches down, while one that agrees counts fully.
public struct FuseStage: StageDefinition {
  public init() {}

  public static let defaultK = 60.0

  public let descriptor = StageDescriptor(
    name: "fuse",
    abstract: "Reciprocal rank fusion of merged result lists: each item scores the sum of weight / (k + rank) over the inputs that have it.",
    usage: "fuse [k K] [weights W1 W2 ...] [agreement]",
    signatures: [.init(.items, .scoredItems), .init(.scoredItems, .scoredItems)],
    parameters: [
      StageParameter("k", .number, "Rank constant: larger values flatten the gap between top ranks", default: .number(60), range: 1...10_000),
      StageParameter("weights", .number, "Weight of each merged input, in merge order (default 1 each)", range: 0...100),
      StageParameter("agreement", .boolean, "Weight each input after the first by the share of its top ten that the first input's top ten has", default: .bool(false)),
    ],
    // Hybrid retrieval merges a text search with a `similar` search (which needs an index
    // with embeddings, so these examples, run on the samples, fuse two text searches):
    //   text = search "waterfall hike"; vectors = search similar "waterfall hike" within 0.9 limit 50;
    //   merge(text, vectors) | fuse | top 5
    examples: [
      #"title = search "trail"; body = search "hike"; merge(title, body) | fuse | top 5"#,
      #"a = search "trail"; b = search rating >= 4.5 | sort rating desc; merge(a, b) | fuse k 20 weights 1 2 | top 3"#,
      #"title = search "trail"; body = search "waterfall"; merge(title, body) | fuse agreement | top 5"#,
    ])

  public func bind(_ call: StageSyntax, input: PipelineType, context: inout StageBindingContext) -> (any BoundStage)? {
    var k = Self.defaultK
    var weights: [Double] = []
    var agreement = false
    guard let clauses = context.clauses(call) else { return nil }
    guard clauses.count <= 1 else {
      context.report(Diagnostic("stage.usage", "'fuse' takes its options without commas", at: call.span, help: "write \(descriptor.usage)"))
      return nil
    }
    var rest = clauses.first ?? []
    var seen = Set<String>()
    while let word = rest.first?.identifierName {
      guard word == "k" || word == "weights" || word == "agreement" else { break }
      guard seen.insert(word).inserted else {
        context.report(Diagnostic("stage.duplicate-argument", "'\(word)' is given twice", at: rest[0].span))
        return nil
      }
      rest.removeFirst()
      if word == "agreement" {
        agreement = true
      } else if word == "k" {
        guard let first = rest.first, case .number(let value) = first.kind, value >= 1, value <= 10_000 else {
          context.report(Diagnostic("stage.out-of-range", "'k' of fuse is a number from 1 to 10000", at: rest.first?.span ?? call.span,
                                    help: "write fuse k 60"))
          return nil
        }
        k = value
        rest.removeFirst()
      } else {
        while let first = rest.first, case .number(let value) = first.kind {
          guard value >= 0, value <= 100 else {
            context.report(Diagnostic("stage.out-of-range", "a weight of fuse is a number from 0 to 100", at: first.span))
            return nil
          }
          weights.append(value)
          rest.removeFirst()
        }
        guard !weights.isEmpty else {
          context.report(Diagnostic("stage.usage", "'weights' needs one number per merged input", at: rest.first?.span ?? call.span,
                                    help: "write fuse weights 1 0.5"))
          return nil
        }
      }
    }
    if let extra = rest.first {
      context.report(Diagnostic("stage.usage", "unexpected argument to 'fuse'", at: extra.span, help: "write \(descriptor.usage)"))
      return nil
    }
    return Bound(k: k, weights: weights, agreement: agreement)
  }

  /// How many of each input's first ranks `agreement` compares.
  static let agreementDepth = 10

  struct Bound: BoundStage {
    let k: Double
    let weights: [Double]
    var agreement = false
    var outputType: PipelineType { .scoredItems }
    var explanation: String {
      "reciprocal rank fusion, k \(StageBindingContext.format(k))" + (weights.isEmpty ? "" : ", weights " + weights.map(StageBindingContext.format).joined(separator: " "))
        + (agreement ? ", later inputs weighted by their agreement with the first" : "")
    }

    /// For each input, the share of its top `agreementDepth` that the first input's top
    /// `agreementDepth` holds too (1 for the first input; 0 for an input with no items).
    static func agreements(_ items: [ResultItem]) -> [Double] {
      let inputs = items.map(\.inputRanks.count).max() ?? 0
      guard inputs > 1 else { return Array(repeating: 1, count: inputs) }
      let depth = FuseStage.agreementDepth
      var tops = Array(repeating: Set<Int>(), count: inputs)
      for (position, item) in items.enumerated() {
        for (input, rank) in item.inputRanks.enumerated() where rank.map({ $0 <= depth }) == true {
          tops[input].insert(position)
        }
      }
      return tops.enumerated().map { input, top in
        if input == 0 { return 1 }
        let compared = min(depth, tops[0].count, top.count)
        return compared == 0 ? 0 : Double(top.intersection(tops[0]).count) / Double(compared)
      }
    }

    func execute(_ input: PipelineData, context: any StageContext) throws -> PipelineData {
      let shares = agreement ? Self.agreements(input.resultItems) : []
      var fused: [(position: Int, item: ResultItem)] = []
      for (position, var item) in input.resultItems.enumerated() {
        try context.cancellation.check()
        let ranks = item.inputRanks.isEmpty ? [position + 1] : item.inputRanks
        var score = 0.0
        var terms: [ScoreTerm] = []
        for (input, rank) in ranks.enumerated() {
          guard let rank else { continue }
          let weight = (input < weights.count ? weights[input] : 1) * (input < shares.count ? shares[input] : 1)
          let contribution = weight / (k + Double(rank))
          score += contribution
          terms.append(ScoreTerm(name: "rrf(input \(input + 1), rank \(rank))", value: contribution))
        }
        item.score = score
        item.scoreTerms = terms
        fused.append((position, item))
      }
      // Ties keep the merged order (the first input's order first).
      fused.sort { ($0.item.score ?? 0) != ($1.item.score ?? 0) ? ($0.item.score ?? 0) > ($1.item.score ?? 0) : $0.position < $1.position }
      return .scoredItems(fused.map(\.item))
    }
  }
}
